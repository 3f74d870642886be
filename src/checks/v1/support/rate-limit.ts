/** Bounded bursts for the rate-limit rules: only when the profile allows them, never past the first 429. */
import type { CheckContext, ProbeResponse } from '../../../rule/index.ts';
import type { Credential } from '../../../profile/schema.ts';

export function requireBursts(ctx: CheckContext): void {
  if (!ctx.profile.safety.allowRateLimitBursts) {
    ctx.untestable('the rule sends a burst of requests until the first 429, and the profile sets safety.allowRateLimitBursts: false');
  }
}

/**
 * Sends GET /v1/usage with `credential` until the first 429, at most `safety.rateLimitBurstMax`
 * requests; returns that 429 answer. Without one the rule is untestable (the tier is higher than the burst).
 */
export async function burstUntil429(ctx: CheckContext, credential: Credential): Promise<{ limited: ProbeResponse; sent: number }> {
  requireBursts(ctx);
  const max = ctx.profile.safety.rateLimitBurstMax;
  for (let sent = 1; sent <= max; sent += 1) {
    const res = await ctx.http.send({ method: 'GET', path: '/v1/usage', credential, label: `burst request ${sent}` });
    if (res.status === 429) return { limited: res, sent };
    if (res.status >= 400 && res.status !== 429) ctx.inconclusive(`the burst was refused with ${res.status} before any 429, after ${sent} request(s)`);
  }
  ctx.untestable(`no 429 within safety.rateLimitBurstMax = ${max} requests with credential ${credential.name}: raise the bound or name a lower-tier key in fixtures.v1.rateLimitCredential`);
}
