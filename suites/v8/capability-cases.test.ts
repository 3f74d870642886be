import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boundarySearches, generatedSearches, SEARCH_FIELDS } from '../../src/checks/v8/capabilities/cases.ts';
import { capabilitySearchRequest } from '../../src/contract/v8/capabilities.ts';

const base = { actionFamily: 'read', purpose: 'apicert conformance probe', targetType: 'document' };

// The validation rule trusts each case's `valid` label; the contract schema judges it independently.
describe('capability search cases', () => {
  it('labels every boundary example as the contract schema judges it', () => {
    for (const c of boundarySearches(base)) expect(capabilitySearchRequest.safeParse(c.body).success, c.why).toBe(c.valid);
  });

  it('tries 0, 1, max and max+1 characters of every field', () => {
    const whys = new Set(boundarySearches(base).map((c) => c.why));
    for (const [field, max] of SEARCH_FIELDS) {
      for (const n of [0, 1, max, max + 1]) expect(whys.has(`${field} of ${n} characters`), `${field} ${n}`).toBe(true);
    }
  });

  it('labels every generated case as the contract schema judges it', () => {
    fc.assert(
      fc.property(generatedSearches(base), (c) => capabilitySearchRequest.safeParse(c.body).success === c.valid),
      { numRuns: 200, seed: 3 },
    );
  });
});
