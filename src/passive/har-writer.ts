/**
 * Writes a HAR 1.2 file entry by entry: the document is never one object or one string in memory.
 * `JSON.stringify` of a whole recording of 1 MiB answers made a string past V8's limit ("Invalid
 * string length") after holding gigabytes; here each entry is made, written and let go.
 */
import { open } from 'node:fs/promises';
import { PROFILE_FACTS_FIELD, type ProfileFacts } from './profile-facts.ts';

/** Written text is gathered up to this many characters before each write: few writes, little held. */
const FLUSH_AT = 1024 * 1024;

/**
 * Writes `entries` as a HAR document readable by its owner only, hidden or not: traffic holds more
 * than the secrets apicert knows of (a value of no known shape a client sent in a body). A file that
 * was already there is made so before anything is written to it. `facts`, the profile's facts a
 * recording carries for `judge-traffic` (profile-facts.ts).
 */
export async function writeHarEntries(file: string, version: string, facts: ProfileFacts | undefined, entries: Iterable<Record<string, unknown>>): Promise<void> {
  const handle = await open(file, 'w', 0o600);
  try {
    await handle.chmod(0o600);
    // The same fields, in the same order, as harDocument (har.ts) gives them.
    const head = { version: '1.2', creator: { name: 'apicert', version }, ...(facts ? { [PROFILE_FACTS_FIELD]: facts } : {}) };
    let pending = `{"log":${JSON.stringify(head).slice(0, -1)},"entries":[`;
    let first = true;
    for (const entry of entries) {
      const json = JSON.stringify(entry);
      pending += first ? '\n' : ',\n';
      first = false;
      // A large entry (a body of a MiB) is written as it is: joined to the rest it would be copied once more.
      if (json.length >= FLUSH_AT) {
        await handle.write(pending);
        await handle.write(json);
        pending = '';
        continue;
      }
      pending += json;
      if (pending.length >= FLUSH_AT) {
        await handle.write(pending);
        pending = '';
      }
    }
    await handle.write(`${pending}\n]}}\n`);
  } finally {
    await handle.close();
  }
}
