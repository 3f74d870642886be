/** JSON with object keys sorted, so two bodies that differ only in key order or spacing compare equal. */
export function canonicalJson(value: unknown): string {
  const out: Canonical = { text: '' };
  writeCanonical(value, out);
  return out.text;
}

/**
 * `canonicalJson(value)` handed to `sink` in order, in pieces, for a value that holds the same
 * objects many times (a report's evidence entries, shown by many rules): each object of `reused`
 * is written once, and its text (the same string each time, `reused` true, with the object it is
 * the text of) handed wherever it recurs. An object's canonical text does not depend on where it stands.
 */
export function canonicalPieces(value: unknown, reused: ReadonlySet<object>, sink: (text: string, reused: boolean, of?: object) => void): void {
  const out: Canonical = { text: '', reused, written: new Map(), sink };
  writeCanonical(value, out);
  if (out.text.length > 0) sink(out.text, false);
}

interface Canonical {
  text: string;
  reused?: ReadonlySet<object>;
  written?: Map<object, string>;
  sink?: (text: string, reused: boolean, of?: object) => void;
}

/**
 * An object's keys in UTF-16 code unit order (the default sort's). Most objects written here
 * (evidence entries, headers) have a few keys: sorted in place by insertion, the default sort's
 * work arrays are not allocated for each of them.
 */
function sortedKeys(record: object): string[] {
  const keys = Object.keys(record);
  if (keys.length > 24) return keys.sort();
  for (let i = 1; i < keys.length; i += 1) {
    const key = keys[i]!;
    let at = i - 1;
    while (at >= 0 && keys[at]! > key) {
      keys[at + 1] = keys[at]!;
      at -= 1;
    }
    keys[at + 1] = key;
  }
  return keys;
}

/** JSON text of a key: the same few names (header names, fields) recur in every entry, so each is quoted once (bounded: a body's keys may be many). */
const quoted = new Map<string, string>();

function quotedKey(key: string): string {
  let text = quoted.get(key);
  if (text === undefined) {
    text = JSON.stringify(key);
    if (quoted.size < 4_096 && key.length <= 64) quoted.set(key, text);
  }
  return text;
}

// One string grown in place: a report digest canonicalises megabytes, and joining per level copied them again and again.
function writeCanonical(value: unknown, out: Canonical): void {
  if (out.reused !== undefined && typeof value === 'object' && value !== null && out.reused.has(value)) {
    let text = out.written!.get(value);
    if (text === undefined) {
      text = canonicalJson(value);
      out.written!.set(value, text);
    }
    if (out.text.length > 0) out.sink!(out.text, false);
    out.text = '';
    out.sink!(text, true, value);
    return;
  }
  if (Array.isArray(value)) {
    out.text += '[';
    for (let i = 0; i < value.length; i += 1) {
      if (i > 0) out.text += ',';
      writeCanonical(value[i], out);
    }
    out.text += ']';
    return;
  }
  if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const keys = sortedKeys(record);
    out.text += '{';
    let first = true;
    for (const key of keys) {
      const v = record[key];
      if (v === undefined) continue;
      out.text += first ? quotedKey(key) : `,${quotedKey(key)}`;
      out.text += ':';
      first = false;
      writeCanonical(v, out);
    }
    out.text += '}';
    return;
  }
  out.text += JSON.stringify(value) ?? 'null';
}

export type JsonParse = { ok: true; value: unknown } | { ok: false };

/** Deeper than any document the APIs define; the parser spends memory on every level (`[[[[…` from a target). */
export const MAX_JSON_DEPTH = 256;

/**
 * Where the string opened by the quote at `open` closes, or -1 when it never does. Bodies are mostly
 * long strings full of `\"`: one indexOf per quote, then the backslashes just before it: an odd run
 * escapes it, an even one (`\\"`) escapes only itself.
 */
function closingQuote(text: string, open: number): number {
  let from = open;
  for (;;) {
    const quote = text.indexOf('"', from + 1);
    if (quote === -1) return -1;
    let b = quote - 1;
    while (text.charCodeAt(b) === 92) b -= 1;
    if (((quote - 1 - b) & 1) === 0) return quote;
    from = quote;
  }
}

/** Whether brackets outside strings nest deeper than `max`: one pass, no allocation. */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      i = closingQuote(text, i);
      if (i === -1) return false;
    } else if (c === 91 || c === 123) {
      if (++depth > max) return true;
    } else if (c === 93 || c === 125) depth -= 1;
  }
  return false;
}

/**
 * The first member name that stands twice in one object of a JSON text, or undefined. JSON.parse
 * keeps the last of two; other readers keep the first (RFC 8259 4: "the behavior ... is
 * unpredictable"), so a signed document with one can be read two ways. One pass over a text
 * that parses.
 */
export function repeatedMember(text: string): string | undefined {
  // Per open container: the names seen (an object) or null (an array).
  const open: Array<Set<string> | null> = [];
  let nameNext = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      let end = i + 1;
      while (end < text.length && text.charCodeAt(end) !== 34) end += text.charCodeAt(end) === 92 ? 2 : 1;
      const names = open[open.length - 1];
      if (nameNext && names) {
        const name = JSON.parse(text.slice(i, end + 1)) as string;
        if (names.has(name)) return name;
        names.add(name);
        nameNext = false;
      }
      i = end;
    } else if (c === 123) {
      open.push(new Set());
      nameNext = true;
    } else if (c === 91) {
      open.push(null);
      nameNext = false;
    } else if (c === 125 || c === 93) {
      open.pop();
      nameNext = false;
    } else if (c === 44) nameNext = open[open.length - 1] !== null && open.length > 0;
  }
  return undefined;
}

/**
 * Whether a JSON text names a member twice in one of its objects, given `value`, its parse: the
 * parse keeps one of the two, so a deployment's reader may have seen another body or refused it
 * (RFC 8259 4: "the behavior of software that receives such an object is unpredictable"). A colon
 * outside strings stands only between a member's name and value, so the text writes as many
 * members as it has such colons, and the parse holds fewer exactly when a name stood twice: two
 * counts, without the cost of finding which name (`repeatedMember`), for every request a recording holds.
 */
export function namesMemberTwice(text: string, value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  return membersWritten(text) !== membersHeld(value);
}

/** The colons outside strings of a JSON text: its members, one pass skipping strings (`closingQuote`). */
function membersWritten(text: string): number {
  let members = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      i = closingQuote(text, i);
      if (i === -1) return members;
    } else if (c === 58) members += 1;
  }
  return members;
}

/** The members of every object in a parsed value: no recursion (the value may nest MAX_JSON_DEPTH deep). */
function membersHeld(value: object): number {
  let members = 0;
  const stack: object[] = [value];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i += 1) {
        const child: unknown = node[i];
        if (typeof child === 'object' && child !== null) stack.push(child);
      }
      continue;
    }
    // A parsed object's keys are all its own: for-in makes no array of them.
    for (const key in node) {
      members += 1;
      const child: unknown = (node as Record<string, unknown>)[key];
      if (typeof child === 'object' && child !== null) stack.push(child);
    }
  }
  return members;
}

/**
 * Whether no JSON parser conforming to RFC 8259, nor one taking a leave it gives, reads a text: it
 * fails to parse as it stands and without a leading byte order mark (8.1: parsers "MAY ignore the
 * presence of a byte order mark rather than treating it as an error"). A text nested past
 * MAX_JSON_DEPTH is not read here (`parseJson` says "not JSON" for it) but may be valid JSON: it is
 * not called unreadable.
 */
export function noParserReads(text: string): boolean {
  const bare = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  // JSON.parse would throw on both: the same end, and a BOM is no JSON whitespace.
  if (!mayEndJson(bare)) return true;
  if (nestsDeeperThan(bare, MAX_JSON_DEPTH)) return false;
  try {
    JSON.parse(bare);
    return false;
  } catch {
    return true;
  }
}

/**
 * The first number of a JSON text not spelled as apicert writes it (the shortest spelling that reads
 * back as the same number): `1e999` is Infinity to one reader and an error or a big number to
 * another, `3292.00000000000000000001` a float to one and an exact decimal to another, while the
 * signature covers the one reading JavaScript makes. Strings are skipped whole.
 */
export function oddNumber(text: string): string | undefined {
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      for (i += 1; i < text.length && text.charCodeAt(i) !== 34; i += text.charCodeAt(i) === 92 ? 2 : 1);
      continue;
    }
    if (c !== 45 && (c < 48 || c > 57)) continue;
    let end = i + 1;
    for (; end < text.length; end += 1) {
      const d = text.charCodeAt(end);
      if (!((d >= 48 && d <= 57) || d === 46 || d === 101 || d === 69 || d === 43 || d === 45)) break;
    }
    const token = text.slice(i, end);
    const n = Number(token);
    if (!Number.isFinite(n) || String(n) !== token) return token.length > 40 ? `${token.slice(0, 40)}…` : token;
    i = end - 1;
  }
  return undefined;
}

/** JSON's whitespace (RFC 8259 2; ECMAScript's JSON.parse reads the same four): tab, line feed, carriage return, space. */
function isJsonSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

/**
 * Whether the last character that is not whitespace could end a JSON text: `}`, `]`, `"`, a digit,
 * or the `e`/`l` of true, false, null. Where it cannot, JSON.parse would read the whole text only
 * to throw; a body a recorder cut to its first MiB (`{"x":"aaa…`) costs that read (some 2 ms) for
 * every exchange that holds one.
 */
function mayEndJson(text: string): boolean {
  let i = text.length - 1;
  while (i >= 0 && isJsonSpace(text.charCodeAt(i))) i -= 1;
  if (i < 0) return false;
  const c = text.charCodeAt(i);
  return c === 125 || c === 93 || c === 34 || (c >= 48 && c <= 57) || c === 101 || c === 108;
}

/** Parses JSON, telling "not JSON" (or nested deeper than any document of the APIs) apart from a JSON `null`. */
export function parseJson(text: string): JsonParse {
  // The same answer JSON.parse would give (it throws on such a text), without reading it all.
  if (!mayEndJson(text)) return { ok: false };
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/**
 * Parses a large JSON document (a HAR file) as `parseJson` does, checking its depth on the parsed
 * value instead of the text: V8's JSON.parse reads any depth without recursion, and a document's
 * containers are far fewer than the characters of its strings (a HAR's bodies), so this walk costs
 * a fraction of `nestsDeeperThan`'s scan (4-10 ms against 30-55 ms for a 19 MiB recording).
 */
export function parseJsonDocument(text: string): JsonParse {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    return { ok: false };
  }
  return containersDeeperThan(value, MAX_JSON_DEPTH) ? { ok: false } : { ok: true, value };
}

/** Whether arrays and objects nest deeper than `max` in a parsed value (the outermost is level 1, as `nestsDeeperThan` counts its bracket): no recursion. */
function containersDeeperThan(value: unknown, max: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const stack: object[] = [value];
  const depths: number[] = [1];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const depth = depths.pop()!;
    if (depth > max) return true;
    // Indexed and for-in walks, not Object.values: no array made per object (a HAR has some 100k).
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i += 1) {
        const child: unknown = node[i];
        if (typeof child === 'object' && child !== null) {
          stack.push(child);
          depths.push(depth + 1);
        }
      }
      continue;
    }
    for (const key in node) {
      const child: unknown = (node as Record<string, unknown>)[key];
      if (typeof child === 'object' && child !== null) {
        stack.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
