/**
 * Evidence is redacted at the source (the probe client passes every exchange through one Redactor
 * before storing it) and again at every output boundary (report files, stdout, stderr), so no
 * report, log or curl line can carry a secret in any form a target may reflect it in.
 *
 * A secret is redacted wherever it stands whole, in any form; a fragment of it only where the
 * fragment really identifies it (`identifiesSecret`): a word that merely occurs inside a secret
 * built from words stays, and apicert's own text (rule ids, titles, quotes: `protect`) is never
 * rewritten. Every pass is linear in the text whatever the secrets look like (repetitive, very
 * long, many): the secrets' forms are one suffix automaton the text is read through once
 * (form-automaton.ts), secret shapes are found by hand-written scanners that never revisit a
 * character; no backtracking pattern ever sees target bytes.
 *
 * Two readings. `text` is for the target's text where it enters (evidence, a reason quoting a
 * body): every secret goes, a short one or one made of words included wherever it stands whole.
 * `outputText` is for a finished output (a rendered report, a console line), which is apicert's own
 * words around target text already read by `text`: it still hides every secret that cannot be a
 * word of apicert's (a form of 8 characters or more that is not made of words, a secret shape), but
 * never rewrites a word, so a token `pass`, `error` or `required` leaves the verdicts, the gate line,
 * the field names and the fixed sentences as written. Neither reading rewrites a marker apicert
 * wrote (`«redacted:token:full»`): its label names a secret, never holds one.
 */
import { serviceKey } from '../rule/context.ts';
import { FormProfile, isWordLike, SECRET_RUN, SpelledProfile } from './fragments.ts';
import { FormAutomaton, type Stretch } from './form-automaton.ts';
import { secretForms } from './forms.ts';
import { VerbatimFinder, type VerbatimHit } from './verbatim.ts';
import { isKeyChar, PRIVATE_KEY_START, scanSecretShapes, SHAPE_LABELS, type Span } from './shapes.ts';

export type { Span } from './shapes.ts';
export { SECRET_RUN } from './fragments.ts';

/** The label of `Mcp-Session-Id` values the probe learns from responses. */
export const TARGET_ISSUED_SESSION = 'mcp-session-id';

export const SECRET_HEADER_NAMES = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'mcp-session-id']);

/** Secrets shorter than this would redact ordinary text: they are redacted only as whole tokens. */
export const SHORT_SECRET = 8;

interface Literal {
  text: string;
  label: string;
  wholeToken: boolean;
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

/** What a text's search for secrets found, before own text is set aside and spans are merged; positions in that text. */
interface Finds {
  /** Stretches of the secrets' forms, then short secrets, in the order found. */
  found: Span[];
  /** Secret-shaped values (shapes.ts). */
  shapes: Span[];
}

/** Texts longer than this are not remembered (evidence parts are cut at 4 KiB; a curl line adds its headers). */
const REMEMBERED_TEXT = 64 * 1024;
/** Characters of remembered texts; past this the memory starts over. */
const REMEMBERED_CHARS = 4 * 1024 * 1024;
const QUOTE = 39;

/** Distinct span texts whose places in apicert's own text are remembered; past this the memory starts over. */
const OWN_PLACES_KEPT = 4096;

export class Redactor {
  /** Every form of every secret of 12 characters or more. */
  private readonly automaton = new FormAutomaton();
  /**
   * Every form of the ids the target issued (session ids), redacted only where one stands whole:
   * an id is the target's handle, not a credential, and may be made of words a reason is made of
   * too ("not a session id!"), so a fragment of one is never followed into other text.
   */
  private readonly wholeOnly = new FormAutomaton();
  /** Every form of the values `add` was given `whole` (refused credentials), redacted only where one stands as a whole token. */
  private readonly wholeTokens = new FormAutomaton();
  /** The secrets as sent (session ids aside), for sightings. */
  private readonly verbatim = new VerbatimFinder();
  /** Forms shorter than a seed (secrets of 8 to 11 characters), and secrets under 8 as whole tokens. */
  private readonly literals: Literal[] = [];
  /** Every registered secret, with its label. */
  private readonly known = new Map<string, string>();
  /** The registered values hidden only where they stand whole (`add`'s `whole`), until registered without it. */
  private readonly wholeValues = new Set<string>();
  /** The labels of the registered secrets: what a marker apicert wrote may name. */
  private readonly labels = new Set<string>();
  /** How far past its start a marker apicert wrote can end: its longest label, a `part-of-` and a number. */
  private markerReach = MARKER_START.length + 64;
  private changes = 0;
  /** apicert's own text, never rewritten where it stands whole. */
  private readonly own = new Set<string>();
  private readonly ownPlaces = new Map<string, Array<readonly [string, number]>>();
  /** `finds` of the texts read at `memoryGeneration`, for `evidenceText` and `curlText`. */
  private readonly memory = new Map<string, Finds | null>();
  private memoryGeneration = -1;
  private memoryChars = 0;
  private quoteEnds: boolean | undefined;
  /** Said once per weak secret, without the value: the run prints them. */
  readonly warnings: string[] = [];
  /** Every response of the run that carried a registered secret, noted before redaction hid it. */
  readonly sightings: SecretSighting[] = [];

  /**
   * Notes which of the run's secrets appear verbatim in a response (its headers, body or events).
   * Session ids are the target's own: it issues them and may repeat them, so they are never a sighting.
   */
  noteResponse(method: string, path: string, status: number, parts: readonly string[]): void {
    const labels = new Set<string>();
    for (const part of parts) for (const hit of this.secretsIn(part)) labels.add(hit.label);
    for (const label of labels) this.sightings.push({ label, path, where: `${method} ${this.text(path)} -> ${status}` });
  }

  /**
   * Which of the run's secrets (other than target-issued session ids) stand verbatim in `input`, each
   * once by label and the character offset of its first place: one linear read, however many secrets there are.
   */
  secretsIn(input: string): readonly VerbatimHit[] {
    return this.verbatim.in(input);
  }

  /** Changes whenever a secret or own text is added: a text redacted at one generation stays redacted the same while it holds. */
  get generation(): number {
    return this.changes;
  }

  /**
   * Registers a value that must never be printed; `label` names it in the redacted output. `whole`:
   * hidden only where one of its forms stands as a whole token, never followed in fragments nor
   * found inside a longer run of key characters, for a value that is
   * no secret anyone holds (a credential the deployment refused everywhere: a probe's 4,096 `a`s,
   * whose fragments would hide every run of `a` in a report); registered again without it, it is
   * then followed in fragments as any secret.
   */
  add(value: string | undefined, label: string, options: { whole?: boolean } = {}): void {
    if (!value) return;
    const wasWhole = this.wholeValues.has(value);
    if (this.known.has(value) && !(wasWhole && !options.whole)) return;
    if (wasWhole) {
      this.wholeValues.delete(value);
      // Under SHORT_SECRET a value is hidden as a whole token either way.
      if (value.length < SHORT_SECRET) return;
      this.changes += 1;
      this.addForms(value, this.known.get(value)!, false);
      return;
    }
    this.known.set(value, label);
    this.labels.add(label);
    this.markerReach = Math.max(this.markerReach, MARKER_START.length + label.length + 64);
    this.changes += 1;
    if (label !== TARGET_ISSUED_SESSION) this.verbatim.add(value, label);
    if (options.whole) this.wholeValues.add(value);
    this.addForms(value, label, options.whole === true);
  }

  private addForms(value: string, label: string, whole: boolean): void {
    if (value.length < SHORT_SECRET) {
      this.literals.push({ text: value, label, wholeToken: true });
      this.warnings.push(`the secret ${label} is only ${value.length} characters long: it is redacted only where it stands as a whole token in what the target sent, never in apicert's own words; use secrets of ${SHORT_SECRET} characters or more`);
      return;
    }
    let secretProfile: FormProfile | undefined;
    for (const { text, spelling } of secretForms(value, label !== TARGET_ISSUED_SESSION)) {
      const profile = spelling ? new SpelledProfile(text, (secretProfile ??= new FormProfile(value)), spelling) : new FormProfile(text);
      if (label === TARGET_ISSUED_SESSION && text.length >= SECRET_RUN) {
        this.wholeOnly.add(text, label, profile);
        continue;
      }
      if (whole && text.length >= SECRET_RUN) {
        this.wholeTokens.add(text, label, profile);
        continue;
      }
      if (text.length < SECRET_RUN) {
        // A short secret made of words would otherwise redact those words wherever they occur.
        this.literals.push({ text, label, wholeToken: whole || isWordLike(text) });
        continue;
      }
      this.automaton.add(text, label, profile);
    }
  }

  /** apicert's own text (rule ids, titles, quotes, field names): where one stands whole in a text, nothing inside it is redacted. */
  protect(texts: Iterable<string>): void {
    this.changes += 1;
    for (const t of texts) if (t.length > 0) this.own.add(t);
    this.ownPlaces.clear();
  }

  /** Where the run's secrets and secret-shaped values sit in `input`, merged and in order. */
  spans(input: string): Span[] {
    const spans: Span[] = [];
    const finds = this.finds(input);
    if (finds) this.settle(input, finds, 0, spans);
    return spans;
  }

  text(input: string): string {
    return replaced(input, this.spans(input));
  }

  /**
   * A finished output (a rendered report, a console line): apicert's own words around target text
   * that `text` has already read where it entered. Hides every secret `text` would, except where
   * what stands is a short secret or made of words: those could be apicert's own words (`pass`,
   * `error`, `v8`), and only the target's text, read where it enters, can tell.
   */
  outputText(input: string): string {
    const finds = this.finds(input);
    if (!finds) return input;
    const spans: Span[] = [];
    this.settle(input, finds, 0, spans, true);
    return replaced(input, spans);
  }

  /**
   * `text(input)` for a part of evidence (a URL, a header value, a body cut to evidence length, an
   * error): what the secrets' search found in it is remembered while the generation holds, since
   * the same values recur across exchanges. Only for text the evidence keeps anyway: the memory
   * holds on to it.
   */
  evidenceText(input: string): string {
    const finds = this.remembered(input);
    if (!finds) return input;
    const spans: Span[] = [];
    this.settle(input, finds, 0, spans);
    return replaced(input, spans);
  }

  /**
   * `text(curl)` for a curl line (`curlLine`): it repeats the request's URL, headers and body,
   * each between single quotes, so each quoted word is looked up as `evidenceText` read it. That
   * gives what reading the whole line gives when nothing found can cross a quote: no form of a
   * secret and no short secret holds one (a stretch never runs over a character no form has, and
   * the automaton starts afresh after it), and no private key header is in the line (the only
   * secret shape that runs on over other characters). Own text is still looked for in the whole line.
   */
  curlText(curl: string): string {
    if (!this.quoteEndsFinds() || curl.includes(PRIVATE_KEY_START)) return replaced(curl, this.spans(curl));
    const spans: Span[] = [];
    const markers = this.markersOf(curl);
    for (let at = 0; ; ) {
      const quote = curl.indexOf("'", at);
      const end = quote === -1 ? curl.length : quote;
      const finds = this.remembered(at === 0 && end === curl.length ? curl : curl.slice(at, end));
      if (finds) this.settle(curl, finds, at, spans, false, markers);
      if (quote === -1) break;
      at = quote + 1;
    }
    return replaced(curl, spans);
  }

  headers(headers: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) {
      if (SECRET_HEADER_NAMES.has(name.toLowerCase())) {
        const scheme = /^(Bearer|Basic)\s/i.exec(value.slice(0, 7))?.[1];
        out[name] = scheme ? `${scheme} «redacted»` : '«redacted»';
      } else {
        out[name] = this.evidenceText(value);
      }
    }
    return out;
  }

  /** What the secrets' search finds in `input`, before own text is set aside: null when nothing. */
  private finds(input: string): Finds | null {
    const found: Span[] = [];
    this.findForms(input, found);
    if (this.wholeOnly.size > 0) this.wholeOnly.scan(input, (s) => void (s.whole && found.push({ start: s.start, end: s.end, label: s.form.label })));
    if (this.wholeTokens.size > 0) this.wholeTokens.scan(input, (s) => void (s.whole && standsAlone(input, s.start, s.end) && found.push({ start: s.start, end: s.end, label: s.form.label })));
    for (const n of this.literals) this.findLiteral(input, n, found);
    const shapes: Span[] = [];
    scanSecretShapes(input, shapes);
    return found.length === 0 && shapes.length === 0 ? null : { found, shapes };
  }

  /**
   * The spans of `finds`, found in the part of `input` that starts at `offset`, as spans of
   * `input`: those inside apicert's own text (looked for in the whole input) set aside, the rest
   * merged, appended to `into`.
   */
  private settle(input: string, finds: Finds, offset: number, into: Span[], output = false, markers = this.markersOf(input)): void {
    const spans: Span[] = [];
    for (const s of finds.found) {
      const span = offset === 0 ? s : { start: s.start + offset, end: s.end + offset, label: s.label };
      if (output && (span.end - span.start < SHORT_SECRET || isWordLike(input.slice(span.start, span.end)))) continue;
      if (markers && insideSome(markers, span)) continue;
      if (this.own.size === 0 || !this.insideOwnText(input, span)) spans.push(span);
    }
    for (const s of finds.shapes) spans.push(offset === 0 ? s : { start: s.start + offset, end: s.end + offset, label: s.label });
    for (const s of merge(spans)) into.push(s);
  }

  /** `finds(input)`, remembered per text while no secret is added (what it finds depends on the secrets alone). */
  private remembered(input: string): Finds | null {
    if (input.length > REMEMBERED_TEXT) return this.finds(input);
    this.forgetIfChanged();
    let finds = this.memory.get(input);
    if (finds === undefined) {
      finds = this.finds(input);
      if (this.memoryChars + input.length > REMEMBERED_CHARS) {
        this.memory.clear();
        this.memoryChars = 0;
      }
      this.memory.set(input, finds);
      this.memoryChars += input.length;
    }
    return finds;
  }

  private forgetIfChanged(): void {
    if (this.memoryGeneration === this.changes) return;
    this.memory.clear();
    this.memoryChars = 0;
    this.memoryGeneration = this.changes;
    this.quoteEnds = undefined;
  }

  /** Whether no form of a secret (nor any short secret) holds a single quote; see `curlText`. */
  private quoteEndsFinds(): boolean {
    this.forgetIfChanged();
    return (this.quoteEnds ??= !this.automaton.holds(QUOTE) && !this.wholeOnly.holds(QUOTE) && !this.wholeTokens.holds(QUOTE) && this.literals.every((l) => !l.text.includes("'")));
  }

  /** Each stretch of a secret's form the text holds, redacted when it identifies the secret. */
  private findForms(input: string, spans: Span[]): void {
    this.automaton.scan(input, (stretch: Stretch) => {
      const last = spans[spans.length - 1];
      // Inside what is already redacted: nothing to decide (keeps periodic input cheap as well as linear).
      if (last && last.start <= stretch.start && last.end >= stretch.end) return;
      const length = stretch.end - stretch.start;
      if (!stretch.whole && !stretch.form.profile.identifies(stretch.formEnd - length, stretch.formEnd)) return;
      if (last && stretch.start <= last.end && stretch.end >= last.start) {
        last.start = Math.min(last.start, stretch.start);
        last.end = Math.max(last.end, stretch.end);
      } else spans.push({ start: stretch.start, end: stretch.end, label: stretch.form.label });
    });
  }

  private findLiteral(input: string, needle: Literal, spans: Span[]): void {
    const len = needle.text.length;
    for (let i = input.indexOf(needle.text); i !== -1; i = input.indexOf(needle.text, i + 1)) {
      if (needle.wholeToken && ((i > 0 && isKeyChar(input.charCodeAt(i - 1))) || (i + len < input.length && isKeyChar(input.charCodeAt(i + len))))) continue;
      spans.push({ start: i, end: i + len, label: needle.label });
    }
  }

  /**
   * The markers apicert wrote in `input`: `«redacted»`, or `«redacted:<label>»` whose label is one of
   * the run's (or a secret shape's), as the recorder numbers them (`#2`) or marks a part (`part-of-`).
   * Any other text that looks like one is the target's and is read as such: a target cannot hide a
   * secret from redaction by wrapping it in `«redacted:…»`. Each marker's end is looked for within
   * `markerReach` of its start only, so the read stays linear however many starts the text holds.
   * In order, none overlapping (a label holds no `«`).
   */
  private markersOf(input: string): Span[] | undefined {
    if (!input.includes(MARKER_START)) return undefined;
    const out: Span[] = [];
    for (let at = input.indexOf(MARKER_START); at !== -1; at = input.indexOf(MARKER_START, at + 1)) {
      const from = at + MARKER_START.length;
      const inner = input.slice(from, Math.min(input.length, at + this.markerReach));
      const end = inner.indexOf(MARKER_END);
      if (end === -1) continue;
      const label = inner.slice(0, end);
      if (label === '' || (label.startsWith(':') && this.isLabel(label.slice(1)))) out.push({ start: at, end: from + end + 1, label: '' });
    }
    return out;
  }

  private isLabel(label: string): boolean {
    const base = label.replace(/^part-of-/, '').replace(/#\d+$/, '');
    return this.labels.has(base) || SHAPE_LABELS.has(base) || base === TARGET_ISSUED_SESSION;
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

/** How every marker begins (`«redacted:token:full»`, a recorder's bare `«redacted»`): a value that does stands in for what was sent. */
export const MARKER_START = '«redacted';

/** Whether `input[start, end)` is a whole token: no key character touches it on either side. */
function standsAlone(input: string, start: number, end: number): boolean {
  return (start === 0 || !isKeyChar(input.charCodeAt(start - 1))) && (end >= input.length || !isKeyChar(input.charCodeAt(end)));
}
const MARKER_END = '»';

/** What stands in a text where a secret with this label was hidden (`«redacted:token:full»`). */
export function marker(label: string): string {
  return `${MARKER_START}:${label}»`;
}

/** `input` with each span replaced by its label's marker. */
function replaced(input: string, spans: readonly Span[]): string {
  if (spans.length === 0) return input;
  let out = '';
  let at = 0;
  for (const s of spans) {
    out += `${input.slice(at, s.start)}${marker(s.label)}`;
    at = s.end;
  }
  return out + input.slice(at);
}

/** Whether `span` lies inside one of `markers` (in order, none overlapping): a binary search. */
function insideSome(markers: readonly Span[], span: Span): boolean {
  let lo = 0;
  let hi = markers.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const m = markers[mid]!;
    if (m.end <= span.start) lo = mid + 1;
    else if (m.start > span.start) hi = mid - 1;
    else return span.end <= m.end;
  }
  return false;
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
