/**
 * The /v8 per-principal limiter of the fake. The seed states one exists but gives no numbers, so
 * it is off unless `FakeConfig.v8RateLimit` sets a window: certification runs never meet it, load
 * runs find it.
 */
import type { FakeCaller } from '../auth.ts';
import type { FakeContext } from '../context.ts';
import { RateLimiter } from '../v1/rate-limit.ts';

const limiters = new WeakMap<FakeContext, RateLimiter>();

/** Retry-After seconds when the caller is over the limit, undefined when the request may go on. */
export function v8RateLimited(fake: FakeContext, caller: FakeCaller): number | undefined {
  const config = fake.config.v8RateLimit;
  if (!config) return undefined;
  let limiter = limiters.get(fake);
  if (!limiter) {
    limiter = new RateLimiter(config.perWindow, config.windowMs);
    limiters.set(fake, limiter);
  }
  const bucket = fake.faults.has('load.v8.rate-limit.per-principal/global-bucket') ? 'everyone' : caller.principal;
  const decision = limiter.take(bucket, 'probe');
  return decision.kind === 'limited' ? Math.max(1, Math.ceil(decision.retryAfterMs / 1000)) : undefined;
}
