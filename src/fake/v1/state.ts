import type { FakeContext } from '../context.ts';
import { IdempotencyStore } from '../idempotency.ts';
import { RateLimiter, type RateTier } from './rate-limit.ts';
import { RunEngine } from './runs/engine.ts';

/** What an idempotency key remembers: a task answer, a turn run to replay, or (only under a fault) a refusal. */
export type StoredExecution =
  | { kind: 'task'; runId: string; body: string }
  | { kind: 'turn'; runId: string }
  | { kind: 'refusal'; status: 429 | 503 };

/** The /v1 part of one fake instance, shared by its routes and its embedded-profile contributor. */
export interface V1State {
  engine: RunEngine;
  limiter: RateLimiter;
  idempotency: IdempotencyStore<StoredExecution>;
  /** Rate-limit tier per issued API key; keys not listed are `standard`. */
  tiers: Map<string, RateTier>;
  /** Authenticated /v1 requests per tenant, for the usage readback. */
  requests: Map<string, number>;
}

const states = new WeakMap<FakeContext, V1State>();

export function v1State(fake: FakeContext): V1State {
  let state = states.get(fake);
  if (!state) {
    state = {
      engine: new RunEngine(fake),
      limiter: new RateLimiter(fake.config.v1RateLimitPerWindow, fake.config.v1RateLimitWindowMs),
      idempotency: new IdempotencyStore(),
      tiers: new Map(),
      requests: new Map(),
    };
    states.set(fake, state);
  }
  return state;
}
