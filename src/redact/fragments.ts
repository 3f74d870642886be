/**
 * When a run of a secret's characters, found inside other text, is that secret and not a
 * coincidence. A secret built from words (`oauth-alice-no-capabilities-read`) shares ordinary words
 * with the specs, rule ids and the target's own vocabulary; a random one (`k3J9xQpLm2Zt…`) shares
 * nothing by chance. So a fragment identifies its secret when it is the whole secret, or when it is
 * long and random-looking, or when it is made of words, holds at least two whole words of it and
 * covers at least half of the secret: one word alone, however long, is vocabulary.
 */

/** The shortest fragment of a secret that can identify it. */
export const SECRET_RUN = 12;

/** Characters that join the words of a word-built secret. */
function isJoiner(code: number): boolean {
  return code === 45 || code === 95 || code === 46 || code === 58 || code === 47 || code === 32; // - _ . : / space
}

function isUpper(code: number): boolean {
  return code >= 65 && code <= 90;
}

function isLower(code: number): boolean {
  return code >= 97 && code <= 122;
}

function isLetter(code: number): boolean {
  return isUpper(code) || isLower(code);
}

/**
 * Words in ordinary casing (lower, UPPER or Capitalized) joined by `-_.:/` or spaces, with no digit:
 * text that can occur by chance in a description, a rule id or a target's answer.
 */
export function isWordLike(text: string): boolean {
  let wordStart = -1;
  for (let i = 0; i <= text.length; i += 1) {
    const code = i < text.length ? text.charCodeAt(i) : 32;
    if (isLetter(code)) {
      if (wordStart === -1) wordStart = i;
      continue;
    }
    if (!isJoiner(code)) return false;
    if (wordStart !== -1 && !ordinaryCasing(text, wordStart, i)) return false;
    wordStart = -1;
  }
  return true;
}

function ordinaryCasing(text: string, start: number, end: number): boolean {
  let upper = 0;
  for (let i = start; i < end; i += 1) if (isUpper(text.charCodeAt(i))) upper += 1;
  const length = end - start;
  return upper === 0 || upper === length || (upper === 1 && isUpper(text.charCodeAt(start)));
}

/**
 * How many whole words of `form` lie inside `form[from, to)`: a word cut by the run's edge is not
 * one (`.capabilities.s` of `oauth.capabilities.skills` holds one whole word, not two).
 */
function wholeWords(form: string, from: number, to: number): number {
  let words = 0;
  let start = -1;
  for (let i = from; i <= to; i += 1) {
    const letter = i < to && isLetter(form.charCodeAt(i));
    if (letter && start === -1) start = i;
    if (!letter && start !== -1) {
      const wholeStart = start > from || from === 0 || !isLetter(form.charCodeAt(from - 1));
      const wholeEnd = i < to || to === form.length || !isLetter(form.charCodeAt(to));
      if (wholeStart && wholeEnd) words += 1;
      start = -1;
    }
  }
  return words;
}

/** Whether `form[from, to)`, a stretch found in other text, identifies the secret form it is part of. */
export function identifiesSecret(form: string, from: number, to: number): boolean {
  const length = to - from;
  if (length >= form.length) return true;
  if (length < SECRET_RUN) return false;
  if (!isWordLike(form.slice(from, to))) return true;
  return length * 2 >= form.length && wholeWords(form, from, to) >= 2;
}

/** A table not made yet (FormProfile, SpelledProfile). */
const NO_TABLE = new Int32Array(0);

/**
 * `identifiesSecret` in constant time per question: prefix counts of the form's upper-case letters,
 * of its characters that are neither letters nor joiners, and of its words, computed once, at the
 * first question. The redactor asks once per maximal run it finds, so a run's cost must not
 * depend on the run's length (a body of 4 MiB can hold a million runs of a 4,096-character secret).
 */
export class FormProfile {
  readonly text: string;
  /*
   * The tables are made at the first question, not at registration: a recording's judge registers
   * every session id the target issued and every credential in all their forms (1-3% of judging a
   * 3,687-exchange recording went to these tables), and most forms are never asked about (a session
   * id is redacted only where it stands whole, which needs no table).
   */
  private built = false;
  // Empty until built, never undefined: each field keeps one type, so V8 keeps one shape for every profile, built or not.
  private upper = NO_TABLE;
  private bad = NO_TABLE;
  /** Word index of each letter, -1 elsewhere. */
  private wordAt = NO_TABLE;
  private readonly wordStart: number[] = [];
  private readonly wordEnd: number[] = [];
  /** Words that start before each position, and words that end by it. */
  private startsBefore = NO_TABLE;
  private endsBy = NO_TABLE;
  /** Words among the first k whose casing is not ordinary. */
  private readonly oddBefore: number[] = [0];

  constructor(text: string) {
    this.text = text;
  }

  private build(): void {
    this.built = true;
    const text = this.text;
    const n = text.length;
    this.upper = new Int32Array(n + 1);
    this.bad = new Int32Array(n + 1);
    this.wordAt = new Int32Array(n).fill(-1);
    this.startsBefore = new Int32Array(n + 1);
    this.endsBy = new Int32Array(n + 1);
    let start = -1;
    for (let i = 0; i <= n; i += 1) {
      const code = i < n ? text.charCodeAt(i) : 32;
      if (i < n) {
        this.upper[i + 1] = this.upper[i]! + (isUpper(code) ? 1 : 0);
        this.bad[i + 1] = this.bad[i]! + (isLetter(code) || isJoiner(code) ? 0 : 1);
      }
      if (isLetter(code) && i < n) {
        if (start === -1) start = i;
        this.wordAt[i] = this.wordStart.length;
      } else if (start !== -1) {
        this.wordStart.push(start);
        this.wordEnd.push(i);
        this.oddBefore.push(this.oddBefore[this.oddBefore.length - 1]! + (this.ordinary(start, i) ? 0 : 1));
        start = -1;
      }
    }
    let w = 0;
    let e = 0;
    for (let i = 0; i <= n; i += 1) {
      while (w < this.wordStart.length && this.wordStart[w]! < i) w += 1;
      while (e < this.wordEnd.length && this.wordEnd[e]! <= i) e += 1;
      this.startsBefore[i] = w;
      this.endsBy[i] = e;
    }
  }

  private ordinary(start: number, end: number): boolean {
    const upper = this.upper[end]! - this.upper[start]!;
    return upper === 0 || upper === end - start || (upper === 1 && isUpper(this.text.charCodeAt(start)));
  }

  /** `isWordLike(text.slice(from, to))`. */
  wordLike(from: number, to: number): boolean {
    if (!this.built) this.build();
    if (this.bad[to]! - this.bad[from]! > 0) return false;
    const first = from < to ? this.wordAt[from]! : -1;
    const last = from < to ? this.wordAt[to - 1]! : -1;
    if (first !== -1 && first === last) return this.ordinary(from, to);
    if (first !== -1 && !this.ordinary(from, this.wordEnd[first]!)) return false;
    if (last !== -1 && !this.ordinary(this.wordStart[last]!, to)) return false;
    const a = first !== -1 ? first + 1 : this.startsBefore[from]!;
    const b = last !== -1 ? last : this.startsBefore[to]!;
    return b <= a || this.oddBefore[b]! - this.oddBefore[a]! === 0;
  }

  /** `identifiesSecret(text, from, to)`. */
  identifies(from: number, to: number): boolean {
    const length = to - from;
    if (length >= this.text.length) return true;
    if (length < SECRET_RUN) return false;
    // wordLike builds the tables endsBy and startsBefore are read from.
    if (!this.wordLike(from, to)) return true;
    return length * 2 >= this.text.length && this.endsBy[to]! - this.startsBefore[from]! >= 2;
  }
}

/** What the automaton asks of a form: its text, and whether a stretch of it identifies the secret. */
export interface StretchJudge {
  readonly text: string;
  identifies(from: number, to: number): boolean;
}

/**
 * A form that spells each character of the secret with several (hex, `%XX`, `&#NN;`, `\uXXXX`):
 * a stretch of it identifies the secret exactly when the characters of the secret it spells whole
 * would, found as they are. Twelve hex digits spell six characters of the secret, so they are
 * judged as six characters are, never as twelve: a word of a word-built secret stays a word
 * however it is spelled. Constant time per question, from two tables made once.
 */
export class SpelledProfile implements StretchJudge {
  readonly text: string;
  private readonly secret: FormProfile;
  /** The tables below are made at the first question, as FormProfile's are (most spellings are never asked about). */
  private readonly spelling: { secretEnds: readonly number[]; formEnds: readonly number[] };
  private built = false;
  /** Per position of the form: where in the secret the first character whose spelling starts at or after it begins. */
  private startFrom = NO_TABLE;
  /** Per position of the form: where in the secret the last character whose spelling ends at or before it ends. */
  private endBy = NO_TABLE;

  /** `secret` may be the profile of the secret itself, shared by its several spellings. */
  constructor(text: string, secret: string | FormProfile, spelling: { secretEnds: readonly number[]; formEnds: readonly number[] }) {
    this.text = text;
    this.secret = typeof secret === 'string' ? new FormProfile(secret) : secret;
    this.spelling = spelling;
  }

  private build(): void {
    this.built = true;
    const n = this.text.length;
    this.startFrom = new Int32Array(n + 1);
    this.endBy = new Int32Array(n + 1);
    const { secretEnds, formEnds } = this.spelling;
    // Spelling k covers [formEnds[k-1], formEnds[k]) of the form and [secretEnds[k-1], secretEnds[k]) of the secret.
    const starts = (ends: readonly number[], k: number) => (k === 0 ? 0 : ends[k - 1]!);
    let k = 0;
    for (let i = 0; i <= n; i += 1) {
      while (k < formEnds.length && starts(formEnds, k) < i) k += 1;
      this.startFrom[i] = k < formEnds.length ? starts(secretEnds, k) : this.secret.text.length;
    }
    let e = 0;
    for (let i = 0; i <= n; i += 1) {
      while (e < formEnds.length && formEnds[e]! <= i) e += 1;
      this.endBy[i] = e === 0 ? 0 : secretEnds[e - 1]!;
    }
  }

  identifies(from: number, to: number): boolean {
    if (to - from >= this.text.length) return true;
    if (!this.built) this.build();
    const a = this.startFrom[from]!;
    const b = this.endBy[to]!;
    return b > a && this.secret.identifies(a, b);
  }
}
