/**
 * The forms a target may reflect a secret in: as sent, URL-encoded (either hex case, `+` for a
 * space), JSON-escaped, HTML-escaped, and base64 or base64url at each of the three byte alignments
 * the secret can have inside a longer encoded value (only the characters that depend on the secret
 * alone are kept, so a match does not depend on what surrounds it). Then the forms that spell each
 * character of the secret with several (hex of its UTF-8 bytes, `%XX` for every byte, `&#NN;` and
 * `&#xNN;`, `\uXXXX`: a debug echo, a logger or a WAF writes them), and, for a secret long enough
 * that a case fold of it cannot be ordinary text, its all-upper and all-lower case.
 */

/** A form, and for a spelled one where the spelling of each character of the secret ends. */
export interface SecretForm {
  text: string;
  /**
   * For a form that spells each character (code point) of the secret with several of its own: per
   * code point, its end in the secret (UTF-16 index) and the end of its spelling in `text`. A
   * stretch of such a form is judged by the part of the secret it spells whole (fragments.ts).
   */
  spelling?: { secretEnds: number[]; formEnds: number[] };
}

/** Secrets at least this long also get their all-upper and all-lower case forms. */
export const CASE_FOLDED_SECRET = 12;

function base64Cores(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const out: string[] = [];
  for (let shift = 0; shift < 3; shift += 1) {
    const encoded = Buffer.concat([Buffer.alloc(shift), bytes]).toString('base64');
    const core = encoded.slice(Math.ceil((8 * shift) / 6), Math.floor((8 * (shift + bytes.length)) / 6));
    out.push(core, core.replaceAll('+', '-').replaceAll('/', '_'));
  }
  return out;
}

function htmlEscaped(value: string): string {
  return value.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;').replaceAll("'", '&#39;');
}

const hex2 = (n: number) => n.toString(16).padStart(2, '0');

/** The secret spelled one code point at a time by `spell`. */
function spelled(value: string, spell: (codePoint: string) => string): SecretForm {
  let text = '';
  const secretEnds: number[] = [];
  const formEnds: number[] = [];
  let at = 0;
  for (const c of value) {
    at += c.length;
    text += spell(c);
    secretEnds.push(at);
    formEnds.push(text.length);
  }
  return { text, spelling: { secretEnds, formEnds } };
}

const bytes = (c: string) => [...Buffer.from(c, 'utf8')];
const units = (c: string) => Array.from({ length: c.length }, (_, i) => c.charCodeAt(i));

/** How each spelled form writes one code point. */
const SPELLERS: ReadonlyArray<(c: string) => string> = [
  (c) => bytes(c).map(hex2).join(''),
  (c) => bytes(c).map(hex2).join('').toUpperCase(),
  (c) => bytes(c).map((b) => `%${hex2(b).toUpperCase()}`).join(''),
  (c) => bytes(c).map((b) => `%${hex2(b)}`).join(''),
  (c) => `&#${c.codePointAt(0)!};`,
  (c) => `&#x${c.codePointAt(0)!.toString(16)};`,
  (c) => `&#x${c.codePointAt(0)!.toString(16).toUpperCase()};`,
  (c) => units(c).map((u) => `\\u${u.toString(16).padStart(4, '0')}`).join(''),
  (c) => units(c).map((u) => `\\u${u.toString(16).padStart(4, '0').toUpperCase()}`).join(''),
];

/**
 * Each speller's spelling of the ASCII characters, worked out once: a judged recording adds some
 * hundred secrets of tens of characters, and spelling each character afresh cost more than the rest
 * of the redactor's set-up.
 */
const ASCII_SPELLINGS: readonly (readonly string[])[] = SPELLERS.map((spell) => Array.from({ length: 128 }, (_, code) => spell(String.fromCharCode(code))));

function spelledForms(value: string): SecretForm[] {
  return SPELLERS.map((spell, i) => {
    const ascii = ASCII_SPELLINGS[i]!;
    return spelled(value, (c) => (c.length === 1 && c.charCodeAt(0) < 128 ? ascii[c.charCodeAt(0)]! : spell(c)));
  });
}

/**
 * `spelledToo` false leaves out the spelled and case-folded forms: for a target-issued session id,
 * hidden only where it stands whole, those forms cost the redactor far more than they could hide.
 */
export function secretForms(value: string, spelledToo = true): SecretForm[] {
  // A lone surrogate (a secret a hostile target issued) has no UTF-8 form: an encoder writes U+FFFD for it, and encodeURIComponent would throw.
  const url = encodeURIComponent((value as string & { toWellFormed(): string }).toWellFormed());
  const plain = [value, url, url.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()), url.replaceAll('%20', '+'), JSON.stringify(value).slice(1, -1), htmlEscaped(value), ...base64Cores(value)];
  if (spelledToo && value.length >= CASE_FOLDED_SECRET) plain.push(value.toUpperCase(), value.toLowerCase());
  const forms: SecretForm[] = [];
  const seen = new Set<string>();
  for (const form of [...plain.map((text): SecretForm => ({ text })), ...(spelledToo ? spelledForms(value) : [])]) {
    if (form.text.length === 0 || seen.has(form.text)) continue;
    seen.add(form.text);
    forms.push(form);
  }
  return forms;
}
