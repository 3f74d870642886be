/**
 * How a lenient JSON parser reads a text a strict one refuses (RFC 8259 9: "A JSON parser MAY accept
 * non-JSON forms or extensions"): the variants that take that choice on /v1 and /v8 read bodies so.
 */

/** The first JSON value of a text a strict parser refuses, as a lenient one reads it: a trailing comma dropped, data after the value ignored. */
export function lenientJson(text: string): { value: unknown } | undefined {
  if (text.trim() === '') return undefined;
  try {
    JSON.parse(text);
    return undefined;
  } catch {
    // not JSON: read on leniently below
  }
  for (const candidate of [text.replace(/,\s*([}\]])\s*$/, '$1'), firstValue(text)]) {
    if (candidate === undefined) continue;
    try {
      return { value: JSON.parse(candidate) as unknown };
    } catch {
      // not this reading
    }
  }
  return undefined;
}

/** The text up to the end of its first object or array (outside strings), or undefined. */
function firstValue(text: string): string | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i += 1;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth += 1;
    else if ((c === '}' || c === ']') && --depth === 0) return text.slice(0, i + 1);
  }
  return undefined;
}
