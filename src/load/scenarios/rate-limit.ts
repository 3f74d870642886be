/**
 * Rate limits under a rising arrival rate. Each iteration sends one request and judges its answer,
 * so the verdict holds for any share of the load (one k6 instance or one execution segment).
 */
import { parseJsonObject, Verdicts, type LoadRequest, type LoadResponse, type StepResult, type Transport } from '../transport.ts';
import { failClosedCase, failClosedProblemCases, problemStatusCase, problemTypeCase, rateLimitedCases, retryAfterCase } from '../../traffic/answer-cases.ts';
import { bearer } from './common.ts';
import { SCOPE_CODES, scopeRefusalCode, type ScopeCode } from '../../traffic/scope-refusal.ts';

export interface RateConfig {
  baseUrl: string;
  token: string;
  /** Milliseconds since the ramp started, for where the first 429 came. */
  elapsedMs: () => number;
  /** The arrival rate the ramp has reached now (requests/s); the seed gives no limit, so this is where it showed. */
  arrivalRate: () => number;
  /**
   * Whether this runner (a k6 VU, one ramp in vitest) saw the ramp's key served: a later 4xx to the
   * same request can then only be the limit speaking. Absent, only a refusal saying rate_limited is judged so.
   */
  keyServed?: { seen: boolean };
}

/**
 * "Over the rate limit: HTTP `429`, `code` `rate_limited`" (v1 Errors > Rules 1), judged as certify
 * judges it (v1.errors.rate-limited and its burst): a refusal whose body says rate_limited, or another
 * 4xx to the very request the key was served before (not 401: a credential may lapse), is the limit
 * answered with another status.
 */
const OVER_LIMIT_IS_429 = 'over the rate limit the answer is 429 ("Over the rate limit: HTTP 429, code rate_limited"): no refusal saying rate_limited, nor another 4xx to a key served before, has another status';

/** Figures of the v1 rate-limit script: the k6 script declares a Trend for each. */
export const V1_RATE_FIGURES = {
  at429Ms: 'v1_rate_429_at_ms',
  at429Rps: 'v1_rate_429_at_rps',
  at503Ms: 'v1_rate_503_at_ms',
  /** The limit answered with another status than 429 (value: that status), and when. */
  limitOtherStatus: 'v1_rate_limit_other_status',
  limitOtherAtMs: 'v1_rate_limit_other_at_ms',
  /** A 5xx other than 503 that does not say it is the limit (value: its status): recorded, not judged. */
  other5xx: 'v1_rate_other_5xx',
  /** The ramp's key refused 401/403 before a runner saw it served, for no scope the body names (value: status). */
  rampCredentialRefused: 'v1_ramp_credential_refused',
} as const;

/** A refusal naming a scope, per code (value: its status): `who` is `ramp` or `limiter_down`. */
export function scopeRefusedFigure(who: 'ramp' | 'limiter_down', code: ScopeCode): string {
  return `v1_${who}_scope_refused_${code}`;
}

export const V1_RATE_FIGURE_NAMES: readonly string[] = [...Object.values(V1_RATE_FIGURES), ...SCOPE_CODES.flatMap((c) => [scopeRefusedFigure('ramp', c), scopeRefusedFigure('limiter_down', c)])];

function overLimitOtherwise(res: LoadResponse, c: RateConfig): boolean {
  if (res.status === 429 || res.status < 400 || res.status >= 500) return false;
  return parseJsonObject(res.body)?.code === 'rate_limited' || (res.status !== 401 && c.keyServed?.seen === true);
}

/** Judges one /v1 429 against the error rules. */
function judgeV1Refusal(v: Verdicts, res: LoadResponse, c: RateConfig): void {
  for (const c of rateLimitedCases(parseJsonObject(res.body))) v.judgeCase('load.v1.rate-limit.429-shape', c);
  v.judgeCase('load.v1.rate-limit.retry-after', retryAfterCase(res.headers['retry-after']));
  v.judge('load.v1.rate-limit.limit-reached', true, 'a 429 was seen');
  v.figure(V1_RATE_FIGURES.at429Ms, c.elapsedMs());
  v.figure(V1_RATE_FIGURES.at429Rps, c.arrivalRate());
}

/**
 * "Each API key has its own rate-limit tier, enforced fail-closed." speaks of the limiter: a 5xx
 * other than the fail-closed 503 is its answer only when it says so (code rate_limited). Any other
 * 5xx under load (an overloaded backend, a proxy's 502) breaks no sentence ("Mapping of each `code`
 * to an HTTP status: not shown.") and is only recorded.
 */
const LIMITER_5XX = 'the limiter refuses with 429, or 503 when it is itself unavailable: no answer saying rate_limited has another 5xx';

/**
 * A refusal of a key a runner never saw served, before any limit could speak: a scope the
 * description does not show (certify's `scopeRefusal`) or a credential the target does not take.
 * Neither says anything of the limit, so it is not judged; the figure names it in the verdict.
 */
function keyRefusedFirst(v: Verdicts, res: LoadResponse, who: 'ramp' | 'limiter_down', served: boolean): boolean {
  if (served || res.status < 400 || res.status >= 500 || res.status === 429) return false;
  const body = parseJsonObject(res.body);
  if (body?.code === 'rate_limited') return false;
  const code = scopeRefusalCode({ status: res.status, json: body });
  if (code !== undefined) v.figure(scopeRefusedFigure(who, code), res.status);
  else if (who === 'ramp' && (res.status === 401 || res.status === 403)) v.figure(V1_RATE_FIGURES.rampCredentialRefused, res.status);
  else return false;
  return true;
}

/** One request of the ramp on one key: a success or a refusal the seed names, never another 5xx of the limiter. */
export async function v1RateLimitStep(t: Transport, c: RateConfig): Promise<StepResult> {
  const v = new Verdicts();
  const [res] = await t.batch([{ method: 'GET', url: `${c.baseUrl}/v1/usage`, headers: bearer(c.token), name: 'ramp GET /v1/usage', expect: [200, 429, 503] }]);
  if (res!.status === 0) return v;
  if (overLimitOtherwise(res!, c)) {
    v.judge('load.v1.rate-limit.429-shape', false, OVER_LIMIT_IS_429);
    // Where the limit spoke, whatever its status: the observation says so rather than "never reached".
    v.judge('load.v1.rate-limit.limit-reached', true, 'the limit answered (429, or another status judged under 429-shape)');
    v.figure(V1_RATE_FIGURES.limitOtherStatus, res!.status);
    v.figure(V1_RATE_FIGURES.limitOtherAtMs, c.elapsedMs());
    return v;
  }
  if (keyRefusedFirst(v, res!, 'ramp', c.keyServed?.seen === true)) return v;
  if (res!.status >= 200 && res!.status < 300 && c.keyServed) c.keyServed.seen = true;
  const allowed = (res!.status >= 200 && res!.status < 300) || res!.status === 429 || res!.status === 503;
  if (allowed) v.judge('load.v1.rate-limit.refusals-are-429', true, LIMITER_5XX);
  else if (res!.status >= 500 && parseJsonObject(res!.body)?.code === 'rate_limited') v.judge('load.v1.rate-limit.refusals-are-429', false, LIMITER_5XX);
  else if (res!.status >= 500) v.figure(V1_RATE_FIGURES.other5xx, res!.status);
  if (res!.status === 429) judgeV1Refusal(v, res!, c);
  if (res!.status === 503) v.figure(V1_RATE_FIGURES.at503Ms, c.elapsedMs());
  return v;
}

/**
 * One request with a key whose limiter is down: fail-closed 503, told apart from 429. A refusal
 * naming a scope before the key was ever served is not judged (certify's
 * v1.errors.limiter-unavailable-503 reads it so): the key may lack a scope nobody can name.
 */
export async function v1LimiterDownStep(t: Transport, c: RateConfig): Promise<StepResult> {
  const v = new Verdicts();
  const [res] = await t.batch([{ method: 'GET', url: `${c.baseUrl}/v1/usage`, headers: bearer(c.token), name: 'limiter-down GET /v1/usage', expect: [503] }]);
  if (res!.status === 0) return v;
  // A fail-open limiter serves the key: it holds usage's scope from then on.
  if (res!.status >= 200 && res!.status < 300 && c.keyServed) c.keyServed.seen = true;
  else if (keyRefusedFirst(v, res!, 'limiter_down', c.keyServed?.seen === true)) return v;
  const closed = failClosedCase(res!.status);
  v.judgeCase('load.v1.rate-limit.unavailable-503', closed);
  if (closed.ok) for (const c of failClosedProblemCases(parseJsonObject(res!.body))) v.judgeCase('load.v1.rate-limit.unavailable-503', c);
  return v;
}

export interface V8RateConfig extends RateConfig {
  /** A token of another principal: judges that the limit is per principal. */
  otherToken?: string;
  /**
   * Whether this 429 may be followed by a request of the other principal. The runtime caps them
   * (k6: one per VU), so the other principal stays far below any limit of its own.
   */
  mayProbeOther: () => boolean;
  /** The create body of a mission that succeeds (APICERT_MISSION_BODY). */
  missionBody: unknown;
  /** A fresh Idempotency-Key per create. */
  key: () => string;
}

/**
 * One create of the ramp. The Errors table gives `429` "rate limit for the principal" to
 * `POST /v8/missions` only (the read rows list 401, 403, 404), so the ramp sends what certify's
 * v8.missions.rate-limit-429 bursts: creates, each under a fresh key (a replay would not count).
 */
function create(c: V8RateConfig, token: string, name: string, expect: number[]): LoadRequest {
  return { method: 'POST', url: `${c.baseUrl}/v8/missions`, headers: bearer(token, { 'Content-Type': 'application/json', 'Idempotency-Key': c.key() }), body: JSON.stringify(c.missionBody), name, expect };
}

/** When, into the ramp, a request of the other principal sent right after a 429 of the first was served, or answered 429 too. */
export const V8_OTHER_PRINCIPAL = { servedAtMs: 'v8_other_principal_served_at_ms', refusedAtMs: 'v8_other_principal_429_at_ms' } as const;
export const PER_PRINCIPAL_CHECK = 'another principal is not limited while the first is';

export async function v8RateLimitStep(t: Transport, c: V8RateConfig): Promise<StepResult> {
  const v = new Verdicts();
  const [res] = await t.batch([create(c, c.token, 'ramp POST /v8/missions', [202, 429])]);
  if (res!.status !== 429) return v;
  const rule = 'load.v8.rate-limit.429-problem';
  v.judgeCase(rule, problemTypeCase(429, res!.headers));
  v.judgeCase(rule, problemStatusCase(429, parseJsonObject(res!.body)?.status));
  v.judge('load.v8.rate-limit.limit-observed', true, 'a 429 was seen');
  v.figure('v8_rate_429_at_ms', c.elapsedMs());
  v.figure('v8_rate_429_at_rps', c.arrivalRate());
  if (c.otherToken && c.mayProbeOther()) {
    const [other] = await t.batch([create(c, c.otherToken, 'other-principal POST /v8/missions', [202])]);
    // Only the limit is judged here: a refused credential (401/403, a read-only token) or an overloaded target (503) says nothing about it.
    // "A per-principal rate limit exists" says nothing against a limit besides it (gateway-wide, per IP), which may refuse the
    // other principal too once the ramp passes it. So a 429 is timed, not failed here: the rule fails when the first limit the
    // ramp met refused the other principal as well, as one bucket for everybody does (src/load/summary.ts, perPrincipal).
    if (other!.status === 429) v.figure(V8_OTHER_PRINCIPAL.refusedAtMs, c.elapsedMs());
    else if (other!.status !== 0 && other!.status !== 401 && other!.status !== 403 && other!.status !== 503) {
      // Served, but was the first still limited? A limit window may have ended between the two requests, one bucket for
      // everybody's too: only a first principal refused again right after shows the other was served while it was limited.
      const [again] = await t.batch([create(c, c.token, 'ramp recheck POST /v8/missions', [202, 429])]);
      if (again!.status === 429) {
        v.figure(V8_OTHER_PRINCIPAL.servedAtMs, c.elapsedMs());
        v.judge('load.v8.rate-limit.per-principal', true, PER_PRINCIPAL_CHECK);
      }
    }
  }
  return v;
}
