/**
 * The rules only load can show, one list for the k6 scripts, vitest and the readiness report.
 * Plain data with no Node or k6 imports: the k6 bundles carry it.
 */

export type LoadScript = 'v8-idempotency-storm' | 'v1-idempotency-storm' | 'v8-stream-fanout' | 'v1-events-fanout' | 'v1-rate-limit' | 'v8-rate-limit';

export const LOAD_SCRIPTS: readonly LoadScript[] = ['v8-idempotency-storm', 'v1-idempotency-storm', 'v8-stream-fanout', 'v1-events-fanout', 'v1-rate-limit', 'v8-rate-limit'];

export interface LoadRule {
  /** `load.<surface>.<area>.<name>`. */
  id: string;
  surface: 'v8' | 'v1';
  script: LoadScript;
  title: string;
  /** `observation` rules record what the spec leaves open (limit values) and never gate; `should` rules (a sentence that "expects") gate only with --strict, and never fail the k6 run. */
  level: 'required' | 'should' | 'observation';
  spec: { document: 'v8-integration-gateway.md' | 'v1-execution-fabric.md'; section: string; quote: string };
}

const V8 = 'v8-integration-gateway.md';
const V1 = 'v1-execution-fabric.md';

export const LOAD_RULES: readonly LoadRule[] = [
  {
    id: 'load.v8.idempotency.storm-one-mission',
    surface: 'v8',
    script: 'v8-idempotency-storm',
    title: 'Concurrent creates with one Idempotency-Key and one body are all answered with one mission, or refused 409 while the first is in flight',
    level: 'required',
    spec: { document: V8, section: 'Endpoints > Rules 3', quote: 'Replay with the same key and the same body returns the original response without re-executing.' },
  },
  {
    id: 'load.v8.idempotency.storm-conflict',
    surface: 'v8',
    script: 'v8-idempotency-storm',
    title: 'Concurrent creates that reuse a key with other bodies are all answered 409',
    level: 'required',
    spec: { document: V8, section: 'Endpoints > Rules 3', quote: 'The same key with a different body gives `409`.' },
  },
  {
    id: 'load.v1.idempotency.storm-one-run',
    surface: 'v1',
    script: 'v1-idempotency-storm',
    title: 'Concurrent task-mode executes with one Idempotency-Key and one body name one run_id',
    level: 'required',
    spec: { document: V1, section: 'Endpoints > Rules 2', quote: 'Same key with the same request replays safely.' },
  },
  {
    id: 'load.v1.idempotency.storm-replayed',
    surface: 'v1',
    script: 'v1-idempotency-storm',
    title: 'Of concurrent turn-mode executes with one key and body, every admission but one carries replayed:true',
    level: 'required',
    spec: { document: V1, section: 'Endpoints > Rules 2', quote: 'A replayed acceptance event carries `replayed:true`.' },
  },
  {
    id: 'load.v1.idempotency.storm-conflict',
    surface: 'v1',
    script: 'v1-idempotency-storm',
    title: 'Concurrent executes that reuse a key with other bodies are all answered 409 conflict',
    level: 'required',
    spec: { document: V1, section: 'Endpoints > Rules 3', quote: 'Same key with a different request is a conflict (code `conflict`, HTTP `409`), not a replay.' },
  },
  {
    id: 'load.v8.events.fanout-same-events',
    surface: 'v8',
    script: 'v8-stream-fanout',
    title: 'Every concurrent reader of one mission sees the same events, each with an id',
    level: 'required',
    spec: { document: V8, section: 'Events', quote: 'opaque stable cursor; send it back as `Last-Event-ID` to resume' },
  },
  {
    id: 'load.v8.events.fanout-one-terminal',
    surface: 'v8',
    script: 'v8-stream-fanout',
    title: 'Every concurrent reader sees exactly one terminal event (informational events may follow it), and the stream closes',
    level: 'required',
    spec: { document: V8, section: 'Endpoints > Rules 5', quote: 'The stream closes after a terminal event.' },
  },
  {
    id: 'load.v8.events.fanout-after-terminal',
    surface: 'v8',
    script: 'v8-stream-fanout',
    title: 'A late reader replaying an ended mission from the start sees nothing state-changing after the terminal event, and the mission reads back in its terminal state',
    level: 'required',
    spec: { document: V8, section: 'Events > Rules 2', quote: 'Events after a terminal event are informational only, not state-changing.' },
  },
  {
    id: 'load.v8.events.fanout-resume',
    surface: 'v8',
    script: 'v8-stream-fanout',
    title: 'Readers that resume with Last-Event-ID see the rest of the stream with no repeat and no gap',
    level: 'required',
    spec: { document: V8, section: 'Events > Rules 1', quote: 'The stream is resumable within a bounded replay window.' },
  },
  {
    id: 'load.v1.events.fanout-same-events',
    surface: 'v1',
    script: 'v1-events-fanout',
    title: "Every concurrent reader of one run's events sees the same events, each with a sequence id, in increasing order",
    level: 'required',
    spec: { document: V1, section: 'Events > Run event stream', quote: 'Clients should commit their cursor only after durable processing, and should deduplicate by event identity.' },
  },
  {
    id: 'load.v1.events.fanout-resume',
    surface: 'v1',
    script: 'v1-events-fanout',
    title: 'Readers that resume with Last-Event-ID (a sequence) see the rest of the stream with no repeat and no gap',
    level: 'required',
    spec: { document: V1, section: 'Events > Run event stream', quote: 'Resume: `Last-Event-ID` carries the `sequence` value of the stored run event.' },
  },
  {
    id: 'load.v1.rate-limit.429-shape',
    surface: 'v1',
    script: 'v1-rate-limit',
    title: 'Over the limit under a rising rate the answer is a 429 carrying code rate_limited, retryable:true and, when present, retryAfterMs >= 0',
    level: 'required',
    spec: { document: V1, section: 'Errors > Rules 1', quote: 'Over the rate limit: HTTP `429`, `code` `rate_limited`, `retryable:true`, optional `retryAfterMs`.' },
  },
  {
    id: 'load.v1.rate-limit.retry-after',
    surface: 'v1',
    script: 'v1-rate-limit',
    title: 'Every 429 under a rising rate carries a numeric Retry-After header',
    // "is expected": a recommendation, as v1.errors.rate-limited-retry-after reads the same sentence (variant v1.errors/no-retry-after departs from it).
    level: 'should',
    spec: { document: V1, section: 'Errors > Rules 1', quote: 'A numeric `Retry-After` header is expected alongside it.' },
  },
  {
    id: 'load.v1.rate-limit.refusals-are-429',
    surface: 'v1',
    script: 'v1-rate-limit',
    // The sentence speaks of the limiter: a 5xx that does not say rate_limited (an overloaded backend, a proxy) breaks none, and is recorded only.
    title: 'Under a rising rate on one key the limiter refuses with 429, or the fail-closed 503: no answer saying rate_limited comes with another 5xx',
    level: 'required',
    spec: { document: V1, section: 'Limits', quote: 'Each API key has its own rate-limit tier, enforced fail-closed.' },
  },
  {
    id: 'load.v1.rate-limit.unavailable-503',
    surface: 'v1',
    script: 'v1-rate-limit',
    title: 'A key whose limiter is unavailable gets 503, never 429 and never a success, and the 503 says retryable: true',
    level: 'required',
    spec: {
      document: V1,
      section: 'Errors > Rules 2 and 3; Errors',
      quote:
        'When the rate-limit protection is itself unavailable on an API-key-authenticated surface: HTTP `503` (fail-closed). Clients must handle this differently from `429`. … `429` and `503` are safe to retry with the same idempotency key, because nothing was accepted. … retryable | boolean | yes | authoritative retry signal for this response',
    },
  },
  {
    id: 'load.v1.rate-limit.limit-reached',
    surface: 'v1',
    script: 'v1-rate-limit',
    title: 'Where the limit first answered the key: a 429, or another status judged under 429-shape (the seed shows no tier values)',
    level: 'observation',
    spec: { document: V1, section: 'Limits', quote: 'Per-key tier values and request-rate numbers: not shown.' },
  },
  {
    id: 'load.v8.rate-limit.limit-observed',
    surface: 'v8',
    script: 'v8-rate-limit',
    title: 'Where the principal first got 429 (the seed shows no numbers)',
    level: 'observation',
    spec: { document: V8, section: 'Limits', quote: 'A per-principal rate limit exists (`429`). Its numeric values: not shown.' },
  },
  {
    id: 'load.v8.rate-limit.429-problem',
    surface: 'v8',
    script: 'v8-rate-limit',
    title: 'Every /v8 429 is application/problem+json with status 429',
    level: 'required',
    spec: { document: V8, section: 'Errors', quote: 'Failures are `application/problem+json` (RFC 9457)' },
  },
  {
    id: 'load.v8.rate-limit.per-principal',
    surface: 'v8',
    script: 'v8-rate-limit',
    title: "When one principal first meets its limit, another principal's request is not answered 429 (a limit besides it, met later in the ramp, may refuse both)",
    level: 'required',
    spec: { document: V8, section: 'Limits', quote: 'A per-principal rate limit exists (`429`).' },
  },
];

export type LoadRuleId = (typeof LOAD_RULES)[number]['id'];

export function rulesOf(script: LoadScript): LoadRule[] {
  return LOAD_RULES.filter((r) => r.script === script);
}

export function isLoadScript(name: string): name is LoadScript {
  return (LOAD_SCRIPTS as readonly string[]).includes(name);
}

/** The k6 metric that counts a rule's judgments: k6 metric names allow only [A-Za-z0-9_]. */
export function metricOf(ruleId: string): string {
  return `apicert_${ruleId.replace(/^load\./, '').replace(/[^A-Za-z0-9]+/g, '_')}`;
}

/**
 * The k6 metric that says whether an iteration judged a rule at all (a Rate, `rate>0`): k6 skips
 * the thresholds of a metric with no sample, so a rule nothing judged would pass `rate==1`.
 */
export function judgedMetricOf(ruleId: string): string {
  return `apicert_judged_${ruleId.replace(/^load\./, '').replace(/[^A-Za-z0-9]+/g, '_')}`;
}
