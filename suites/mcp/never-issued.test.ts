/**
 * mcp.session.never-issued without the profile's word on sessions: MCP names no answer for an id a
 * server never issued, so the rule judges only a server that showed it requires sessions (it refused
 * a ping without Mcp-Session-Id). A server that assigns ids without requiring them may serve it.
 */
import { describe, expect, it } from 'vitest';
import type { FaultId } from '../../src/fake/faults/index.ts';
import type { VariantId } from '../../src/fake/variants/index.ts';
import type { Profile } from '../../src/profile/schema.ts';
import { certify } from '../../src/runner/certify.ts';

/** The embedded profile without fixtures.mcp.requiresSession: the server's answers must show it. */
function silentOnSessions(profile: Profile): Profile {
  const { requiresSession: _dropped, ...mcp } = profile.fixtures.mcp;
  return { ...profile, fixtures: { ...profile.fixtures, mcp } };
}

async function verdict(options: { faults?: FaultId[]; variants?: VariantId[] }) {
  const { results } = await certify({ ...options, patterns: ['mcp.session.never-issued'], seed: 7, adjustEmbeddedProfile: silentOnSessions });
  expect(results).toHaveLength(1);
  return results[0]!;
}

describe.concurrent('mcp.session.never-issued, the profile silent on sessions', () => {
  it('ids assigned but not required: a never-issued id served is not judged', async () => {
    const r = await verdict({ variants: ['mcp.session/ids-not-required'] });
    expect(r.verdict, r.reason).toBe('not-applicable');
    expect(r.reason).toMatch(/does not require sessions/);
  });

  it('a server that refused a ping without an id and serves a never-issued one fails', async () => {
    const r = await verdict({ faults: ['mcp.session.never-issued/served'] });
    expect(r.verdict, r.reason).toBe('fail');
  });

  it('the fake refusing a never-issued id with 404 passes', async () => {
    const r = await verdict({});
    expect(r.verdict, r.reason).toBe('pass');
  });
});
