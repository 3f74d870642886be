/** Limits: the per-principal rate limit is a 429, on POST /v8/missions as the error table names it. */
import { Inconclusive, section } from '../../../rule/index.ts';
import { noLimitWithinTier, planTierBurst } from '../../shared/declared-tier.ts';
import { fixture, newKey, postMission } from '../support/missions.ts';

const rule = section({ surface: 'v8', document: 'v8-integration-gateway.md', needs: { fixtures: ['v8.rateLimitCredential', 'v8.missions.succeeds'], bursts: true } });

export const rateLimit429 = rule({
  id: 'v8.missions.rate-limit-429',
  title: 'A principal over its rate limit is answered 429 (not 503 or any other status)',
  level: 'required',
  destructive: 'mutate',
  activeOnly: 'whether a principal was over its limit shows only in a burst apicert sizes to the declared tier: a recording cannot tell a 503 of an overloaded target from one given instead of 429',
  spec: { section: 'Limits; Errors', quote: 'A per-principal rate limit exists (`429`). … `429` rate limit for the principal' },
  async check(ctx) {
    const name = ctx.profile.fixtures.v8.rateLimitCredential;
    const probe = ctx.profile.credentials.find((c) => c.name === name && c.surfaces.includes('v8') && !c.expired);
    if (!probe) return ctx.untestable({ need: 'fixture', path: 'v8.rateLimitCredential', problem: `names "${name}", which is not an unexpired v8 credential of the profile` });
    if (!probe.scopes.includes('missions:write')) ctx.untestable({ need: 'fixture', path: 'v8.rateLimitCredential', problem: `names ${probe.name}, which does not hold missions:write` });
    const body = fixture(ctx, 'succeeds');
    const tier = ctx.profile.fixtures.v8.rateLimitTiers?.[probe.principal];
    const plan = tier ? planTierBurst(ctx, tier, `fixtures.v8.rateLimitTiers["${probe.principal}"]`) : undefined;
    const max = plan?.requests ?? ctx.profile.safety.rateLimitBurstMax;
    const started = performance.now();
    for (let sent = 1; sent <= max; sent += 1) {
      const res = await postMission(ctx, body, { key: newKey(), credential: probe, label: `burst create ${sent}` });
      if (res.status === 202) continue;
      ctx.expect(res.status === 429, `create ${sent} of the burst (a valid request) was answered ${res.status}: a principal over its rate limit gets 429`);
      ctx.expect(res.contentType.startsWith('application/problem+json'), `the 429 came with content-type "${res.contentType}", expected application/problem+json`);
      ctx.observe('creates until the first 429', sent);
      return;
    }
    if (plan) noLimitWithinTier(ctx, plan, max, performance.now() - started, `a per-principal rate limit exists (429), and principal ${probe.principal} was never limited`);
    // "Its numeric values: not shown": a limit above the burst is legal, so nothing was decided.
    throw new Inconclusive(`no 429 within safety.rateLimitBurstMax = ${max} creates as ${probe.name}: the limit's values are not shown, so it may lie above the burst; raise the bound, name a lower-tier principal, or declare its limit in fixtures.v8.rateLimitTiers`);
  },
});
