/**
 * Evidence is redacted at the source (the probe client passes every exchange through one Redactor
 * before storing it) and again at every output boundary (report files, stdout, stderr), so no
 * report, log or curl line can carry a secret in any form a target may reflect it in.
 *
 * Every pass is linear in the text: the run's secrets are found by a rolling hash over 12-character
 * windows and by literal search, and secret shapes by hand-written scanners that never revisit a
 * character; no backtracking pattern ever sees target bytes.
 */
import { serviceKey } from '../rule/context.ts';
import { scanSecretShapes, type Span } from './shapes.ts';

export type { Span } from './shapes.ts';
import { secretForms } from './forms.ts';

/** The label of `Mcp-Session-Id` values the probe learns from responses. */
export const TARGET_ISSUED_SESSION = 'mcp-session-id';

export const SECRET_HEADER_NAMES = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'mcp-session-id']);

/** Any run of this many consecutive characters of a secret (in any of its forms) is redacted. */
export const SECRET_RUN = 12;
/** Secrets shorter than this would redact ordinary text: they are redacted only as whole tokens. */
export const SHORT_SECRET = 8;

interface Needle {
  text: string;
  label: string;
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

function isTokenChar(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 45;
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

export class Redactor {
  /** Every 12-character window of every form of every long secret, by rolling hash. */
  private readonly windows = new Map<number, Needle[]>();
  /** Forms shorter than a window (secrets of 8 to 11 characters): found by literal search. */
  private readonly literals: Needle[] = [];
  /** Secrets under 8 characters: redacted only where they stand as a whole token. */
  private readonly wholeTokens: Needle[] = [];
  /** Every registered secret, with its label. */
  private readonly known = new Map<string, string>();
  /** Said once per short secret, without the value: the run prints them. */
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
      this.wholeTokens.push({ text: value, label });
      this.warnings.push(`the secret ${label} is only ${value.length} characters long: it is redacted only where it stands as a whole token; use secrets of ${SHORT_SECRET} characters or more`);
      return;
    }
    for (const form of secretForms(value)) {
      if (form.length < SECRET_RUN) {
        this.literals.push({ text: form, label });
        continue;
      }
      for (let i = 0; i + SECRET_RUN <= form.length; i += 1) {
        const text = form.slice(i, i + SECRET_RUN);
        const hash = windowHash(text, 0);
        const bucket = this.windows.get(hash);
        if (!bucket) this.windows.set(hash, [{ text, label }]);
        else if (!bucket.some((n) => n.text === text)) bucket.push({ text, label });
      }
    }
  }

  /** Where the run's secrets and secret-shaped values sit in `input`, merged and in order. */
  spans(input: string): Span[] {
    const spans: Span[] = [];
    this.findWindows(input, spans);
    for (const n of this.literals) this.findLiteral(input, n, spans, false);
    for (const n of this.wholeTokens) this.findLiteral(input, n, spans, true);
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

  private findWindows(input: string, spans: Span[]): void {
    if (this.windows.size === 0 || input.length < SECRET_RUN) return;
    let h = windowHash(input, 0);
    for (let i = 0; ; i += 1) {
      const bucket = this.windows.get(h);
      if (bucket) {
        const hit = bucket.find((n) => input.startsWith(n.text, i));
        if (hit) spans.push({ start: i, end: i + SECRET_RUN, label: hit.label });
      }
      if (i + SECRET_RUN >= input.length) return;
      h = (Math.imul((h - Math.imul(input.charCodeAt(i), BASE_POW)) >>> 0, BASE) + input.charCodeAt(i + SECRET_RUN)) >>> 0;
    }
  }

  private findLiteral(input: string, needle: Needle, spans: Span[], wholeToken: boolean): void {
    const len = needle.text.length;
    for (let i = input.indexOf(needle.text); i !== -1; i = input.indexOf(needle.text, i + 1)) {
      if (wholeToken && ((i > 0 && isTokenChar(input.charCodeAt(i - 1))) || (i + len < input.length && isTokenChar(input.charCodeAt(i + len))))) continue;
      spans.push({ start: i, end: i + len, label: needle.label });
    }
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
