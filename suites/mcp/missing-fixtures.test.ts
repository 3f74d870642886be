import { describe, expect, it } from 'vitest';
import { mcpRules } from '../../src/checks/mcp/index.ts';
import { startFake } from '../../src/fake/server.ts';
import { parseProfile } from '../../src/profile/load.ts';
import { certify } from '../../src/runner/certify.ts';

// A deployment certified without what the mcp rules need gets reasons, never a silent skip or a false pass.
describe('mcp rules against a profile that lacks credentials or fixtures', () => {
  it('reports every rule that needs a caller untestable, naming the missing mcp credential', async () => {
    const fake = await startFake();
    try {
      const profile = parseProfile({ target: fake.baseUrl }, 'test profile');
      const { results } = await certify({ profile, rules: mcpRules, seed: 3 });
      // The token observation needs no credential for its first request: it sends none on purpose.
      const tokens = results.find((r) => r.rule.id === 'mcp.auth.tokens');
      expect(tokens?.verdict).toBe('pass');
      expect(tokens?.observations.map((o) => o.subject)).toContain('initialize without a token');
      // So does the 401 challenge rule: a request without credentials is its provocation.
      const challenge = results.find((r) => r.rule.id === 'mcp.auth.challenge');
      expect(challenge?.verdict).toBe('pass');
      for (const r of results.filter((x) => x !== tokens && x !== challenge)) {
        expect(r.verdict, r.rule.id).toBe('untestable');
        expect(r.reason, r.rule.id).toMatch(/credential for mcp/);
      }
    } finally {
      await fake.close();
    }
  });

  it('reports the SSE rules untestable, naming fixtures.mcp.safeTool, and still judges the rest', async () => {
    const fake = await startFake();
    try {
      const token = fake.context.tokens.issue('mcpat_', { principal: 'p', tenant: 't', scopes: [], expired: false });
      const profile = parseProfile({ target: fake.baseUrl, credentials: [{ name: 'mcp', token, surfaces: ['mcp'] }] }, 'test profile');
      const { results } = await certify({ profile, rules: mcpRules, seed: 3 });
      const byId = new Map(results.map((r) => [r.rule.id, r]));
      for (const id of ['mcp.sse.event-ids-unique', 'mcp.sse.closes-after-response']) {
        expect(byId.get(id)?.verdict, id).toBe('untestable');
        expect(byId.get(id)?.reason, id).toMatch(/fixtures\.mcp\.safeTool/);
      }
      // Without fixtures.mcp.requiresSession the 400 is still observed, so the rule is judged.
      expect(byId.get('mcp.session.missing-400')?.verdict).toBe('pass');
      // The fake answers a missing token 401, so an expired token is owed 401 too: the profile has none to send.
      expect(byId.get('mcp.auth.expired-401')?.verdict).toBe('untestable');
      expect(byId.get('mcp.auth.expired-401')?.reason).toMatch(/mcp:expired/);
      const others = results.filter((r) => !r.rule.id.startsWith('mcp.sse.') && r.rule.id !== 'mcp.auth.expired-401');
      expect(others.map((r) => `${r.rule.id}: ${r.verdict}`)).toEqual(others.map((r) => `${r.rule.id}: pass`));
    } finally {
      await fake.close();
    }
  });
});
