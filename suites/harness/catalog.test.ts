import { describe, expect, it } from 'vitest';
import { RULES } from '../../src/registry.ts';
import { FAULTS, ruleOfFault } from '../../src/fake/faults/index.ts';

describe('rule catalog and fault registry', () => {
  it('gives every rule a unique dotted id that starts with its surface', () => {
    const ids = RULES.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const r of RULES) expect(r.id.startsWith(`${r.surface}.`), r.id).toBe(true);
  });

  it('names an existing rule before the slash of every fault', () => {
    const ids = new Set(RULES.map((r) => r.id));
    for (const f of FAULTS) expect(ids.has(ruleOfFault(f.id)), `${f.id} names no rule`).toBe(true);
  });

  it('has a fault for every rule that can gate (required, and SHOULD under --strict), so every gating check is proven able to fail', () => {
    const covered = new Set(FAULTS.map((f) => ruleOfFault(f.id)));
    const uncovered = RULES.filter((r) => r.level !== 'observation' && !covered.has(r.id)).map((r) => r.id);
    expect(uncovered).toEqual([]);
  });
});
