/**
 * When a run of a secret's characters, found inside other text, is that secret and not a
 * coincidence. A secret built from words (`oauth-alice-no-capabilities-read`) shares ordinary words
 * with the specs, rule ids and the target's own vocabulary; a random one (`k3J9xQpLm2Zt…`) shares
 * nothing by chance. So a fragment identifies its secret when it is the whole secret, or when it is
 * long and random-looking, or when it is made of words, joins at least two of them and covers at
 * least half of the secret: one word alone, however long, is vocabulary.
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

/**
 * Words in ordinary casing (lower, UPPER or Capitalized) joined by `-_.:/` or spaces, with no digit:
 * text that can occur by chance in a description, a rule id or a target's answer.
 */
export function isWordLike(text: string): boolean {
  let wordStart = -1;
  for (let i = 0; i <= text.length; i += 1) {
    const code = i < text.length ? text.charCodeAt(i) : 32;
    if (isUpper(code) || isLower(code)) {
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

/** How many groups of letters `text` holds. */
function wordCount(text: string): number {
  let words = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    const letter = isUpper(code) || isLower(code);
    if (letter && !inWord) words += 1;
    inWord = letter;
  }
  return words;
}

/** Whether `run`, a stretch of text equal to part of a secret form `formLength` characters long, identifies it. */
export function identifiesSecret(run: string, formLength: number): boolean {
  if (run.length >= formLength) return true;
  if (run.length < SECRET_RUN) return false;
  if (!isWordLike(run)) return true;
  return run.length * 2 >= formLength && wordCount(run) >= 2;
}
