/** Errors > Rules 1-2 and Limits: 429 over the limit, 503 when the limiter itself is down. */
import { type CheckContext, section } from '../../../rule/index.ts';
import { isRecord } from '../../../util/json.ts';
import { burstUntil429 } from '../support/rate-limit.ts';
import { isProblem, namedKey, problemCode } from '../support/fabric.ts';

/** A dedicated key: bursting the primary key would starve every rule running after this one. */
function burstOnDedicatedKey(ctx: CheckContext) {
  const key = namedKey(ctx, ctx.profile.fixtures.v1.rateLimitCredential, 'rateLimitCredential', 'on a tier a bounded burst can exhaust');
  return burstUntil429(ctx, key);
}

const rule = section({ surface: 'v1', document: 'v1-execution-fabric.md', needs: { credentials: ['v1:key'] } });

export const rateLimited = rule({
  id: 'v1.errors.rate-limited',
  title: 'Over the limit: 429, code rate_limited, retryable:true, retryAfterMs at least 0 when given',
  level: 'required',
  needs: { fixtures: ['v1.rateLimitCredential'], bursts: true },
  spec: {
    section: 'Errors > Rules 1; Limits',
    quote: 'Over the rate limit: HTTP `429`, `code` `rate_limited`, `retryable:true`, optional `retryAfterMs`.',
  },
  async check(ctx) {
    const { limited, sent } = await burstOnDedicatedKey(ctx);
    ctx.observe('requests until the first 429', sent);
    ctx.check(isProblem(limited), `the 429 came with content-type "${limited.contentType}", expected application/problem+json`, limited);
    ctx.check(problemCode(limited) === 'rate_limited', `the 429 carries code "${problemCode(limited)}", expected rate_limited`, limited);
    const body = isRecord(limited.json) ? limited.json : {};
    ctx.check(body.retryable === true, `the 429 says retryable: ${String(body.retryable)}, expected true`, limited);
    if (body.retryAfterMs !== undefined) {
      ctx.check(Number.isInteger(body.retryAfterMs) && (body.retryAfterMs as number) >= 0, `retryAfterMs is ${JSON.stringify(body.retryAfterMs)}, expected an integer of at least 0`, limited);
    }
  },
});

export const rateLimitedRetryAfter = rule({
  id: 'v1.errors.rate-limited-retry-after',
  title: 'A 429 carries a numeric Retry-After header (SHOULD: the seed says it "is expected")',
  // "is expected" is no requirement keyword: a 429 without it is a warning, gating only with --strict.
  level: 'should',
  needs: { fixtures: ['v1.rateLimitCredential'], bursts: true },
  spec: {
    section: 'Errors > Rules 1; Limits',
    quote: 'A numeric `Retry-After` header is expected alongside it.',
  },
  async check(ctx) {
    const { limited } = await burstOnDedicatedKey(ctx);
    const retryAfter = limited.headers['retry-after'];
    ctx.observe('Retry-After and retryAfterMs', { header: retryAfter ?? null, retryAfterMs: isRecord(limited.json) ? (limited.json.retryAfterMs ?? null) : null });
    ctx.expect(retryAfter !== undefined, 'the 429 carries no Retry-After header (clients then fall back to 60 seconds)');
    ctx.expect(/^\d+$/.test(retryAfter!.trim()), `Retry-After is "${retryAfter}", expected a number of seconds`);
  },
});

export const limiterUnavailable = rule({
  id: 'v1.errors.limiter-unavailable-503',
  title: 'When the rate limiter of a key is unavailable, requests fail closed with 503 (not 429, not served)',
  level: 'required',
  needs: { fixtures: ['v1.limiterUnavailableCredential'] },
  spec: {
    section: 'Errors > Rules 2; Limits',
    quote: 'When the rate-limit protection is itself unavailable on an API-key-authenticated surface: HTTP `503` (fail-closed). Clients must handle this differently from `429`. … Each API key has its own rate-limit tier, enforced fail-closed.',
  },
  async check(ctx) {
    const key = namedKey(ctx, ctx.profile.fixtures.v1.limiterUnavailableCredential, 'limiterUnavailableCredential', 'whose rate limiter is unavailable');
    const res = await ctx.http.send({ method: 'GET', path: '/v1/usage', credential: key, label: 'usage with a key whose limiter is unavailable' });
    ctx.check(res.status === 503, `a request on a tier whose limiter is unavailable answered ${res.status}, expected 503 (fail-closed)`);
    ctx.check(problemCode(res) !== 'rate_limited', 'the 503 carries code rate_limited, which a client cannot tell apart from being over the limit');
    ctx.observe('503 problem', { code: problemCode(res) ?? null, retryable: isRecord(res.json) ? (res.json.retryable ?? null) : null, retryAfter: res.headers['retry-after'] ?? null });
  },
});
