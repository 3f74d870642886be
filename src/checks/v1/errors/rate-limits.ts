/** Errors > Rules 1-2 and Limits: 429 over the limit, 503 when the limiter itself is down. */
import { type CheckContext, mediaType, section } from '../../../rule/index.ts';
import { hasWholeBody, onSurface, operation, recordOf, responseJson, wholeBody } from '../../../traffic/read.ts';
import { failClosedCase, failClosedProblemCases, rateLimitedCases, retryAfterCase } from '../../../traffic/answer-cases.ts';
import { isRecord } from '../../../util/json.ts';
import { burstUntil429 } from '../support/rate-limit.ts';
import { fixtureKey, problemCode } from '../support/fabric.ts';
import { callerOf } from '../support/traffic.ts';
import { scopeNotShownFor } from '../../generated/expectation.ts';
import { scopeRefusal } from '../../../traffic/scope-refusal.ts';
import { usageScope } from '../usage/usage.ts';
import { otherCauses } from './other-causes.ts';

/**
 * A dedicated key: bursting the primary key would starve every rule running after this one. Of any
 * principal: the 429 is judged on its own, nothing is retried on the primary key.
 */
function burstOnDedicatedKey(ctx: CheckContext) {
  const key = fixtureKey(ctx, ctx.profile.fixtures.v1.rateLimitCredential, 'rateLimitCredential', 'on a tier a bounded burst can exhaust');
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
  judgement: {
    // Whether a request is over the limit is the limiter's secret: its answer, a 429 or a problem saying rate_limited, is the subject.
    // Not a 503: Rule 2 gives it to an unavailable limiter, whose code is open ("Mapping of each `code` to an HTTP status: not
    // shown.", no ErrorCode names that case), so rate_limited on it says nothing of being over the limit. Rule 1 runs one way only.
    record: 'a /v1 request answered 429, or refused with code rate_limited and a status other than 503',
    judge(j) {
      for (const ex of j.exchanges) {
        if (!onSurface(ex, 'v1') || ex.status === undefined || ex.status < 400 || ex.status === 503) continue;
        const body = recordOf(responseJson(ex));
        if (ex.status !== 429 && body?.code !== 'rate_limited') continue;
        if (!j.check(ex, ex.status === 429, `a refusal with code rate_limited answered ${ex.status}, expected 429`)) continue;
        // An answer to HEAD has no content (RFC 9110 9.3.2: "The server MUST NOT send content in the
        // response"): its status and, when it sends one, its content-type are all there is to judge.
        const head = ex.method === 'HEAD';
        if (head && mediaType(ex.responseHeaders) === '') continue;
        if (!j.check(ex, mediaType(ex.responseHeaders) === 'application/problem+json', `the 429 came with content-type "${mediaType(ex.responseHeaders)}", expected application/problem+json`)) continue;
        if (head || wholeBody(j, ex) === undefined) continue;
        for (const c of rateLimitedCases(body)) j.check(ex, c.ok, c.why);
      }
    },
  },
  async provoke(ctx) {
    const { sent } = await burstOnDedicatedKey(ctx);
    ctx.observe('requests until the first 429', sent);
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
  judgement: {
    record: 'a /v1 request answered 429',
    judge(j) {
      for (const ex of j.exchanges) {
        if (!onSurface(ex, 'v1') || ex.status !== 429) continue;
        const c = retryAfterCase(ex.responseHeaders['retry-after']);
        j.check(ex, c.ok, c.why);
      }
    },
  },
  async provoke(ctx) {
    const { limited } = await burstOnDedicatedKey(ctx);
    ctx.observe('Retry-After and retryAfterMs', { header: limited.headers['retry-after'] ?? null, retryAfterMs: isRecord(limited.json) ? (limited.json.retryAfterMs ?? null) : null });
  },
});

export const limiterUnavailable = rule({
  id: 'v1.errors.limiter-unavailable-503',
  title: 'When the rate limiter of a key is unavailable, requests fail closed with 503 (not 429, not served), and the 503 says retryable: true',
  level: 'required',
  needs: { fixtures: ['v1.limiterUnavailableCredential'] },
  spec: {
    section: 'Errors > Rules 2 and 3; Errors; Limits',
    quote:
      'When the rate-limit protection is itself unavailable on an API-key-authenticated surface: HTTP `503` (fail-closed). Clients must handle this differently from `429`. … Each API key has its own rate-limit tier, enforced fail-closed. … retryable | boolean | yes | authoritative retry signal for this response … `429` and `503` are safe to retry with the same idempotency key, because nothing was accepted.',
  },
  judgement: {
    record: 'a /v1 request carrying the key whose limiter is unavailable (fixtures.v1.limiterUnavailableCredential)',
    judge(j) {
      // Which key's limiter is down is not in the traffic: the profile names it.
      const name = j.profile?.fixtures.v1.limiterUnavailableCredential;
      const served = new Set<string>();
      const refused: Array<{ key: string; status: number; code: unknown }> = [];
      let judged = false;
      for (const ex of j.exchanges) {
        if (!onSurface(ex, 'v1') || ex.status === undefined || ex.requestHeaders.authorization === undefined) continue;
        if (name === undefined) j.untestable({ need: 'fixture', path: 'v1.limiterUnavailableCredential', remedy: 'name the credential whose rate limiter is unavailable' });
        const key = j.credentialOf(ex);
        if (key === undefined || key.name !== name) continue;
        // A fail-open limiter serves the key: it holds that operation's scope from then on.
        const op = `${operation(ex)}\n${callerOf(ex)}`;
        if (ex.status >= 200 && ex.status < 300) served.add(op);
        if (ex.status >= 400 && ex.status < 500 && ex.status !== 429 && scopeNotShownFor(ex) && !served.has(op)) {
          // Only the refusal's code tells a missing scope from any other refusal: without it, the exchange is not judged.
          if (!hasWholeBody(ex)) {
            wholeBody(j, ex);
            continue;
          }
          if (scopeRefusal({ status: ex.status, json: responseJson(ex) })) {
            refused.push({ key: key.name, status: ex.status, code: recordOf(responseJson(ex))?.code });
            continue;
          }
        }
        judged = true;
        // A request that also carries another cause (a malformed body, a run not shown to this caller) may be refused for it first.
        const others = otherCauses(j, ex, key.principal);
        const refusedOtherwise = others.find((c) => c.refuses(ex));
        const closed = failClosedCase(ex.status, others.length === 0 ? undefined : { what: (refusedOtherwise ?? others[0]!).what, refused: refusedOtherwise !== undefined });
        if (!j.check(ex, closed.ok, closed.why) || ex.status !== 503) continue;
        if (ex.method === 'HEAD' || wholeBody(j, ex) === undefined) continue;
        for (const c of failClosedProblemCases(recordOf(responseJson(ex)))) j.check(ex, c.ok, c.why);
      }
      if (refused.length === 0) return;
      if (!judged) j.untestable(usageScope(refused, 'v1 key named by fixtures.v1.limiterUnavailableCredential, holding the scope this deployment asks for the requests it was refused'));
      j.observe('requests on the limiter-down key refused for a scope the description does not show (not judged)', refused.length);
    },
  },
  async provoke(ctx) {
    // Of any principal, as the judgement reads it: the 503 is judged on its own, nothing is retried on the primary key.
    const key = fixtureKey(ctx, ctx.profile.fixtures.v1.limiterUnavailableCredential, 'limiterUnavailableCredential', 'whose rate limiter is unavailable');
    const res = await ctx.http.send({ method: 'GET', path: '/v1/usage', credential: key, label: 'usage with a key whose limiter is unavailable' });
    ctx.observe('503 problem', { code: problemCode(res) ?? null, retryAfter: res.headers['retry-after'] ?? null });
  },
});
