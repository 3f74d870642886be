/**
 * The generated rules under a rate limit (helper-115): the engine backed off at most 2 s, twice, and
 * then left a request a limiter refused unjudged, and the rules passed on what they judged (at 60
 * requests a minute, 327 of 795 requests went unjudged and all five passed). It now waits what the
 * 429/503 asks for, bounded as the catalogue bounds it (src/checks/shared/limited-wait.ts), and sends
 * again; a request still answered only by the limiter leaves its rule inconclusive, as the
 * catalogue's limited cases do ("Per-key tier values and request-rate numbers: not shown").
 */
import { describe, expect, it } from 'vitest';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { startFake } from '../../src/fake/server.ts';
import type { RateTier } from '../../src/fake/rate-limit.ts';
import type { RuleResult } from '../../src/rule/index.ts';
import { certify } from '../../src/runner/certify.ts';

const GENERATED = ['no-5xx', 'problem-json', 'error-status', 'accepts-valid'].map((a) => `v1.contract.generated.${a}`);

/** The /v1 generated rules, read-only (some 50 reads, each through the limiter) and no random bodies, with the primary key on `tier`. */
async function generatedUnder(tier: RateTier): Promise<Record<string, RuleResult>> {
  const fake = await startFake({ config: { rateLimits: { v1: { credentials: { 'v1-full': tier } } } } });
  try {
    const profile = embeddedProfile(fake);
    const small = { ...profile, safety: { ...profile.safety, allowMutations: false, generatedExamples: 0 } };
    const { results } = await certify({ profile: small, rules: [...GENERATED, 'v1.contract.generated.response-schema'], seed: 5 });
    return Object.fromEntries(results.map((r) => [r.rule.id, r]));
  } finally {
    await fake.close();
  }
}

const unjudged = (r: RuleResult | undefined) => r?.observations.find((o) => /left unjudged after backing off/.test(o.subject))?.value;

describe('the generated engine under a rate limit', () => {
  it('waits what a 429 asks for (a 10 s window, past the old back-off of 2 s twice) and judges every request it sent', { timeout: 60_000 }, async () => {
    const by = await generatedUnder({ requests: 20, windowSeconds: 10 });
    expect(unjudged(by['v1.contract.generated.no-5xx'])).toBeUndefined();
    for (const id of GENERATED) expect(by[id]?.verdict, `${id}: ${by[id]?.reason}`).toBe('pass');
  });

  it('a request still answered only by the limiter (an hour\'s window) leaves the rules inconclusive, saying so, not passing on the others', { timeout: 60_000 }, async () => {
    const by = await generatedUnder({ requests: 10, windowSeconds: 3600 });
    expect(Number(unjudged(by['v1.contract.generated.no-5xx']))).toBeGreaterThan(0);
    // error-status's cases (must refuse) were answered before the per-key limiter here: it judged them all.
    for (const id of ['v1.contract.generated.no-5xx', 'v1.contract.generated.problem-json', 'v1.contract.generated.accepts-valid']) {
      expect(by[id]?.verdict, `${id}: ${by[id]?.reason}`).toBe('inconclusive');
      expect(by[id]?.reason ?? '').toMatch(/answered only by a rate limiter \(429\), never by the API/);
    }
    expect(by['v1.contract.generated.error-status']?.verdict).not.toBe('fail');
  });
});
