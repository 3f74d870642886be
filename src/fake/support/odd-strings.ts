/** Strings a deployment may refuse although JSON carries them: a NUL character or a lone surrogate (RFC 8259 §8.2, I-JSON RFC 7493 §2.1). */

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

/** Whether any string or name in a parsed JSON value holds a NUL or a lone surrogate. */
export function holdsOddString(value: unknown, depth = 0): boolean {
  if (depth > 64) return false;
  if (typeof value === 'string') return odd(value);
  if (Array.isArray(value)) return value.some((v) => holdsOddString(v, depth + 1));
  if (value !== null && typeof value === 'object') return Object.entries(value).some(([k, v]) => odd(k) || holdsOddString(v, depth + 1));
  return false;
}
