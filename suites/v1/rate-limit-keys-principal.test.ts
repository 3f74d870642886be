import { describe, expect, it } from 'vitest';
import type { Profile } from '../../src/profile/schema.ts';
import { profileTemplate } from '../../src/profile/template.ts';
import { certify } from '../../src/runner/certify.ts';

/**
 * A profile may give the rate-probe and limiter-down keys a principal of their own (audit fw1, F8): the
 * v1.errors rules judge those keys' own answers and need no shared idempotency keys; only the
 * idempotency retry rules, which retry on the primary key, need its principal and tenant.
 */
const ERRORS = ['v1.errors.rate-limited', 'v1.errors.rate-limited-retry-after', 'v1.errors.limiter-unavailable-503'];
const RETRIES = ['v1.execute.idempotency.retry-after-429', 'v1.execute.idempotency.retry-after-503'];
const SHARED = 'so idempotency keys are shared';

/** The fake's rate-limit keys, labelled with another principal: its tiers go by key name, so the keys behave as before. */
function ownPrincipal(p: Profile): Profile {
  const limiterKeys = [p.fixtures.v1.rateLimitCredential, p.fixtures.v1.limiterUnavailableCredential];
  return { ...p, credentials: p.credentials.map((c) => (limiterKeys.includes(c.name) ? { ...c, principal: 'v1-dave' } : c)) };
}

describe('rate-limit keys of another principal', () => {
  it('judge the v1.errors rate-limit rules; only the idempotency retry rules need the primary principal', async () => {
    // Old code: the three v1.errors rules went untestable "... whose principal and tenant are not those of v1-full: they must be the same, so idempotency keys are shared".
    const { results } = await certify({ surfaces: ['v1'], patterns: [...ERRORS, ...RETRIES], seed: 5, adjustEmbeddedProfile: ownPrincipal });
    const verdict = (id: string) => results.find((r) => r.rule.id === id);
    for (const id of ERRORS) {
      expect(verdict(id)?.reason ?? '', id).not.toContain(SHARED);
      expect(verdict(id)?.verdict, `${id}: ${verdict(id)?.reason}`).toBe('pass');
    }
    for (const id of RETRIES) expect(verdict(id), id).toMatchObject({ verdict: 'untestable', reason: expect.stringContaining(SHARED) });
  }, 120_000);

  it('are explained in the profile template: which rule needs which key of the primary principal', () => {
    const lines = profileTemplate().split('\n');
    const block = (name: string) => lines.slice(lines.findIndex((l) => l.includes(`name: ${name} `)), lines.findIndex((l) => l.includes(`name: ${name} `)) + 8).join('\n');
    expect(block('v1-rate-probe')).toContain("v1-full's principal and tenant for v1.execute.idempotency.retry-after-429");
    expect(block('v1-limiter-down')).toContain("v1-full's principal and tenant for v1.execute.idempotency.retry-after-503");
    expect(block('v1-rate-probe')).toContain('any principal for the v1.errors rules');
  });
});
