import type { FaultDefinition } from './types.ts';

/**
 * Faults only load can show: each breaks the load rule named before its slash and only under
 * concurrency or a burst, so every certify rule still passes with it on
 * (suites/load/rules.test.ts). The load suites show each script's verdict catching them.
 */
export const loadFaults = [
  { id: 'load.v8.idempotency.storm-one-mission/race', description: 'concurrent creates with one new key each start a mission (check-then-act race)' },
  { id: 'load.v1.idempotency.storm-one-run/race', description: 'concurrent task executes with one new key each start a run (check-then-act race); turns are not raced, so storm-replayed holds' },
  { id: 'load.v8.events.fanout-same-events/late-subscriber-gap', description: 'the fifth and later readers of one mission miss mission.started' },
  { id: 'load.v8.events.fanout-one-terminal/duplicate-terminal', description: 'the fifth and later readers of one mission get the terminal event twice' },
  { id: 'load.v1.events.fanout-same-events/late-subscriber-gap', description: "the fifth and later readers of one run miss the run's second event" },
  { id: 'load.v1.rate-limit.429-shape/retryable-false-under-burst', description: 'after three refusals in one window, 429s carry retryable:false' },
  { id: 'load.v1.rate-limit.refusals-are-429/overload-500', description: 'after five refusals in one window, the limiter answers 500 with code rate_limited' },
  { id: 'load.v8.rate-limit.per-principal/global-bucket', description: 'the /v8 limiter counts every principal in one bucket' },
  { id: 'load.v8.rate-limit.429-problem/plain-text', description: 'after the first refusal in a window, /v8 429s are text/plain' },
] as const satisfies readonly FaultDefinition[];
