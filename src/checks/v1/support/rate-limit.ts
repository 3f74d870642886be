/** Bounded bursts for the rate-limit rules: only when the profile allows them, never past the first 429. */
import { type CheckContext, type ProbeResponse, RUN_JOURNAL } from '../../../rule/index.ts';
import type { Credential } from '../../../profile/schema.ts';
import { operation } from '../../../traffic/read.ts';
import { noLimitWithinTier, planTierBurst } from '../../shared/declared-tier.ts';
import { scopeRefusal } from '../../../traffic/scope-refusal.ts';
import { usageScope } from '../usage/usage.ts';
import { problemCode } from './fabric.ts';

export function requireBursts(ctx: CheckContext): void {
  if (!ctx.profile.safety.allowRateLimitBursts) {
    ctx.untestable({ need: 'bursts' });
  }
}

/**
 * Sends GET /v1/usage with `credential` until the first 429, at most `safety.rateLimitBurstMax`
 * requests; returns that 429 answer. A valid request refused otherwise before any 429 is the
 * server's failure. No 429 within the bound is inconclusive (tier values are not shown, so the
 * tier may be above the burst), never untestable, which would blame the profile; unless the
 * profile declares the key's tier (fixtures.v1.rateLimitTiers), when a burst past it is a failure.
 */
export async function burstUntil429(ctx: CheckContext, credential: Credential): Promise<{ limited: ProbeResponse; sent: number }> {
  requireBursts(ctx);
  const tier = ctx.profile.fixtures.v1.rateLimitTiers?.[credential.name];
  const plan = tier ? planTierBurst(ctx, tier, `fixtures.v1.rateLimitTiers["${credential.name}"]`) : undefined;
  const max = plan?.requests ?? ctx.profile.safety.rateLimitBurstMax;
  const started = performance.now();
  let served = usageServedBefore(ctx, credential);
  for (let sent = 1; sent <= max; sent += 1) {
    const res = await ctx.http.send({ method: 'GET', path: '/v1/usage', credential, label: `burst request ${sent}` });
    if (res.status === 429) return { limited: res, sent };
    if (res.status >= 200 && res.status < 300) served = true;
    if (!served && scopeRefusal(res)) ctx.untestable(usageScopeOf(credential, res));
    // 503 is the fail-closed answer of an unavailable limiter (Errors > Rules 2): legal, but it decides nothing here.
    if (res.status === 503) ctx.inconclusive(`request ${sent} of the burst was answered 503 (the rate-limit protection is unavailable), so no 429 could be reached`);
    if (res.status >= 400) ctx.fail(`request ${sent} of the burst, a valid GET /v1/usage, was refused with ${res.status} before any 429: over the rate limit the answer is 429`);
  }
  if (plan) noLimitWithinTier(ctx, plan, max, performance.now() - started, 'each API key has its own rate-limit tier, enforced fail-closed');
  ctx.inconclusive(`no 429 within safety.rateLimitBurstMax = ${max} requests with credential ${credential.name}: the key's tier is not shown, so it may lie above the burst; raise the bound, name a lower-tier key in fixtures.v1.rateLimitCredential, or declare its tier in fixtures.v1.rateLimitTiers`);
}

/**
 * "Scopes required by the other `/v1` endpoints: not shown.": usage may need a scope this key does
 * not hold, so a 4xx authorization_failed or entitlement_failed to a key usage never served is no
 * answer of its limiter (nor a failure): the key cannot be burst or read on usage, and the profile
 * cannot say which scope to list. `credential` is the fixture's key: another key has another tier.
 */
function usageScopeOf(credential: Credential, res: ProbeResponse) {
  return usageScope([{ key: credential.name, status: res.status, code: problemCode(res) ?? null }], 'v1 key named by fixtures.v1.rateLimitCredential, holding the scope this deployment asks for GET /v1/usage');
}

/** Whether the run's journal shows usage answered 2xx to `credential`: a key usage served holds its scope, and a later 4xx to it is judged. */
function usageServedBefore(ctx: CheckContext, credential: Credential): boolean {
  const journal = ctx.service(RUN_JOURNAL);
  return journal?.exchanges.some((ex) => ex.credential === credential.name && operation(ex) === 'v1.usage.get' && ex.status !== undefined && ex.status >= 200 && ex.status < 300) ?? false;
}
