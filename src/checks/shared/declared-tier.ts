/**
 * Bursts against a rate-limit tier the profile declares. The seeds give no numbers, so without a
 * declaration a burst that meets no 429 decides nothing; with one, it is a failure.
 */
import type { CheckContext } from '../../rule/index.ts';
import type { RateLimitTier } from '../../profile/fixtures/rate-limit-tier.ts';

export interface TierPlan {
  tier: RateLimitTier;
  /** Where the profile declares it, for messages. */
  declaredAt: string;
  /** Requests the burst sends at most. */
  requests: number;
  windowMs: number;
}

function describeTier(tier: RateLimitTier): string {
  return `${tier.requests} requests per ${tier.windowSeconds} s`;
}

/**
 * The burst that proves a declared tier: 2N+1 requests inside one window's length put more than N
 * into some window whether the deployment counts fixed windows, a sliding window or a token bucket
 * of that rate, so no legal way of counting can answer them all. Untestable, naming the bound, when
 * the run's request budget or the burst bound cannot pay for it.
 */
export function planTierBurst(ctx: CheckContext, tier: RateLimitTier, declaredAt: string): TierPlan {
  const requests = 2 * tier.requests + 1;
  const left = ctx.http.remainingRequests();
  const burstMax = ctx.profile.safety.rateLimitBurstMax;
  const what = `the tier declared in ${declaredAt} (${describeTier(tier)}) takes ${requests} requests to prove (twice the tier and one, inside one window)`;
  if (requests > left) ctx.untestable({ need: 'setting', name: 'safety.requestBudget', remedy: `${what}, more than the request budget allows (${left} left of safety.requestBudget = ${ctx.profile.safety.requestBudget}): raise safety.requestBudget or declare a lower tier` });
  if (requests > burstMax) ctx.untestable({ need: 'setting', name: 'safety.rateLimitBurstMax', remedy: `${what}, more than safety.rateLimitBurstMax = ${burstMax}: raise it or declare a lower tier` });
  return { tier, declaredAt, requests, windowMs: tier.windowSeconds * 1000 };
}

/** Ends a tier burst that met no 429: a failure when every request fell inside one window, else nothing was decided. */
export function noLimitWithinTier(ctx: CheckContext, plan: TierPlan, sent: number, elapsedMs: number, rule: string): never {
  if (elapsedMs >= plan.windowMs) {
    ctx.inconclusive(`${sent} requests took ${Math.round(elapsedMs)} ms, longer than the declared window of ${plan.tier.windowSeconds} s (${plan.declaredAt}), and none was answered 429: too slow a burst decides nothing`);
  }
  ctx.fail(`${sent} requests within ${Math.round(elapsedMs)} ms, more than the tier declared in ${plan.declaredAt} (${describeTier(plan.tier)}) allows in any window, and none was answered 429: ${rule}`);
}
