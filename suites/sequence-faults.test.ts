/**
 * Faults only a sequence reveals: under each, every rule that tests one transition with a fixed
 * sequence still passes, so only the model-based rules can catch it (the fault matrix proves they do).
 */
import { describe, expect, it } from 'vitest';
import { FAULTS, ruleOfFault, type FaultId } from '../src/fake/faults/index.ts';
import { RULES } from '../src/registry.ts';
import { certify } from '../src/runner/certify.ts';

const MODEL_RULES = RULES.filter((r) => r.id.endsWith('.lifecycle.model'));
const SEQUENCE_FAULTS = FAULTS.filter((f) => MODEL_RULES.some((r) => r.id === ruleOfFault(f.id)));

describe('sequence-only faults', () => {
  it('there are model-based rules for /v8 missions and /v1 runs, and at least four faults for them', () => {
    expect(MODEL_RULES.map((r) => r.id).sort()).toEqual(['v1.runs.lifecycle.model', 'v8.missions.lifecycle.model']);
    expect(SEQUENCE_FAULTS.length).toBeGreaterThanOrEqual(4);
  });
});

describe.concurrent('the fixed-sequence rules alone miss each sequence-only fault', () => {
  it.each(SEQUENCE_FAULTS.map((f) => [f.id] as const))('%s', async (faultId) => {
    const surface = RULES.find((r) => r.id === ruleOfFault(faultId))!.surface;
    const fixed = RULES.filter((r) => r.surface === surface && !MODEL_RULES.includes(r));
    const { results } = await certify({ faults: [faultId as FaultId], rules: fixed, seed: 7 });
    expect(results).toHaveLength(fixed.length);
    const caught = results.filter((r) => r.verdict === 'fail').map((r) => `${r.rule.id}: ${r.reason}`);
    expect(caught).toEqual([]);
    // The fixed rules did judge the mission and run endpoints the fault bends.
    expect(results.filter((r) => r.verdict === 'pass').length).toBeGreaterThan(fixed.length / 2);
  }, 120_000);
});
