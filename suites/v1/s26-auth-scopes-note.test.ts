/**
 * Audit s26 /v1 F8: v1.auth.scopes noted every non-authorization 4xx of a valid key as a scope refusal,
 * though endpointCalls approves a completed run: a key holding the scope approve needs was answered 409
 * for the run's state, as the primary key is. The note is kept for a call the primary key is served.
 */
import { describe, expect, it } from 'vitest';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { startFake } from '../../src/fake/server.ts';
import { certify } from '../../src/runner/certify.ts';

const NOTE = 'expected authorization_failed or entitlement_failed for a valid key lacking a scope';

describe('v1.auth.scopes: the scope note only where the primary key is served', () => {
  it('does not call a state refusal of a key holding runs:write a scope refusal', { timeout: 60_000 }, async () => {
    const fake = await startFake();
    try {
      const base = embeddedProfile(fake);
      const primary = base.credentials.find((c) => c.name === 'v1-full')!;
      const token = fake.context.tokens.issue('service_sk_', { principal: primary.principal!, tenant: primary.tenant!, scopes: ['runs:write'], expired: false });
      const writeOnly = { ...primary, name: 'v1-write-only', token, scopes: ['runs:write'] };
      const profile = { ...base, credentials: [...base.credentials, writeOnly] };
      const { results } = await certify({ profile, patterns: ['v1.auth.scopes'], seed: 5 });
      const r = results.find((x) => x.rule.id === 'v1.auth.scopes')!;
      const notes = r.observations.filter((o) => o.subject.endsWith('refusal code of a valid key'));
      const approve = notes.find((o) => o.subject === 'approve: refusal code of a valid key');
      expect(approve, JSON.stringify(notes)).toBeDefined();
      expect(approve!.value).toBe('conflict');
      expect(approve!.note).not.toBe(NOTE);
      expect(approve!.note).toContain('need not be about scope');
    } finally {
      await fake.close();
    }
  });
});
