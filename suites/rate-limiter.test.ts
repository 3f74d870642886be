import { describe, expect, it } from 'vitest';
import { startFake } from '../src/fake/server.ts';
import { createFakeContext } from '../src/fake/context.ts';
import { DEFAULT_RATE_LIMITS, LIMITER_DOWN, mergeRateLimits, RateLimiter, type RateLimits } from '../src/fake/rate-limit.ts';
import { RATE_PROBE_PRINCIPAL } from '../scenarios/v8/principal.ts';

const limits = (v1: RateLimits['v1'], v8: RateLimits['v8'] = { principals: {} }): RateLimits => ({ v1, v8 });

describe('the fake rate limiter', () => {
  it('lets a key through its tier, then answers limited with the time left', () => {
    const limiter = new RateLimiter(limits({ credentials: { probe: { requests: 3, windowSeconds: 60 } } }));
    const decisions = [0, 1, 2, 3, 4].map((i) => limiter.v1('k', 'probe', 1_000 + i));
    expect(decisions.slice(0, 3).map((d) => d.kind)).toEqual(['ok', 'ok', 'ok']);
    // `refused` counts the window's refusals, for the load faults that bite only deep into a burst.
    expect(decisions.slice(3)).toEqual([
      { kind: 'limited', retryAfterMs: 60_000 - 3, refused: 1 },
      { kind: 'limited', retryAfterMs: 60_000 - 4, refused: 2 },
    ]);
  });

  it('opens a new window once the old one has passed', () => {
    const limiter = new RateLimiter(limits({ credentials: { probe: { requests: 1, windowSeconds: 1 } } }));
    expect(limiter.v1('k', 'probe', 0).kind).toBe('ok');
    expect(limiter.v1('k', 'probe', 999).kind).toBe('limited');
    expect(limiter.v1('k', 'probe', 1_000).kind).toBe('ok');
  });

  it('keeps keys and surfaces apart, and leaves a caller without a tier unlimited', () => {
    const tier = { requests: 1, windowSeconds: 60 };
    const limiter = new RateLimiter(limits({ default: tier, credentials: {} }, { principals: { p: tier } }));
    expect([limiter.v1('a', undefined, 0), limiter.v1('b', 'named-without-tier', 0), limiter.v8('p', 0)].map((d) => d.kind)).toEqual(['ok', 'ok', 'ok']);
    expect(limiter.v1('a', undefined, 1).kind).toBe('limited');
    const unlimited = Array.from({ length: 2_000 }, (_, i) => limiter.v8('q', i).kind);
    expect(unlimited.every((k) => k === 'ok')).toBe(true);
  });

  it('counts a pooled bucket under the strictest /v8 tier, whoever calls (the global-bucket fault)', () => {
    const limiter = new RateLimiter(limits({ credentials: {} }, { principals: { probe: { requests: 2, windowSeconds: 60 }, roomy: { requests: 1_000, windowSeconds: 1 } } }));
    expect([limiter.v8Pooled('probe', 0), limiter.v8Pooled('roomy', 0), limiter.v8Pooled('roomy', 0)].map((d) => d.kind)).toEqual(['ok', 'ok', 'limited']);
    expect(limiter.v8Pooled('unnamed', 0).kind).toBe('ok');
  });

  it('fails closed on a key whose limiter is unavailable', () => {
    expect(new RateLimiter(limits({ credentials: { down: LIMITER_DOWN } })).v1('k', 'down').kind).toBe('unavailable');
  });
});

describe('the fake’s rate-limit configuration', () => {
  it('limits only the probes by default', () => {
    const { rateLimits } = createFakeContext().config;
    expect(rateLimits).toEqual(DEFAULT_RATE_LIMITS);
    expect(rateLimits.v8.default).toBeUndefined();
    expect(rateLimits.v8.principals[RATE_PROBE_PRINCIPAL]).toEqual({ requests: 10, windowSeconds: 60 });
  });

  it('replaces a surface’s default and adds named tiers to the fake’s own', () => {
    const tier = { requests: 5, windowSeconds: 1 };
    const merged = mergeRateLimits(DEFAULT_RATE_LIMITS, { v1: { default: undefined, credentials: { extra: tier } }, v8: { default: tier } });
    expect(merged.v1.default).toBeUndefined();
    expect(merged.v1.credentials).toEqual({ ...DEFAULT_RATE_LIMITS.v1.credentials, extra: tier });
    expect(merged.v8).toEqual({ default: tier, principals: DEFAULT_RATE_LIMITS.v8.principals });
  });

  it('answers 429 with Retry-After to a /v8 principal over its configured tier, and not to another', async () => {
    const fake = await startFake({ config: { rateLimits: { v8: { principals: { 'principal-a': { requests: 2, windowSeconds: 60 } } } } } });
    try {
      const full = fake.context.tokens.issue('v8at_', { principal: 'principal-a', tenant: 'tenant-a', scopes: ['missions:read'], expired: false });
      const other = fake.context.tokens.issue('v8at_', { principal: 'principal-b', tenant: 'tenant-a', scopes: ['missions:read'], expired: false });
      const get = (token: string) => fetch(`${fake.baseUrl}/v8/missions/absent`, { headers: { authorization: `Bearer ${token}` } });
      const statuses = [];
      for (let i = 0; i < 3; i += 1) statuses.push((await get(full)).status);
      expect(statuses).toEqual([404, 404, 429]);
      const refused = await get(full);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect((await get(other)).status).toBe(404);
    } finally {
      await fake.close();
    }
  });
});
