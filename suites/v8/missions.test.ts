import { describe, expect, it } from 'vitest';
import { RULES } from '../../src/catalog/index.ts';
import { certify } from '../../src/runner/certify.ts';

// No fault switched on: every /v8 rule must pass against the reference fake.
describe('/v8 rules against the reference fake', async () => {
  const { results } = await certify({ surfaces: ['v8'], seed: 20261121 });
  const byId = new Map(results.map((r) => [r.rule.id, r]));

  it('ran every /v8 rule', () => {
    expect(results.map((r) => r.rule.id).sort()).toEqual(RULES.filter((r) => r.surface === 'v8').map((r) => r.id).sort());
  });

  it.each(RULES.filter((r) => r.surface === 'v8').map((r) => [r.id] as const))('%s passes', (id) => {
    const result = byId.get(id)!;
    expect(result.verdict, result.reason).toBe('pass');
    expect(result.evidence.length).toBeGreaterThan(0);
  });
});
