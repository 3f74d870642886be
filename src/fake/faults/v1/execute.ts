import type { FaultDefinition } from '../types.ts';

/** Faults of the v1.execute rules: each breaks exactly the rule named before its slash. */
export const v1ExecuteFaults = [
  { id: 'v1.execute.turn.stream/json-response', description: 'a turn request is answered with JSON instead of an event stream' },
  { id: 'v1.execute.turn.stream/held-open', description: 'every turn stream stays open after its terminal event, until the fake closes' },
  { id: 'v1.execute.turn.accepted-event/replayed-missing', description: 'request.accepted carries no replayed flag on a first admission' },
  { id: 'v1.execute.turn.bodies/client-open', description: 'extra properties in ClientInfo are accepted' },
  { id: 'v1.execute.turn.bodies/timeout-unbounded', description: 'timeoutMs above 120000 is accepted' },
  { id: 'v1.execute.task.run-id/text-plain', description: 'the task response is labelled text/plain' },
  { id: 'v1.execute.task.extra-properties/rejected', description: 'a task body with an extra top-level property is rejected' },
  { id: 'v1.execute.idempotency.replay/re-executes', description: 'the same key and request starts a second run' },
  { id: 'v1.execute.idempotency.conflict/replays-different-body', description: 'the same key with another request is answered as a replay' },
  { id: 'v1.execute.idempotency.scope/global-keys', description: 'idempotency keys are shared across principals and tenants' },
  { id: 'v1.execute.idempotency.normalized/raw-text', description: 'the request digest is taken over the raw text, so reordered keys conflict' },
  { id: 'v1.execute.idempotency.key-format/any-key', description: 'Idempotency-Key values that are not Identifiers (129 characters, a "/") are accepted' },
  { id: 'v1.execute.idempotency.key-format/min-16-chars', description: 'Idempotency-Key values shorter than 16 characters are rejected' },
  { id: 'v1.execute.idempotency.retry-after-429/key-burnt', description: 'a 429 answer is remembered under the idempotency key and replayed' },
  { id: 'v1.execute.idempotency.retry-after-503/key-burnt', description: 'a 503 answer is remembered under the idempotency key and replayed' },
  { id: 'v1.execute.task.task-object/any-task', description: 'a task envelope whose task is not an object (a string, an array) is admitted' },
  { id: 'v1.execute.idempotency.body-key/conflict-replays', description: "a turn keyed by its body's idempotencyKey replays, but another body under that key replays the first too, instead of a 409 conflict" },
] as const satisfies readonly FaultDefinition[];
