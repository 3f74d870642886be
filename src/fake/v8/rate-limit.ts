/**
 * How /v8 answers a principal over its rate-limit tier (the tiers and the counting are the fake's
 * one limiter, src/fake/rate-limit.ts): 429 problem+json with Retry-After.
 */
import type { ServerResponse } from 'node:http';
import type { FakeCaller } from '../auth.ts';
import type { FakeContext } from '../context.ts';
import { retryAfterSeconds, type RateTier } from '../rate-limit.ts';
import { contractHeader } from './contract.ts';
import { writeProblem } from './errors.ts';

/** How a fault may bend the refusal on one endpoint (the mission area's `limit-as-503`). */
export interface LimitBend {
  /** Refuse with 503 instead of 429. */
  as503?: boolean;
  /** Serve the caller whatever its tier (the mission area's `never-limits`). */
  neverLimits?: boolean;
}

/**
 * The tier of every principal not on one of its own under `v8.rate-limit/tight-limit`: a realistic
 * per-principal limit that a certification run at full speed meets many times (Fastify audit s26 F3).
 */
export const TIGHT_TIER: RateTier = { requests: 150, windowSeconds: 5 };

/** Answers the refusal itself and returns true when the caller is over its tier. */
export function v8RateLimited(fake: FakeContext, res: ServerResponse, caller: FakeCaller, bend: LimitBend = {}): boolean {
  // A gateway-wide limit besides the principal's own (a legal choice) refuses first, and counts every request it lets through.
  const global = fake.variants.has('v8.rate-limit/global-limit') ? fake.rateLimiter.v8Global(caller.principal) : undefined;
  const decision =
    global && global.kind !== 'ok'
      ? global
      : fake.faults.has('load.v8.rate-limit.per-principal/global-bucket')
        ? fake.rateLimiter.v8Pooled(caller.principal)
        : fake.rateLimiter.v8(caller.principal, Date.now(), fake.variants.has('v8.rate-limit/tight-limit') ? TIGHT_TIER : undefined);
  if (decision.kind === 'ok' || (decision.kind === 'limited' && bend.neverLimits)) return false;
  if (decision.kind === 'unavailable' || bend.as503) {
    writeProblem(fake, res, 503, 'unavailable', 'The gateway is busy.');
    return true;
  }
  res.setHeader('retry-after', String(retryAfterSeconds(decision.retryAfterMs)));
  // A load fault: the limiter goes wrong only past the first refusal (certification stops at the first).
  if (decision.refused > 1 && fake.faults.has('load.v8.rate-limit.429-problem/plain-text')) {
    res.writeHead(429, { 'content-type': 'text/plain', ...contractHeader(fake, 'problem') });
    res.end('Too Many Requests');
  } else {
    writeProblem(fake, res, 429, 'rate_limited', 'This principal is over its rate limit: wait for Retry-After.');
  }
  return true;
}
