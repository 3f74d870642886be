import { describe, expect, it } from 'vitest';
import { certify } from '../src/runner/certify.ts';

describe('declared rate-limit tiers (fixtures.v1.rateLimitTiers, fixtures.v8.rateLimitTiers)', () => {
  const rules = ['v1.errors.rate-limited', 'v8.missions.rate-limit-429'];

  it('without a declaration a limiter that never limits stays inconclusive, as before', async () => {
    const { results } = await certify({
      faults: ['v1.errors.rate-limited/never-limits', 'v8.missions.rate-limit-429/never-limits'],
      patterns: rules,
      seed: 3,
      adjustEmbeddedProfile: (p) => ({ ...p, fixtures: { ...p.fixtures, v1: { ...p.fixtures.v1, rateLimitTiers: undefined }, v8: { ...p.fixtures.v8, rateLimitTiers: undefined } } }),
    });
    expect(results.map((r) => [r.rule.id, r.verdict]).sort()).toEqual(rules.map((id) => [id, 'inconclusive']).sort());
  });

  it('a declared tier the request budget cannot prove is untestable, saying so; nothing is sent', async () => {
    const { results } = await certify({
      patterns: rules,
      seed: 3,
      adjustEmbeddedProfile: (p) => ({ ...p, safety: { ...p.safety, requestBudget: 40 } }),
    });
    const v1 = results.find((r) => r.rule.id === 'v1.errors.rate-limited')!;
    expect(v1.verdict, v1.reason).toBe('untestable');
    expect(v1.reason).toMatch(/fixtures\.v1\.rateLimitTiers\["v1-rate-probe"\] \(120 requests per 60 s\) takes 241 requests.*safety\.requestBudget = 40/);
    expect(v1.evidence).toEqual([]);
  });
});
