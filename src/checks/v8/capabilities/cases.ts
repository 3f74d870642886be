/** Capability search bodies around the three length bounds, for the validation property. */
import fc from 'fast-check';

export interface SearchCase {
  body: Record<string, unknown>;
  valid: boolean;
  why: string;
}

/** Each request field with its maximum length (the minimum is 1 for all three). */
export const SEARCH_FIELDS = [
  ['actionFamily', 128],
  ['purpose', 256],
  ['targetType', 128],
] as const;

/** Every field at 0, 1, max and max+1 characters, each field missing, and each a number or null. */
export function boundarySearches(base: Record<string, string>): SearchCase[] {
  const cases: SearchCase[] = [];
  for (const [field, max] of SEARCH_FIELDS) {
    for (const [length, valid] of [
      [0, false],
      [1, true],
      [max, true],
      [max + 1, false],
    ] as const) {
      cases.push({ body: { ...base, [field]: 'a'.repeat(length) }, valid, why: `${field} of ${length} characters` });
    }
    const { [field]: _dropped, ...rest } = base;
    cases.push({ body: rest, valid: false, why: `${field} missing` });
    // A number ajv's coercion (Fastify's default) reads as "42" is open; null, read as "" (or as missing), is refused either way.
    cases.push({ body: { ...base, [field]: 42 }, valid: false, why: `${field} a number` });
    cases.push({ body: { ...base, [field]: null }, valid: false, why: `${field} null` });
  }
  return cases;
}

/** One field drawn inside its range or past its maximum; the other two stay as the base has them. */
export function generatedSearches(base: Record<string, string>): fc.Arbitrary<SearchCase> {
  return fc.constantFrom(...SEARCH_FIELDS).chain(([field, max]) =>
    fc.oneof(
      fc.integer({ min: 1, max }).map((n) => ({ body: { ...base, [field]: 'b'.repeat(n) }, valid: true, why: `${field} of ${n} characters` })),
      fc.integer({ min: max + 1, max: max + 512 }).map((n) => ({ body: { ...base, [field]: 'c'.repeat(n) }, valid: false, why: `${field} of ${n} characters` })),
    ),
  );
}
