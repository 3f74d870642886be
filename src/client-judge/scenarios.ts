/**
 * The scripted adversity `apicert judge-client` serves, one scenario at a time: each bends one
 * kind of request the way a real deployment sometimes does, and serves everything else from the
 * reference fake. The client rules (rules.ts) each judge the log of one scenario.
 */
import { isRecord, parseJson } from '../util/json.ts';

export interface IncomingRequest {
  method: string;
  /** Without the query. */
  path: string;
  headers: Record<string, string>;
  body: string;
}

export type Adversity =
  /** Forward to the fake; `contractVersion` replaces the fake's x-service-contract-version. */
  | { kind: 'serve'; contractVersion?: string }
  /** Answer with a problem instead of the fake. */
  | { kind: 'refuse'; surface: 'v1' | 'v8'; status: 409 | 429 | 503; code: string; detail: string; retryAfterSeconds?: number; retryAfterMs?: number }
  /** Forward, relay this many stream events, then cut the connection mid-run. */
  | { kind: 'drop-after-events'; events: number }
  /** Forward (so the request is accepted), then reset the connection before any answer reaches the client. */
  | { kind: 'reset-after-accepted' };

export interface ScenarioSettings {
  /** Multiplies every delay the seed states; 1 keeps the seed's 60 s retry hint. */
  timeScale: number;
}

/** What the front learned from the answers of the scenario so far: which request to bend may rest on it. */
export interface ScenarioMemory {
  /** The run ids the answers to task-mode POST /v1/execute carried. */
  taskRuns: ReadonlySet<string>;
}

export interface Scenario {
  name: string;
  title: string;
  decide(request: IncomingRequest, fired: Set<string>, settings: ScenarioSettings, memory: ScenarioMemory): Adversity;
}

const SERVE: Adversity = { kind: 'serve' };
/** The contract identifier a deployment of another gateway version would send. */
export const OTHER_CONTRACT_VERSION = 'service-integration-gateway-v9.0';
/** The coverage report's gatewayVersion of that deployment. */
export const OTHER_GATEWAY_VERSION = '9.0.0';
/** The seed's retry hint when no Retry-After is given (Limits). */
export const DEFAULT_RETRY_HINT_MS = 60_000;

/** What the rate-limited scenario puts in Retry-After: half the default hint, scaled, at least 1 s. */
export function retryAfterSecondsFor(settings: ScenarioSettings): number {
  return Math.max(1, Math.ceil((DEFAULT_RETRY_HINT_MS / 2 / 1000) * settings.timeScale));
}

const isExecute = (r: Pick<IncomingRequest, 'method' | 'path'>) => r.method === 'POST' && r.path === '/v1/execute';
const isTurn = (r: Pick<IncomingRequest, 'body'>) => {
  const body = parseJson(r.body);
  return !(body.ok && isRecord(body.value) && body.value.mode === 'task');
};
/** A POST /v1/execute of a task-mode body: its answer names a task-mode run. */
export const isTaskExecute = (r: Pick<IncomingRequest, 'method' | 'path' | 'body'>) => isExecute(r) && !isTurn(r);
const V1_RUN_EVENTS = /^\/v1\/runs\/([^/]+)\/events$/;
/** The run whose event stream a request reads (GET /v1/runs/{id}/events, `path` without its query), or undefined. */
export const runOfEvents = (r: Pick<IncomingRequest, 'method' | 'path'>) => (r.method === 'GET' ? V1_RUN_EVENTS.exec(r.path)?.[1] : undefined);
/** A read of the event stream of a run a task-mode POST started: its turn-mode twin is `dropped-stream`. */
const isTaskRunEvents = (r: IncomingRequest, memory: ScenarioMemory) => {
  const runId = runOfEvents(r);
  return runId !== undefined && memory.taskRuns.has(runId);
};
const V8_EVENTS = /^\/v8\/missions\/[^/]+\/events$/;
const isV8Events = (r: IncomingRequest) => r.method === 'GET' && V8_EVENTS.test(r.path);

/** The first request that matches gets the adversity; every other one is served. */
function once(fired: Set<string>, matches: boolean, adversity: Adversity): Adversity {
  if (!matches || fired.has('first')) return SERVE;
  fired.add('first');
  return adversity;
}

export const SCENARIOS = [
  {
    name: 'dropped-stream',
    title: 'the first streamed (turn-mode) POST /v1/execute is cut after its first event',
    decide: (r, fired) => once(fired, isExecute(r) && isTurn(r), { kind: 'drop-after-events', events: 1 }),
  },
  {
    // Endpoints rule 4's "dropped connection on a task-mode run", once the client knows the run: the reset of the
    // task POST's own answer, before the client learns the run id, is the `ambiguous-failure` scenario's.
    name: 'dropped-task-stream',
    title: 'the first event stream of a task-mode run (GET /v1/runs/{id}/events) is cut after its first event',
    decide: (r, fired, _settings, memory) => once(fired, isTaskRunEvents(r, memory), { kind: 'drop-after-events', events: 1 }),
  },
  {
    name: 'rate-limited',
    title: 'the first POST /v1/execute gets 429 rate_limited with Retry-After',
    decide: (r, fired, settings) => {
      const seconds = retryAfterSecondsFor(settings);
      return once(fired, isExecute(r), { kind: 'refuse', surface: 'v1', status: 429, code: 'rate_limited', detail: 'Over the rate limit: wait for Retry-After.', retryAfterSeconds: seconds, retryAfterMs: seconds * 1000 });
    },
  },
  {
    name: 'rate-limited-no-hint',
    title: 'the first POST /v1/execute gets 429 rate_limited without Retry-After or retryAfterMs',
    decide: (r, fired) => once(fired, isExecute(r), { kind: 'refuse', surface: 'v1', status: 429, code: 'rate_limited', detail: 'Over the rate limit.' }),
  },
  {
    name: 'limiter-unavailable',
    title: 'the first POST /v1/execute gets 503: the rate-limit protection is unavailable (fail-closed)',
    decide: (r, fired) => once(fired, isExecute(r), { kind: 'refuse', surface: 'v1', status: 503, code: 'internal_failed', detail: 'Rate-limit protection is unavailable; the request was refused.' }),
  },
  {
    name: 'idempotency-conflict',
    title: 'the first POST /v1/execute gets 409 conflict, as for a key reused with another request',
    decide: (r, fired) => once(fired, isExecute(r), { kind: 'refuse', surface: 'v1', status: 409, code: 'conflict', detail: 'This Idempotency-Key was used with a different request.' }),
  },
  {
    name: 'ambiguous-failure',
    title: 'the first POST /v1/execute is accepted, then its connection is reset before the answer',
    decide: (r, fired) => once(fired, isExecute(r), { kind: 'reset-after-accepted' }),
  },
  {
    name: 'replay-window',
    title: 'the first /v8 mission event stream is cut after one event; every resume with Last-Event-ID gets 409',
    decide: (r, fired) => {
      if (!isV8Events(r)) return SERVE;
      if (r.headers['last-event-id'] !== undefined) return { kind: 'refuse', surface: 'v8', status: 409, code: 'cursor_outside_window', detail: 'Last-Event-ID is outside the replay window: re-fetch from the beginning.' };
      return once(fired, true, { kind: 'drop-after-events', events: 1 });
    },
  },
  {
    // The fake's search answers show cap.portal.browser `unavailable` (scenarios/v8/capabilities.ts): a client that searches meets one.
    name: 'capability-health',
    title: 'every request is served by the fake, whose capability search answers show an `unavailable` capability',
    decide: () => SERVE,
  },
  {
    name: 'contract-version',
    title: `every /v8 response carries x-service-contract-version ${OTHER_CONTRACT_VERSION}, and the coverage report says so in contractVersion (gatewayVersion ${OTHER_GATEWAY_VERSION})`,
    decide: (r) => (r.path.startsWith('/v8/') ? { kind: 'serve', contractVersion: OTHER_CONTRACT_VERSION } : SERVE),
  },
] as const satisfies readonly Scenario[];

export type ScenarioName = (typeof SCENARIOS)[number]['name'];
export const SCENARIO_NAMES: readonly ScenarioName[] = SCENARIOS.map((s) => s.name);

export function scenarioByName(name: string): Scenario | undefined {
  return SCENARIOS.find((s) => s.name === name);
}
