/**
 * Where the secrets a judgement knows stand in an answer: each answer read once for all of them
 * (linear whatever they look like), each secret named by label and place.
 */
import { VerbatimFinder, type VerbatimHit } from '../redact/verbatim.ts';
import type { Exchange } from '../rule/index.ts';

/** One secret an answer carried: which (by label) and where in the answer. */
export interface CarriedSecret {
  label: string;
  /** `header x-debug`, `body at character 1234`. */
  where: string;
}

/** Finds the judged secrets in answers, each answer read once whatever the number of secrets. */
export class SecretLocator {
  private readonly finder = new VerbatimFinder();
  private readonly issuedBy = new Map<string, number>();

  constructor(secrets: ReadonlyArray<{ value: string; label: string; issuedBy?: number; judged?: boolean }>, minLength: number) {
    for (const s of secrets) {
      // A value this short turns up in ordinary text by chance: it is hidden, but not judged as an echo.
      if (s.judged === false || s.value.length < minLength) continue;
      this.finder.add(s.value, s.label);
      if (s.issuedBy !== undefined) this.issuedBy.set(s.label, s.issuedBy);
    }
  }

  get size(): number {
    return this.finder.size;
  }

  private readonly seen = new WeakMap<Exchange, readonly CarriedSecret[]>();

  /** The secrets `ex`'s answer carried, other than in the answer that issued them; at most one place per secret and part. Each answer is read once. */
  carried(ex: Exchange): readonly CarriedSecret[] {
    const known = this.seen.get(ex);
    if (known) return known;
    let out: CarriedSecret[] | undefined;
    // `in` names each label once per text.
    const note = (hits: readonly VerbatimHit[], where: (at: number) => string) => {
      for (const hit of hits) if (this.issuedBy.get(hit.label) !== ex.index) (out ??= []).push({ label: hit.label, where: where(hit.at) });
    };
    for (const name in ex.responseHeaders) {
      const hits = this.finder.in(ex.responseHeaders[name]!);
      if (hits.length > 0) note(hits, () => `header ${name}`);
    }
    if (ex.responseBody !== undefined) {
      const hits = this.finder.in(ex.responseBody);
      if (hits.length > 0) note(hits, (at) => `body at character ${at}`);
    }
    const events = ex.events ?? [];
    for (let i = 0; i < events.length; i += 1) {
      const hits = this.finder.in(events[i]!.data);
      if (hits.length > 0) note(hits, (at) => `event #${i + 1} data at character ${at}`);
    }
    const found = out ?? NONE;
    this.seen.set(ex, found);
    return found;
  }
}

const NONE: readonly CarriedSecret[] = Object.freeze([]);

const locators = new WeakMap<readonly object[], SecretLocator>();

/** One locator per list of secrets (a recording's, a run's), shared by the rules that judge echoes on each surface. */
export function locatorFor(secrets: ReadonlyArray<{ value: string; label: string; issuedBy?: number; judged?: boolean }>, minLength: number): SecretLocator {
  let locator = locators.get(secrets);
  if (!locator) {
    locator = new SecretLocator(secrets, minLength);
    locators.set(secrets, locator);
  }
  return locator;
}
