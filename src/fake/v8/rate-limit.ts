/**
 * The /v8 per-principal limiter of the fake. The seed states one exists but gives no numbers, so
 * it is off unless `FakeConfig.v8RateLimit` sets a window: certification runs never meet it, load
 * runs find it (the v8-rate-limit script).
 */
import type { ServerResponse } from 'node:http';
import type { FakeCaller } from '../auth.ts';
import type { FakeContext } from '../context.ts';
import { RateLimiter } from '../v1/rate-limit.ts';
import { contractHeader } from './contract.ts';
import { writeProblem } from './errors.ts';

const limiters = new WeakMap<FakeContext, RateLimiter>();

/** Retry-After seconds when the caller is over the limit, undefined when the request may go on. */
function retryAfter(fake: FakeContext, caller: FakeCaller): number | undefined {
  const config = fake.config.v8RateLimit;
  if (!config) return undefined;
  const globalBucket = fake.faults.has('load.v8.rate-limit.per-principal/global-bucket');
  // One bucket for everyone (the fault) counts every principal, whatever tier it is on.
  if (config.principals && !globalBucket && !config.principals.includes(caller.principal)) return undefined;
  let limiter = limiters.get(fake);
  if (!limiter) {
    limiter = new RateLimiter(config.perWindow, config.windowMs);
    limiters.set(fake, limiter);
  }
  const bucket = globalBucket ? 'everyone' : caller.principal;
  const decision = limiter.take(bucket, 'probe');
  return decision.kind === 'limited' ? Math.max(1, Math.ceil(decision.retryAfterMs / 1000)) : undefined;
}

/** Answers 429 itself and returns true when the caller is over its limit. */
export function v8RateLimited(fake: FakeContext, res: ServerResponse, caller: FakeCaller): boolean {
  const seconds = retryAfter(fake, caller);
  if (seconds === undefined) return false;
  res.setHeader('retry-after', String(seconds));
  if (fake.faults.has('load.v8.rate-limit.429-problem/plain-text')) {
    res.writeHead(429, { 'content-type': 'text/plain', ...contractHeader(fake, 'problem') });
    res.end('Too Many Requests');
  } else {
    writeProblem(fake, res, 429, 'rate_limited', 'This principal is over its rate limit: wait for Retry-After.');
  }
  return true;
}
