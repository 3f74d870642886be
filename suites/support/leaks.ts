/**
 * Finds a secret in output in any form a target may have reflected it in, independently of the
 * redactor: the text as is, URL-decoded, JSON-unescaped, and every base64 or base64url run decoded
 * at each alignment. A leak is the whole secret or any run of it that identifies it (12 characters
 * or more, and random-looking or at least half the secret: `identifiesSecret`, the promise the
 * redactor keeps). For a secret under 8 characters: the secret as a whole token, as is or
 * JSON-escaped, which is all apicert promises for a secret that short.
 */
import { identifiesSecret, isWordLike, SECRET_RUN as RUN } from '../../src/redact/fragments.ts';

/** Whether `view` shares with `secret` a run that identifies it: every 12-character seed, followed both ways. */
function sharesIdentifyingRun(view: string, secret: string): boolean {
  if (secret.length < RUN) return isWordLike(secret) ? hasWholeToken(view, secret) : view.includes(secret);
  for (let offset = 0; offset + RUN <= secret.length; offset += 1) {
    const seed = secret.slice(offset, offset + RUN);
    for (let at = view.indexOf(seed); at !== -1; at = view.indexOf(seed, at + 1)) {
      let start = at;
      let from = offset;
      while (start > 0 && from > 0 && view[start - 1] === secret[from - 1]) [start, from] = [start - 1, from - 1];
      let end = at + RUN;
      let to = offset + RUN;
      while (end < view.length && to < secret.length && view[end] === secret[to]) [end, to] = [end + 1, to + 1];
      if (identifiesSecret(secret, from, to)) return true;
    }
  }
  return false;
}

function hasWholeToken(text: string, token: string): boolean {
  const edge = /[A-Za-z0-9_-]/;
  for (let i = text.indexOf(token); i !== -1; i = text.indexOf(token, i + 1)) {
    if ((i === 0 || !edge.test(text[i - 1]!)) && (i + token.length >= text.length || !edge.test(text[i + token.length]!))) return true;
  }
  return false;
}

function urlDecoded(text: string): string {
  return text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (m) => {
    try {
      return decodeURIComponent(m);
    } catch {
      return m;
    }
  });
}

function jsonUnescaped(text: string): string {
  return text.replace(/\\u([0-9a-fA-F]{4})|\\(["\\/bfnrt])/g, (_, hex: string | undefined, c: string | undefined) =>
    hex ? String.fromCharCode(Number.parseInt(hex, 16)) : ({ b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' } as Record<string, string>)[c!] ?? c!,
  );
}

function base64Decodings(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/[A-Za-z0-9+/_-]{16,}/g)) {
    const run = m[0].replaceAll('-', '+').replaceAll('_', '/');
    for (let skip = 0; skip < 4; skip += 1) {
      const part = run.slice(skip);
      out.push(Buffer.from(part.slice(0, part.length - (part.length % 4)), 'base64').toString('latin1'));
    }
  }
  return out;
}

/** The forms in which `secret` shows in `text`, empty when it does not. */
export function leaksOf(text: string, secret: string): string[] {
  const views: Array<[string, string]> = [
    ['as is', text],
    ['url-encoded', urlDecoded(text)],
    ['json-escaped', jsonUnescaped(text)],
    ...base64Decodings(text).map((d): [string, string] => ['base64', d]),
  ];
  const found = new Set<string>();
  for (const [form, view] of secret.length < 8 ? views.slice(0, 1) : views) {
    if (secret.length < 8 ? hasWholeToken(view, secret) : sharesIdentifyingRun(view, secret)) found.add(form);
  }
  return [...found];
}
