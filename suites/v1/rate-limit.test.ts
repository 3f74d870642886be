import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/fake/v1/rate-limit.ts';
import { certify } from '../../src/runner/certify.ts';

describe('the fake rate limiter', () => {
  it('lets a probe-tier key through its window, then answers limited with the time left', () => {
    const limiter = new RateLimiter(3, 60_000);
    const decisions = [0, 1, 2, 3, 4].map((i) => limiter.take('k', 'probe', 1_000 + i));
    expect(decisions.slice(0, 3).map((d) => d.kind)).toEqual(['ok', 'ok', 'ok']);
    // `refused` counts the window's refusals, for the load faults that bite only deep into a burst.
    expect(decisions.slice(3)).toEqual([
      { kind: 'limited', retryAfterMs: 60_000 - 3, refused: 1 },
      { kind: 'limited', retryAfterMs: 60_000 - 4, refused: 2 },
    ]);
  });

  it('opens a new window once the old one has passed', () => {
    const limiter = new RateLimiter(1, 1_000);
    expect(limiter.take('k', 'probe', 0).kind).toBe('ok');
    expect(limiter.take('k', 'probe', 999).kind).toBe('limited');
    expect(limiter.take('k', 'probe', 1_000).kind).toBe('ok');
  });

  it('keeps keys apart and gives standard keys a window a certification run cannot exhaust', () => {
    const limiter = new RateLimiter(1, 60_000);
    expect(limiter.take('a', 'probe', 0).kind).toBe('ok');
    expect(limiter.take('b', 'probe', 0).kind).toBe('ok');
    const standard = Array.from({ length: 2_000 }, (_, i) => limiter.take('c', 'standard', i).kind);
    expect(standard.every((k) => k === 'ok')).toBe(true);
  });

  it('fails closed on a tier whose limiter is unavailable', () => {
    expect(new RateLimiter(100, 60_000).take('k', 'unavailable').kind).toBe('unavailable');
  });
});

describe('declared rate-limit tiers (fixtures.v1.rateLimitTiers, fixtures.v8.rateLimitTiers)', () => {
  const rules = ['v1.errors.rate-limited', 'v8.missions.rate-limit-429'];

  it('without a declaration a limiter that never limits stays inconclusive, as before', async () => {
    const { results } = await certify({
      faults: ['v1.errors.rate-limited/never-limits', 'v8.missions.rate-limit-429/never-limits'],
      patterns: rules,
      seed: 3,
      adjustEmbeddedProfile: (p) => ({ ...p, fixtures: { ...p.fixtures, v1: { ...p.fixtures.v1, rateLimitTiers: undefined }, v8: { ...p.fixtures.v8, rateLimitTiers: undefined } } }),
    });
    expect(results.map((r) => [r.rule.id, r.verdict]).sort()).toEqual(rules.map((id) => [id, 'inconclusive']).sort());
  });

  it('a declared tier the request budget cannot prove is untestable, saying so; nothing is sent', async () => {
    const { results } = await certify({
      patterns: rules,
      seed: 3,
      adjustEmbeddedProfile: (p) => ({ ...p, safety: { ...p.safety, requestBudget: 40 } }),
    });
    const v1 = results.find((r) => r.rule.id === 'v1.errors.rate-limited')!;
    expect(v1.verdict, v1.reason).toBe('untestable');
    expect(v1.reason).toMatch(/fixtures\.v1\.rateLimitTiers\["v1-rate-probe"\] \(120 requests per 60 s\) takes 241 requests.*safety\.requestBudget = 40/);
    expect(v1.evidence).toEqual([]);
  });
});
