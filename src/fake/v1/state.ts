import type { FakeContext } from '../context.ts';
import { IdempotencyStore } from '../idempotency.ts';
import { RunEngine } from './runs/engine.ts';

/** What an idempotency key remembers: a task answer, a turn run to replay, or (only under a fault) a refusal. */
export type StoredExecution =
  | { kind: 'task'; runId: string; body: string }
  | { kind: 'turn'; runId: string }
  | { kind: 'refusal'; status: 429 | 503 };

/** The /v1 part of one fake instance, shared by its routes and its embedded-profile contributor. */
export interface V1State {
  engine: RunEngine;
  idempotency: IdempotencyStore<StoredExecution>;
  /** The embedded profile's credential name of each key it issued: the rate limiter's tiers are by name. */
  keyNames: Map<string, string>;
  /** Authenticated /v1 requests per tenant, for the usage readback. */
  requests: Map<string, number>;
}

const states = new WeakMap<FakeContext, V1State>();

export function v1State(fake: FakeContext): V1State {
  let state = states.get(fake);
  if (!state) {
    state = {
      engine: new RunEngine(fake),
      idempotency: new IdempotencyStore(),
      keyNames: new Map(),
      requests: new Map(),
    };
    states.set(fake, state);
  }
  return state;
}
