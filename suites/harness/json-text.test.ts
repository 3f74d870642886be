import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, MAX_JSON_DEPTH, nestsDeeperThan, parseJson, parseJsonDocument } from '../../src/util/json.ts';

/** The plain reading, one character at a time: what the scan must agree with. */
function nestsDeeperByHand(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i += 1;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') {
      if (++depth > max) return true;
    } else if (c === ']' || c === '}') depth -= 1;
  }
  return false;
}

describe('JSON text helpers', () => {
  it('nesting: brackets inside strings never count, whatever run of backslashes stands before a quote', () => {
    const piece = fc.constantFrom('"', '\\', '\\\\', '\\"', '[', ']', '{', '}', 'a', ' ');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), fc.integer({ min: 0, max: 4 }), (pieces, max) => {
        const text = pieces.join('');
        expect(nestsDeeperThan(text, max)).toBe(nestsDeeperByHand(text, max));
      }),
      { numRuns: 5_000 },
    );
    expect(nestsDeeperThan('"\\\\"[[', 1)).toBe(true);
    expect(nestsDeeperThan('"\\\\\\"[["', 1)).toBe(false);
  });

  it('a document parsed whole (a HAR) is refused at the depth a body is: its parsed containers counted as the text scan counts brackets', () => {
    const nested = (depth: number, inner: string) => {
      let text = inner;
      for (let i = 0; i < depth; i += 1) text = i % 2 === 0 ? `[${text}]` : `{"k":${text}}`;
      return text;
    };
    for (const depth of [1, 2, MAX_JSON_DEPTH - 1, MAX_JSON_DEPTH, MAX_JSON_DEPTH + 1, 4 * MAX_JSON_DEPTH]) {
      for (const inner of ['1', '"[[[["', '[]', '{}']) {
        const text = nested(depth, inner);
        expect(parseJsonDocument(text).ok, `${depth} levels around ${inner}`).toBe(parseJson(text).ok);
      }
    }
    fc.assert(
      fc.property(fc.json({ depthSize: 'large' }), (text) => {
        expect(parseJsonDocument(text)).toEqual(parseJson(text));
      }),
      { numRuns: 500 },
    );
    expect(parseJsonDocument('{"log":').ok).toBe(false);
  });

  it('canonical JSON: keys in code unit order for few keys and many', () => {
    const key = fc.string({ unit: fc.constantFrom('a', 'B', '_', 'é', '\u{1F600}', '\uFFFF', '0'), maxLength: 4 });
    fc.assert(
      fc.property(fc.oneof(fc.dictionary(key, fc.integer(), { maxKeys: 24 }), fc.dictionary(key, fc.integer(), { minKeys: 25, maxKeys: 60 })), (record) => {
        const sorted = Object.keys(record).sort();
        const byHand = `{${sorted.map((k) => `${JSON.stringify(k)}:${JSON.stringify(record[k])}`).join(',')}}`;
        expect(canonicalJson(record)).toBe(byHand);
      }),
      { numRuns: 2_000 },
    );
  });
});
