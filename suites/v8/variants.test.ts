import { describe, expect, it } from 'vitest';
import { withExtraProperties } from '../../src/fake/support/extra-properties.ts';
import { VARIANTS } from '../../src/fake/variants/index.ts';
import { normalizedSpec } from '../support/spec.ts';

describe('withExtraProperties (the rest of its tests are in suites/v1/open-objects.test.ts)', () => {
  const input = { a: 1, list: [{ b: 'x' }, 2, null], nested: { c: { d: true } }, schema: { type: 'object', properties: { text: { type: 'string' } } } };

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
