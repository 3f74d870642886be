import { describe, expect, it } from 'vitest';
import { withExtraProperties } from '../../src/fake/support/extra-properties.ts';
import { VARIANTS } from '../../src/fake/variants/index.ts';
import { normalizedSpec } from '../support/spec.ts';

describe('withExtraProperties', () => {
  const input = { a: 1, list: [{ b: 'x' }, 2, null], nested: { c: { d: true } }, schema: { type: 'object', properties: { text: { type: 'string' } } } };

  it('adds the same unknown properties to every object at every depth, and leaves the input alone', () => {
    const before = structuredClone(input);
    const out = withExtraProperties(input);
    expect(input).toEqual(before);
    const extras = Object.keys(out).filter((k) => !(k in input));
    expect(extras.length).toBeGreaterThan(2);
    expect(extras).toContain('');
    for (const o of [out.list[0], out.nested, out.nested.c, out.schema.properties.text] as Array<Record<string, unknown>>) expect(Object.keys(o)).toEqual(expect.arrayContaining(extras));
    expect(out.a).toBe(1);
    expect(out.list[1]).toBe(2);
    expect(out.list[2]).toBeNull();
    expect(out.nested.c.d).toBe(true);
    expect(JSON.stringify(withExtraProperties(input))).toBe(JSON.stringify(out));
  });

  it('keeps the values of the keys it is told to keep exactly as they are', () => {
    const out = withExtraProperties(input, { keep: ['schema'] });
    expect(out.schema).toEqual(input.schema);
    expect(Object.keys(out.nested)).toContain('');
  });
});

describe('every /v8 variant quotes the seed verbatim', () => {
  const v8 = VARIANTS.filter((v) => v.id.startsWith('v8.'));
  it.each(v8.map((v) => [v.id, v] as const))('%s', (_id, variant) => {
    expect(normalizedSpec(variant.spec.document)).toContain(variant.spec.quote.replace(/\s+/g, ' '));
  });
});
