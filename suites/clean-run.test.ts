import { describe, expect, it } from 'vitest';
import { RULES } from '../src/registry.ts';
import type { Surface } from '../src/rule/index.ts';
import { certify } from '../src/runner/certify.ts';

// No fault switched on: every rule of every surface must pass against the reference fake.
const surfaces = [...new Set(RULES.map((r) => r.surface))] as Surface[];

describe.each(surfaces)('%s rules against the reference fake, no fault', async (surface) => {
  const rules = RULES.filter((r) => r.surface === surface);
  const { results } = await certify({ surfaces: [surface], seed: 20261121 });
  const byId = new Map(results.map((r) => [r.rule.id, r]));

  it('ran every rule of the surface', () => {
    expect(results.map((r) => r.rule.id).sort()).toEqual(rules.map((r) => r.id).sort());
  });

  it.each(rules.map((r) => [r.id] as const))('%s passes', (id) => {
    const result = byId.get(id)!;
    expect(result.verdict, result.reason).toBe('pass');
    expect(result.evidence.length, 'a pass with no exchange observed nothing').toBeGreaterThan(0);
  });
});
