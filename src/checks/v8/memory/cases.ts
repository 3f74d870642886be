/**
 * Memory queries around every bound of "Memory query request": the exact boundaries (off by one on
 * both sides) as examples, and generated values inside and outside each range for fast-check.
 */
import fc from 'fast-check';
import { MEMORY_BOUNDS } from '../../../contract/v8/memory.ts';
import type { MemoryBase } from '../support/read.ts';

export interface QueryCase {
  body: Record<string, unknown>;
  valid: boolean;
  why: string;
  /**
   * The purpose was replaced: a valid one may still be refused (403 "purpose not permitted"), and
   * the seed does not say whether a too-long purpose is refused as a bound (400) or as a purpose (403).
   */
  purposeChanged: boolean;
  /**
   * The compartment was replaced: the seed's 403 causes for memory ("no `memory:read`, `principalId`
   * in body, or purpose not permitted") say nothing of which compartments a principal may read, so a
   * compartment other than the profile's may be refused (403) as well as read, like a replaced purpose.
   */
  compartmentChanged: boolean;
}

const B = MEMORY_BOUNDS;
type Body = Record<string, unknown>;

function text(length: number, fill = 'q'): string {
  return fill.repeat(length);
}

/** Unique class names, the base's first so a valid query still matches something. */
function classList(base: MemoryBase, count: number, length = 8): string[] {
  const out = base.classes.slice(0, count);
  for (let i = out.length; out.length < count; i += 1) out.push(`c${i}-`.padEnd(length, 'k').slice(0, length));
  return out;
}

function embedding(count: number): number[] {
  return Array.from({ length: count }, (_, i) => ((i * 37) % 100) / 100);
}

function without(body: Body, field: string): Body {
  const { [field]: _dropped, ...rest } = body;
  return rest;
}

function baseBody(base: MemoryBase): Body {
  return { compartment: base.compartment, purpose: base.purpose, queryText: base.queryText, classes: [...base.classes] };
}

function make(base: MemoryBase, why: string, valid: boolean, change: Body | ((b: Body) => Body)): QueryCase {
  const start = baseBody(base);
  const body = typeof change === 'function' ? change(start) : { ...start, ...change };
  const changed = typeof change === 'function' ? {} : change;
  return { body, valid, why, purposeChanged: 'purpose' in changed, compartmentChanged: 'compartment' in changed };
}

/** The exact boundaries: min-1, min, max, max+1 of every bound, each required field missing, and wrong types. */
export function boundaryQueries(base: MemoryBase): QueryCase[] {
  const cases: QueryCase[] = [];
  const lengths = [
    ['compartment', B.compartment],
    ['purpose', B.purpose],
    ['queryText', B.queryText],
  ] as const;
  for (const [field, { min, max }] of lengths) {
    cases.push(make(base, `${field} of ${min - 1} characters`, false, { [field]: text(min - 1) }));
    cases.push(make(base, `${field} of ${min} characters`, true, { [field]: text(min) }));
    cases.push(make(base, `${field} of ${max} characters`, true, { [field]: text(max) }));
    cases.push(make(base, `${field} of ${max + 1} characters`, false, { [field]: text(max + 1) }));
  }
  cases.push(make(base, 'no classes', false, { classes: [] }));
  cases.push(make(base, `${B.classes.min} class`, true, { classes: classList(base, B.classes.min) }));
  cases.push(make(base, `${B.classes.max} classes`, true, { classes: classList(base, B.classes.max) }));
  cases.push(make(base, `${B.classes.max + 1} classes`, false, { classes: classList(base, B.classes.max + 1) }));
  cases.push(make(base, 'a repeated class', false, { classes: [...base.classes, base.classes[0] ?? 'note'] }));
  cases.push(make(base, 'a class of 0 characters', false, { classes: [...base.classes, ''] }));
  cases.push(make(base, `a class of ${B.className.max} characters`, true, { classes: [...base.classes, text(B.className.max, 'z')] }));
  cases.push(make(base, `a class of ${B.className.max + 1} characters`, false, { classes: [...base.classes, text(B.className.max + 1, 'z')] }));
  const integers = [
    ['limit', B.limit],
    ['maxContextBytes', B.maxContextBytes],
    ['maxContextTokens', B.maxContextTokens],
  ] as const;
  for (const [field, { min, max }] of integers) {
    cases.push(make(base, `${field} ${min - 1}`, false, { [field]: min - 1 }));
    cases.push(make(base, `${field} ${min}`, true, { [field]: min }));
    cases.push(make(base, `${field} ${max}`, true, { [field]: max }));
    cases.push(make(base, `${field} ${max + 1}`, false, { [field]: max + 1 }));
    cases.push(make(base, `${field} ${min + 0.5} (not an integer)`, false, { [field]: min + 0.5 }));
  }
  cases.push(make(base, 'an empty queryEmbedding', false, { queryEmbedding: [] }));
  cases.push(make(base, `a queryEmbedding of ${B.queryEmbedding.min} number`, true, { queryEmbedding: embedding(B.queryEmbedding.min) }));
  cases.push(make(base, `a queryEmbedding of ${B.queryEmbedding.max} numbers`, true, { queryEmbedding: embedding(B.queryEmbedding.max) }));
  cases.push(make(base, `a queryEmbedding of ${B.queryEmbedding.max + 1} numbers`, false, { queryEmbedding: embedding(B.queryEmbedding.max + 1) }));
  cases.push(make(base, 'a queryEmbedding with a string in it', false, { queryEmbedding: [0.1, 'x', 0.3] }));
  for (const field of ['compartment', 'purpose', 'queryText', 'classes']) {
    cases.push(make(base, `${field} missing`, false, (b) => without(b, field)));
  }
  // Values of another JSON type: ajv's coercion (Fastify's default) reads the first two as ["note"] and "7" (open); a null queryText, read as "" or as missing, is refused either way.
  cases.push(make(base, 'classes as a string', false, { classes: base.classes[0] ?? 'note' }));
  cases.push(make(base, 'a numeric compartment', false, { compartment: 7 }));
  cases.push(make(base, 'a null queryText', false, { queryText: null }));
  return cases;
}

/** Lengths and integers drawn inside a range and outside it on either side. */
function around(min: number, max: number, spread: number) {
  return {
    inside: fc.integer({ min, max }),
    below: fc.integer({ min: Math.max(0, min - spread), max: min - 1 }),
    above: fc.integer({ min: max + 1, max: max + spread }),
  };
}

/** Valid queries (optional fields drawn in range) and queries broken in exactly one place. */
export function generatedQueries(base: MemoryBase): fc.Arbitrary<QueryCase> {
  const optional = fc.record(
    {
      limit: fc.integer({ min: B.limit.min, max: B.limit.max }),
      maxContextBytes: fc.integer({ min: B.maxContextBytes.min, max: B.maxContextBytes.max }),
      maxContextTokens: fc.integer({ min: B.maxContextTokens.min, max: B.maxContextTokens.max }),
      queryEmbedding: fc.integer({ min: B.queryEmbedding.min, max: 64 }).map(embedding),
    },
    { requiredKeys: [] },
  );
  const valid = optional.map((extra): QueryCase => ({ body: { ...baseBody(base), ...extra }, valid: true, why: `valid with ${Object.keys(extra).join(', ') || 'no optional field'}`, purposeChanged: false, compartmentChanged: false }));
  const broken: Array<fc.Arbitrary<QueryCase>> = [];
  const lengths = [
    ['compartment', B.compartment, 64],
    ['queryText', B.queryText, 256],
  ] as const;
  for (const [field, { min, max }, spread] of lengths) {
    const r = around(min, max, spread);
    broken.push(r.inside.map((n) => make(base, `${field} of ${n} characters`, true, { [field]: text(n) })));
    broken.push(r.above.map((n) => make(base, `${field} of ${n} characters`, false, { [field]: text(n) })));
  }
  const purpose = around(B.purpose.min, B.purpose.max, 64);
  broken.push(purpose.above.map((n) => make(base, `purpose of ${n} characters`, false, { purpose: text(n) })));
  const classes = around(B.classes.min, B.classes.max, 32);
  broken.push(classes.inside.map((n) => make(base, `${n} classes`, true, { classes: classList(base, n) })));
  broken.push(classes.above.map((n) => make(base, `${n} classes`, false, { classes: classList(base, n) })));
  broken.push(fc.integer({ min: 1, max: 8 }).map((n) => make(base, `${n} repeated class(es)`, false, { classes: [...classList(base, n), ...classList(base, n)] })));
  const integers = [
    ['limit', B.limit, 100],
    ['maxContextBytes', B.maxContextBytes, 4096],
    ['maxContextTokens', B.maxContextTokens, 4096],
  ] as const;
  for (const [field, { min, max }, spread] of integers) {
    const r = around(min, max, spread);
    broken.push(r.below.map((n) => make(base, `${field} ${n}`, false, { [field]: n })));
    broken.push(r.above.map((n) => make(base, `${field} ${n}`, false, { [field]: n })));
  }
  const emb = around(B.queryEmbedding.min, B.queryEmbedding.max, 64);
  broken.push(emb.above.map((n) => make(base, `a queryEmbedding of ${n} numbers`, false, { queryEmbedding: embedding(n) })));
  return fc.oneof(valid, ...broken);
}

/** Which statuses a case may answer: a changed purpose or compartment may also be refused as not permitted (403). */
export function acceptedStatuses(c: Pick<QueryCase, 'valid' | 'purposeChanged' | 'compartmentChanged'>): readonly number[] {
  if (c.purposeChanged || c.compartmentChanged) return c.valid ? [200, 403] : [400, 403];
  return c.valid ? [200] : [400];
}
