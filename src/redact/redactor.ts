/**
 * Evidence is redacted at the source (the probe client passes every exchange through one Redactor
 * before storing it) and again at every output boundary (report files, stdout, stderr), so no
 * report, log or curl line can carry a secret in any form a target may reflect it in.
 *
 * A secret is redacted wherever it stands whole, in any form; a fragment of it only where the
 * fragment really identifies it (`identifiesSecret`): a word that merely occurs inside a secret
 * built from words stays, and apicert's own text (rule ids, titles, quotes: `protect`) is never
 * rewritten. Every pass is linear in the text: 12-character seeds of the secrets are found by a
 * rolling hash and extended once per diagonal, secret shapes by hand-written scanners that never
 * revisit a character; no backtracking pattern ever sees target bytes.
 */
import { serviceKey } from '../rule/context.ts';
import { identifiesSecret, isWordLike, SECRET_RUN } from './fragments.ts';
import { secretForms } from './forms.ts';
import { isKeyChar, scanSecretShapes, type Span } from './shapes.ts';

export type { Span } from './shapes.ts';
export { SECRET_RUN } from './fragments.ts';

/** The label of `Mcp-Session-Id` values the probe learns from responses. */
export const TARGET_ISSUED_SESSION = 'mcp-session-id';

export const SECRET_HEADER_NAMES = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'mcp-session-id']);

/** Secrets shorter than this would redact ordinary text: they are redacted only as whole tokens. */
export const SHORT_SECRET = 8;

/** One 12-character seed of the secrets' forms, and every place it stands in them. */
interface Seed {
  text: string;
  places: Array<{ form: Form; offset: number }>;
}

interface Form {
  text: string;
  label: string;
  /** Per diagonal (input position minus form position, modulo the form's length): how far a run was already followed. */
  followed: Array<{ pass: number; diagonal: number; end: number } | undefined>;
}

interface Literal {
  text: string;
  label: string;
  wholeToken: boolean;
}

const BASE = 31;
const BASE_POW = (() => {
  let p = 1;
  for (let i = 1; i < SECRET_RUN; i += 1) p = Math.imul(p, BASE);
  return p >>> 0;
})();

function windowHash(text: string, start: number): number {
  let h = 0;
  for (let i = start; i < start + SECRET_RUN; i += 1) h = (Math.imul(h, BASE) + text.charCodeAt(i)) >>> 0;
  return h;
}


/** A response of the run that carried one of the run's own secrets: where, and which secret by label only. */
export interface SecretSighting {
  label: string;
  /** Method, redacted URL and status of the exchange. */
  where: string;
  path: string;
}

/** The run's sightings, for the rules that judge every exchange of the run (v8.redaction.run-secrets). */
export const SECRET_SIGHTINGS = serviceKey<readonly SecretSighting[]>('secret-sightings');

/** Distinct span texts whose places in apicert's own text are remembered; past this the memory starts over. */
const OWN_PLACES_KEPT = 4096;

export class Redactor {
  /** The 12-character seeds of every form of every secret of 12 characters or more, by rolling hash. */
  private readonly seeds = new Map<number, Seed[]>();
  private readonly forms: Form[] = [];
  /** Forms shorter than a seed (secrets of 8 to 11 characters), and secrets under 8 as whole tokens. */
  private readonly literals: Literal[] = [];
  /** Every registered secret, with its label. */
  private readonly known = new Map<string, string>();
  /** apicert's own text, never rewritten where it stands whole. */
  private readonly own = new Set<string>();
  private readonly ownPlaces = new Map<string, Array<readonly [string, number]>>();
  /** Counts the texts searched, so that what one search followed never stops the next. */
  private pass = 0;
  /** Said once per weak secret, without the value: the run prints them. */
  readonly warnings: string[] = [];
  /** Every response of the run that carried a registered secret, noted before redaction hid it. */
  readonly sightings: SecretSighting[] = [];

  /**
   * Notes which of the run's secrets appear verbatim in a response (its headers, body or events).
   * Session ids are the target's own: it issues them and may repeat them, so they are never a sighting.
   */
  noteResponse(method: string, path: string, status: number, parts: readonly string[]): void {
    for (const [secret, label] of this.known) {
      if (label === TARGET_ISSUED_SESSION) continue;
      if (parts.some((p) => p.includes(secret))) this.sightings.push({ label, path, where: `${method} ${this.text(path)} -> ${status}` });
    }
  }

  /** Registers a value that must never be printed; `label` names it in the redacted output. */
  add(value: string | undefined, label: string): void {
    if (!value || this.known.has(value)) return;
    this.known.set(value, label);
    if (value.length < SHORT_SECRET) {
      this.literals.push({ text: value, label, wholeToken: true });
      this.warnings.push(`the secret ${label} is only ${value.length} characters long: it is redacted only where it stands as a whole token; use secrets of ${SHORT_SECRET} characters or more`);
      return;
    }
    for (const text of secretForms(value)) {
      if (text.length < SECRET_RUN) {
        // A short secret made of words would otherwise redact those words wherever they occur.
        this.literals.push({ text, label, wholeToken: isWordLike(text) });
        continue;
      }
      const form: Form = { text, label, followed: new Array(text.length) };
      this.forms.push(form);
      for (let offset = 0; offset + SECRET_RUN <= text.length; offset += 1) {
        const seedText = text.slice(offset, offset + SECRET_RUN);
        const hash = windowHash(seedText, 0);
        const bucket = this.seeds.get(hash) ?? [];
        if (bucket.length === 0) this.seeds.set(hash, bucket);
        const seed = bucket.find((b) => b.text === seedText) ?? { text: seedText, places: [] };
        if (seed.places.length === 0) bucket.push(seed);
        seed.places.push({ form, offset });
      }
    }
  }

  /** apicert's own text (rule ids, titles, quotes, field names): where one stands whole in a text, nothing inside it is redacted. */
  protect(texts: Iterable<string>): void {
    for (const t of texts) if (t.length > 0) this.own.add(t);
    this.ownPlaces.clear();
  }

  /** Where the run's secrets and secret-shaped values sit in `input`, merged and in order. */
  spans(input: string): Span[] {
    const found: Span[] = [];
    this.findSeeds(input, found);
    for (const n of this.literals) this.findLiteral(input, n, found);
    const spans = this.own.size === 0 ? found : found.filter((s) => !this.insideOwnText(input, s));
    scanSecretShapes(input, spans);
    return merge(spans);
  }

  text(input: string): string {
    const spans = this.spans(input);
    if (spans.length === 0) return input;
    let out = '';
    let at = 0;
    for (const s of spans) {
      out += `${input.slice(at, s.start)}«redacted:${s.label}»`;
      at = s.end;
    }
    return out + input.slice(at);
  }

  headers(headers: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) {
      if (SECRET_HEADER_NAMES.has(name.toLowerCase())) {
        const scheme = /^(Bearer|Basic)\s/i.exec(value.slice(0, 7))?.[1];
        out[name] = scheme ? `${scheme} «redacted»` : '«redacted»';
      } else {
        out[name] = this.text(value);
      }
    }
    return out;
  }

  /**
   * Each seed found is followed both ways to the whole run the input shares with its form, once per
   * diagonal, and the run is redacted when it identifies the secret.
   */
  private findSeeds(input: string, spans: Span[]): void {
    if (this.seeds.size === 0 || input.length < SECRET_RUN) return;
    this.pass += 1;
    let h = windowHash(input, 0);
    for (let i = 0; ; i += 1) {
      const bucket = this.seeds.get(h);
      if (bucket) for (const seed of bucket) if (input.startsWith(seed.text, i)) for (const place of seed.places) this.follow(input, i, place.form, place.offset, spans);
      if (i + SECRET_RUN >= input.length) return;
      h = (Math.imul((h - Math.imul(input.charCodeAt(i), BASE_POW)) >>> 0, BASE) + input.charCodeAt(i + SECRET_RUN)) >>> 0;
    }
  }

  private follow(input: string, at: number, form: Form, offset: number, spans: Span[]): void {
    const length = form.text.length;
    const diagonal = at - offset;
    // Whatever this diagonal holds lies inside the last span found: nothing to add (keeps periodic input linear).
    const last = spans[spans.length - 1];
    if (last && last.start <= Math.max(0, diagonal) && last.end >= Math.min(input.length, diagonal + length)) return;
    const slot = ((diagonal % length) + length) % length;
    const done = form.followed[slot];
    if (done && done.pass === this.pass && done.diagonal === diagonal && done.end > at) return;
    let start = at;
    let from = offset;
    while (start > 0 && from > 0 && input.charCodeAt(start - 1) === form.text.charCodeAt(from - 1)) {
      start -= 1;
      from -= 1;
    }
    let end = at + SECRET_RUN;
    let to = offset + SECRET_RUN;
    while (end < input.length && to < length && input.charCodeAt(end) === form.text.charCodeAt(to)) {
      end += 1;
      to += 1;
    }
    form.followed[slot] = { pass: this.pass, diagonal, end };
    if (!identifiesSecret(form.text, from, to)) return;
    if (last && start >= last.start && start <= last.end) last.end = Math.max(last.end, end);
    else spans.push({ start, end, label: form.label });
  }

  private findLiteral(input: string, needle: Literal, spans: Span[]): void {
    const len = needle.text.length;
    for (let i = input.indexOf(needle.text); i !== -1; i = input.indexOf(needle.text, i + 1)) {
      if (needle.wholeToken && ((i > 0 && isKeyChar(input.charCodeAt(i - 1))) || (i + len < input.length && isKeyChar(input.charCodeAt(i + len))))) continue;
      spans.push({ start: i, end: i + len, label: needle.label });
    }
  }

  /** Whether the span lies inside a whole occurrence, in `input`, of one of apicert's own texts. */
  private insideOwnText(input: string, span: Span): boolean {
    const text = input.slice(span.start, span.end);
    let places = this.ownPlaces.get(text);
    if (!places) {
      places = [];
      for (const own of this.own) for (let j = own.indexOf(text); j !== -1; j = own.indexOf(text, j + 1)) places.push([own, j]);
      if (this.ownPlaces.size >= OWN_PLACES_KEPT) this.ownPlaces.clear();
      this.ownPlaces.set(text, places);
    }
    return places.some(([own, j]) => span.start >= j && input.startsWith(own, span.start - j));
  }
}

/** Sorts and joins overlapping or touching spans; the first span's label names the joined one. */
function merge(spans: Span[]): Span[] {
  if (spans.length < 2) return spans;
  spans.sort((a, b) => a.start - b.start || b.end - a.end);
  const out: Span[] = [{ ...spans[0]! }];
  for (let i = 1; i < spans.length; i += 1) {
    const s = spans[i]!;
    const last = out[out.length - 1]!;
    if (s.start <= last.end) last.end = Math.max(last.end, s.end);
    else out.push({ ...s });
  }
  return out;
}
