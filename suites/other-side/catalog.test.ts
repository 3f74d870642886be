import { describe, expect, it } from 'vitest';
import { CLIENT_FAULTS, RECEIVER_FAULTS, ruleOfSampleFault } from '../../samples/faults.ts';
import { RULES } from '../../src/registry.ts';
import { CLIENT_RULES } from '../../src/client-judge/rules.ts';
import { receiverRules } from '../../src/receiver-cert/rules.ts';
import { normalizedSpec } from '../support/spec.ts';

const OTHER_SIDE = [...receiverRules, ...CLIENT_RULES];

describe('receiver and client rules', () => {
  it.each(OTHER_SIDE.map((r) => [r.id, r] as const))('%s quotes its spec verbatim', (_id, rule) => {
    const doc = normalizedSpec(rule.spec.document);
    for (const piece of rule.spec.quote.split(' … ')) expect(doc, `quote piece not found: "${piece}"`).toContain(piece.replace(/\s+/g, ' '));
  });

  it('have unique ids on their own surfaces and never run in certify', () => {
    const ids = OTHER_SIDE.map((r) => r.id);
    expect(new Set([...ids, ...RULES.map((r) => r.id)]).size).toBe(ids.length + RULES.length);
    for (const r of receiverRules) expect(r.id.startsWith('receiver.v1.')).toBe(true);
    for (const r of CLIENT_RULES) expect(r.id).toMatch(/^client\.(v1|v8)\./);
    expect(RULES.filter((r) => r.surface === 'receiver' || r.surface === 'client')).toEqual([]);
  });

  it('have a sample fault for every rule, so each check is proven able to fail', () => {
    const faulted = new Set([...Object.values(RECEIVER_FAULTS), ...Object.values(CLIENT_FAULTS)].map(ruleOfSampleFault));
    expect(OTHER_SIDE.map((r) => r.id).filter((id) => !faulted.has(id))).toEqual([]);
    expect([...faulted].filter((id) => !OTHER_SIDE.some((r) => r.id === id))).toEqual([]);
  });
});
