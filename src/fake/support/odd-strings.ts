/**
 * Strings a deployment may refuse although JSON carries them: a NUL character or a lone surrogate
 * (RFC 8259 §8.2, I-JSON RFC 7493 §2.1), and control or invisible characters no description speaks of.
 */

function odd(s: string): boolean {
  for (let i = 0; i < s.length; i += 1) {
    const c = s.charCodeAt(i);
    if (c === 0) return true;
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i += 1;
      else return true;
    } else if (c >= 0xdc00 && c <= 0xdfff) return true;
  }
  return false;
}

/** Whether any string or name in a parsed JSON value (64 levels deep at most) is one `test` picks. */
function holdsString(value: unknown, test: (s: string) => boolean, depth = 0): boolean {
  if (depth > 64) return false;
  if (typeof value === 'string') return test(value);
  if (Array.isArray(value)) return value.some((v) => holdsString(v, test, depth + 1));
  if (value !== null && typeof value === 'object') return Object.entries(value).some(([k, v]) => test(k) || holdsString(v, test, depth + 1));
  return false;
}

/** Whether any string or name in a parsed JSON value holds a NUL or a lone surrogate. */
export function holdsOddString(value: unknown): boolean {
  return holdsString(value, odd);
}

/** C0 and C1 controls (tab, line feed and carriage return aside) and zero-width and bidi formatting characters. */
const CONTROL = /[\u0001-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/;

/** Whether any string or name in a parsed JSON value holds a control or invisible formatting character. */
export function holdsControlString(value: unknown): boolean {
  return holdsString(value, (s) => CONTROL.test(s));
}
