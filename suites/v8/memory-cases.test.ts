import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { acceptedStatuses, boundaryQueries, generatedQueries } from '../../src/checks/v8/memory/cases.ts';
import { MEMORY_BOUNDS, memoryQueryRequest } from '../../src/contract/v8/memory.ts';

const base = { compartment: 'apicert-research', purpose: 'apicert-support', queryText: 'supplier renewal', classes: ['note', 'document'] };

// The property rule trusts each case's `valid` label; the contract schema is the independent judge of it.
describe('memory query cases', () => {
  it('labels every boundary example as the contract schema judges it', () => {
    for (const c of boundaryQueries(base)) {
      expect(memoryQueryRequest.safeParse(c.body).success, c.why).toBe(c.valid);
    }
  });

  it('puts both sides of every numeric bound among the examples', () => {
    const whys = new Set(boundaryQueries(base).map((c) => c.why));
    for (const field of ['limit', 'maxContextBytes', 'maxContextTokens'] as const) {
      const { min, max } = MEMORY_BOUNDS[field];
      for (const n of [min - 1, min, max, max + 1]) expect(whys.has(`${field} ${n}`), `${field} ${n}`).toBe(true);
    }
    for (const why of ['no classes', '64 classes', '65 classes', 'a repeated class', 'queryText of 32768 characters', 'queryText of 32769 characters']) {
      expect(whys.has(why), why).toBe(true);
    }
  });

  it('labels every generated case as the contract schema judges it', () => {
    fc.assert(
      fc.property(generatedQueries(base), (c) => memoryQueryRequest.safeParse(c.body).success === c.valid),
      { numRuns: 300, seed: 42 },
    );
  });

  it('generates both valid and invalid queries', () => {
    const sample = fc.sample(generatedQueries(base), { numRuns: 200, seed: 7 });
    expect(sample.some((c) => c.valid)).toBe(true);
    expect(sample.some((c) => !c.valid)).toBe(true);
  });

  it('accepts 403 only where the purpose or the compartment was replaced', () => {
    const cases = boundaryQueries(base);
    const replaced = cases.filter((c) => c.purposeChanged || c.compartmentChanged);
    expect(replaced.map((c) => c.why).sort()).toEqual([
      'a numeric compartment',
      'compartment of 0 characters',
      'compartment of 1 characters',
      'compartment of 128 characters',
      'compartment of 129 characters',
      'purpose of 0 characters',
      'purpose of 1 characters',
      'purpose of 256 characters',
      'purpose of 257 characters',
    ]);
    for (const c of cases.filter((c) => !c.purposeChanged && !c.compartmentChanged)) expect(acceptedStatuses(c)).toEqual(c.valid ? [200] : [400]);
    for (const c of replaced) expect(acceptedStatuses(c)).toEqual(c.valid ? [200, 403] : [400, 403]);
  });
});
