/**
 * Audit s26 /v1 F9: "Retry schedule, dead-letter rules and replay parameters: not shown." A deployment
 * whose first retry comes after fixtures.webhooks.deliveryTimeoutMs was failed by
 * v1.webhooks.delivery.retry; it is inconclusive, naming the remedy. A deployment that shows it gave up
 * after the one attempt (its listing item dead-lettered: the no-retry fault) is still failed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RETRY_DELAYS_MS } from '../../src/fake/v1/webhooks/engine.ts';
import type { Profile } from '../../src/profile/schema.ts';
import { certify } from '../../src/runner/certify.ts';

const RULE = 'v1.webhooks.delivery.retry';
const WATCH_MS = 4_000;
const delays = RETRY_DELAYS_MS as unknown as number[];
const original = [...delays];

function shortWatch(profile: Profile): Profile {
  return { ...profile, fixtures: { ...profile.fixtures, webhooks: { ...profile.fixtures.webhooks, deliveryTimeoutMs: WATCH_MS } } };
}

describe(`${RULE}: a first retry later than the watch`, () => {
  afterEach(() => {
    delays.splice(0, delays.length, ...original);
  });

  it('is inconclusive with the remedy when the first retry comes after deliveryTimeoutMs', { timeout: 30_000 }, async () => {
    // The in-process fake's schedule: its first retry a minute after a failed attempt (the fake's close cancels it).
    delays[0] = 60_000;
    const { results } = await certify({ patterns: [RULE], seed: 7, adjustEmbeddedProfile: shortWatch });
    const r = results.find((x) => x.rule.id === RULE)!;
    expect(r.verdict, r.reason).toBe('inconclusive');
    expect(r.reason).toContain(`not attempted again within ${WATCH_MS} ms`);
    expect(r.reason).toContain('Lengthen fixtures.webhooks.deliveryTimeoutMs');
  });

  it('still fails a delivery the listing shows dead-lettered after one attempt', { timeout: 30_000 }, async () => {
    const { results } = await certify({ patterns: [RULE], seed: 7, faults: ['v1.webhooks.delivery.retry/no-retry'], adjustEmbeddedProfile: shortWatch });
    const r = results.find((x) => x.rule.id === RULE)!;
    expect(r.verdict, r.reason).toBe('fail');
    expect(r.reason).toContain('dead_lettered');
  });
});
