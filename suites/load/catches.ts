/**
 * Which fault of the fake each load rule's verdict is shown to catch (the load fault matrix):
 * the per-script suites run every row, and suites/load/rules.test.ts holds every required load
 * rule and every load fault to appear here.
 */
import type { FaultId } from '../../src/fake/faults/index.ts';
import type { LoadScript } from '../../src/load/rules.ts';

export interface Catch {
  fault: FaultId;
  rule: string;
  /** The failing check the verdict names. */
  reason: RegExp;
}

export const CATCHES: Record<LoadScript, Catch[]> = {
  'v8-idempotency-storm': [
    { fault: 'v8.missions.idempotency.replay/re-executes', rule: 'load.v8.idempotency.storm-one-mission', reason: /a replay answers the original status and body/ },
    { fault: 'load.v8.idempotency.storm-one-mission/race', rule: 'load.v8.idempotency.storm-one-mission', reason: /a replay answers the original status and body/ },
    { fault: 'v8.missions.idempotency.conflict/replays-different-body', rule: 'load.v8.idempotency.storm-conflict', reason: /answered 409 \(24 of 24\)/ },
  ],
  'v1-idempotency-storm': [
    { fault: 'v1.execute.idempotency.replay/re-executes', rule: 'load.v1.idempotency.storm-one-run', reason: /a task replay answers the original run_id/ },
    { fault: 'load.v1.idempotency.storm-one-run/race', rule: 'load.v1.idempotency.storm-one-run', reason: /a task replay answers the original run_id/ },
    { fault: 'v1.execute.idempotency.replay/re-executes', rule: 'load.v1.idempotency.storm-replayed', reason: /at most one admission/ },
    { fault: 'v1.execute.idempotency.conflict/replays-different-body', rule: 'load.v1.idempotency.storm-conflict', reason: /another body with a used key is answered 409/ },
  ],
  'v8-stream-fanout': [
    { fault: 'v8.missions.events.shape/step-without-id', rule: 'load.v8.events.fanout-same-events', reason: /every event carries an id/ },
    { fault: 'load.v8.events.fanout-same-events/late-subscriber-gap', rule: 'load.v8.events.fanout-same-events', reason: /same events in the same order \(6 of 10\)/ },
    { fault: 'load.v8.events.fanout-one-terminal/duplicate-terminal', rule: 'load.v8.events.fanout-one-terminal', reason: /no terminal event follows the first on its stream/ },
    { fault: 'v8.missions.events.closes-after-terminal/held-open', rule: 'load.v8.events.fanout-one-terminal', reason: /stream closes after the terminal event .*\(10 of 10\)/ },
    { fault: 'v8.missions.events.after-terminal/late-event-changes-state', rule: 'load.v8.events.fanout-after-terminal', reason: /no terminal event after the first \(1 of 1\); the mission reads back in the state its terminal event reported \(1 of 1\)/ },
    { fault: 'v8.missions.events.resume/repeats-cursor-event', rule: 'load.v8.events.fanout-resume', reason: /none repeated, none missing/ },
  ],
  'v1-events-fanout': [
    { fault: 'v1.runs.events.identity/progress-without-id', rule: 'load.v1.events.fanout-same-events', reason: /every event carries an identity: an SSE id or an event id in its data/ },
    { fault: 'v1.runs.events.resume/no-sse-ids', rule: 'load.v1.events.fanout-resume', reason: /every event carries its sequence as SSE id/ },
    { fault: 'load.v1.events.fanout-same-events/late-subscriber-gap', rule: 'load.v1.events.fanout-same-events', reason: /same events in the same order/ },
    { fault: 'v1.runs.events.resume/repeats-cursor-event', rule: 'load.v1.events.fanout-resume', reason: /none repeated, none missing/ },
  ],
  'v1-rate-limit': [
    { fault: 'v1.errors.rate-limited-retry-after/no-retry-after', rule: 'load.v1.rate-limit.retry-after', reason: /numeric Retry-After header \(14 of 14\)/ },
    { fault: 'load.v1.rate-limit.429-shape/retryable-false-under-burst', rule: 'load.v1.rate-limit.429-shape', reason: /retryable:true \(11 of 14\)/ },
    { fault: 'v1.errors.rate-limited/limit-as-403', rule: 'load.v1.rate-limit.429-shape', reason: /over the rate limit the answer is 429 \("Over the rate limit: HTTP 429, code rate_limited"\).* \(14 of 14\)/ },
    { fault: 'load.v1.rate-limit.refusals-are-429/overload-500', rule: 'load.v1.rate-limit.refusals-are-429', reason: /no answer saying rate_limited has another 5xx \(9 of 24\)/ },
    { fault: 'v1.errors.limiter-unavailable-503/fail-open', rule: 'load.v1.rate-limit.unavailable-503', reason: /neither 429 nor served \(3 of 3\)/ },
    { fault: 'v1.errors.limiter-unavailable-503/not-retryable', rule: 'load.v1.rate-limit.unavailable-503', reason: /fail-closed 503 carries retryable:true \(3 of 3\)/ },
  ],
  'v8-rate-limit': [
    { fault: 'load.v8.rate-limit.per-principal/global-bucket', rule: 'load.v8.rate-limit.per-principal', reason: /another principal is not limited/ },
    { fault: 'load.v8.rate-limit.429-problem/plain-text', rule: 'load.v8.rate-limit.429-problem', reason: /application\/problem\+json/ },
  ],
};

/** Rows for it.each: `%s fails %s`. */
export function catchRows(script: LoadScript): Array<[FaultId, string, RegExp]> {
  return CATCHES[script].map((c) => [c.fault, c.rule, c.reason]);
}
