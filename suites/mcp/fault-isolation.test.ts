import { describe, expect, it } from 'vitest';
import { mcpRules } from '../../src/checks/mcp/index.ts';
import { MCP_FAULTS, ruleOfFault } from '../../src/fake/faults/index.ts';
import { certify } from '../../src/runner/certify.ts';

// The fault matrix proves each fault fails its rule; this proves it fails nothing else on /mcp,
// so a failing rule in a report points at one behaviour.
describe.concurrent('mcp faults are isolated', () => {
  it.each(MCP_FAULTS.map((f) => [f.id, f] as const))('%s fails only its own rule', async (faultId, fault) => {
    const { results } = await certify({ faults: [faultId], rules: mcpRules, seed: 11 });
    // A rule the target may legally leave nothing to judge (its judgement's `none`) says so when a fault takes that away:
    // under echoes-unknown no other version is offered for mcp.lifecycle.version-latest to compare.
    const leftNothing = (r: (typeof results)[number]) => r.verdict === 'not-applicable' && r.rule.judgement?.none !== undefined && r.reason === r.rule.judgement.none;
    const notPassing = results.filter((r) => r.verdict !== 'pass' && !leftNothing(r)).map((r) => `${r.rule.id}: ${r.verdict}`);
    // A rule that narrows another (the gateway's GET 405) fails with it; the fault says so and why.
    const also: readonly string[] = 'alsoBreaks' in fault ? fault.alsoBreaks.rules : [];
    const expected = mcpRules.filter((r) => r.id === ruleOfFault(faultId) || also.includes(r.id)).map((r) => `${r.id}: fail`);
    expect(notPassing).toEqual(expected);
  });
});
