import { describe, expect, it } from 'vitest';
import { FAULTS, ruleOfFault } from '../src/fake/faults/index.ts';
import { certify } from '../src/runner/certify.ts';

// Each fault on its own must make the check of its rule fail: a check no fault can fail proves nothing.
describe.concurrent('fault matrix', () => {
  it.each(FAULTS.map((f) => [f.id, f.description] as const))('%s (%s) makes its rule fail', async (faultId) => {
    const rule = ruleOfFault(faultId);
    const { results } = await certify({ faults: [faultId as (typeof FAULTS)[number]['id']], patterns: [rule], seed: 7 });
    expect(results).toHaveLength(1);
    expect(results[0]!.verdict, results[0]!.reason).toBe('fail');
    // Five runs share one event loop (describe.concurrent), so the wall time is several times the run's own work.
  }, 180_000);
});
