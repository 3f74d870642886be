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
