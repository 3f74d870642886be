import { describe, expect, it } from 'vitest';
import { mcpRules } from '../../src/checks/mcp/index.ts';
import { MCP_FAULTS, ruleOfFault } from '../../src/fake/faults/index.ts';
import { certify } from '../../src/runner/certify.ts';

// The fault matrix proves each fault fails its rule; this proves it fails nothing else on /mcp,
// so a failing rule in a report points at one behaviour.
describe.concurrent('mcp faults are isolated', () => {
  it.each(MCP_FAULTS.map((f) => [f.id, f] as const))('%s fails only its own rule', async (faultId, fault) => {
    const { results } = await certify({ faults: [faultId], rules: mcpRules, seed: 11 });
    const notPassing = results.filter((r) => r.verdict !== 'pass').map((r) => `${r.rule.id}: ${r.verdict}`);
    // A rule that narrows another (the gateway's GET 405) fails with it; the fault says so and why.
    const also: readonly string[] = 'alsoBreaks' in fault ? fault.alsoBreaks.rules : [];
    const expected = mcpRules.filter((r) => r.id === ruleOfFault(faultId) || also.includes(r.id)).map((r) => `${r.id}: fail`);
    expect(notPassing).toEqual(expected);
  });
});
