import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import { taskScenarioOf } from '../../../scenarios/v1/runs.ts';
import { COMPLETED, defaultTaskScript, FAILED, taskScripts, turnScript } from '../../../scenarios/v1/scripts.ts';
import { identifier, V1_SCOPES } from '../../contract/v1/common.ts';
import type { FieldError } from '../../contract/v1/problem.ts';
import { ACCEPTED, approveRequest, CANCELLED } from '../../contract/v1/runs.ts';
import { taskRequest } from '../../contract/v1/task.ts';
import { clientInfo, turnRequest } from '../../contract/v1/turn.ts';
import { canonicalJson, isRecord, parseJson } from '../../util/json.ts';
import type { FakeCaller } from '../auth.ts';
import type { FakeContext } from '../context.ts';
import type { Route, RouteRequest } from '../http.ts';
import { V1Responder } from './respond.ts';
import { isFinished, type Run, type RunEvent } from './run-engine.ts';
import { v1State, type StoredExecution } from './state.ts';

const RUN_ID = '([^/]+)';
const TERMINAL_KINDS: ReadonlySet<string> = new Set([COMPLETED, FAILED, CANCELLED]);
const DECISIONS = ['approved', 'rejected'] as const;

/** Input schemas: the contract's, loosened (or tightened) only where an active fault says so. */
function inputSchemas(fake: FakeContext): { turn: z.ZodType; task: z.ZodType } {
  let turn: z.ZodType = turnRequest;
  if (fake.faults.has('v1.execute.turn.bodies/client-open')) turn = turnRequest.extend({ client: z.looseObject(clientInfo.shape) });
  if (fake.faults.has('v1.execute.turn.bodies/timeout-unbounded')) turn = turnRequest.extend({ timeoutMs: z.number().int().min(1000).optional() });
  const task = fake.faults.has('v1.execute.task.extra-properties/rejected') ? z.strictObject(taskRequest.shape) : taskRequest;
  return { turn, task };
}

/** zod issues as v1 FieldErrors; an unknown property is reported at its own path. */
function fieldErrors(error: z.ZodError): FieldError[] {
  const out: FieldError[] = [];
  for (const issue of error.issues) {
    const base = issue.path.map(String);
    const paths = issue.code === 'unrecognized_keys' ? issue.keys.map((k) => [...base, k].join('.')) : [base.join('.') || '$'];
    for (const path of paths) out.push({ path: path.slice(0, 256), code: issue.code.slice(0, 96), message: (issue.message || 'invalid').slice(0, 512) });
  }
  return out.slice(0, 64);
}

interface ExecuteRequest {
  mode: 'turn' | 'task';
  body: unknown;
  key: string | undefined;
  /** What "the same request" means for idempotency: a normalized digest of the body. */
  fingerprint: string;
}

function bearerKey(r: RouteRequest): string {
  return (r.header('authorization') ?? '').slice(7).trim();
}

export function v1Routes(fake: FakeContext): Route[] {
  const v1 = new V1Responder(fake);
  const state = v1State(fake);
  const engine = state.engine;
  const schemas = inputSchemas(fake);

  /** 401 for a missing, unknown or expired key, 403 for a missing scope; counts the request for usage. */
  function authenticate(r: RouteRequest, scopes: readonly string[]): FakeCaller | undefined {
    let caller: FakeCaller | undefined;
    if (r.header('authorization') === undefined && fake.faults.has('v1.auth.unauthenticated/serves-without-key')) {
      caller = { principal: 'anonymous', tenant: 'tenant-a', scopes: new Set(V1_SCOPES), expired: false };
    } else {
      const found = fake.tokens.lookup(r.header('authorization'));
      if (found?.expired && fake.faults.has('v1.auth.expired-key/accepted')) caller = { ...found, expired: false };
      else caller = v1.authorize(r, scopes);
    }
    if (caller) state.requests.set(caller.tenant, (state.requests.get(caller.tenant) ?? 0) + 1);
    return caller;
  }

  /** Applies the key's rate-limit tier; answers 429 or 503 itself. `onRefused` runs first (for the key-burning faults). */
  function limit(r: RouteRequest, onRefused?: (status: 429 | 503) => void): boolean {
    const key = bearerKey(r);
    const decision = state.limiter.take(key, state.tiers.get(key) ?? 'standard');
    if (decision.kind === 'ok') return true;
    if (decision.kind === 'unavailable') {
      if (fake.faults.has('v1.errors.limiter-unavailable-503/fail-open')) return true;
      onRefused?.(503);
      v1.problem(r.res, 503, 'internal_failed', { detail: 'Rate-limit protection is unavailable for this key; the request was refused (fail-closed). Retry later.', retryable: true });
      return false;
    }
    if (decision.refused > 5 && fake.faults.has('load.v1.rate-limit.refusals-are-429/overload-500')) {
      v1.problem(r.res, 500, 'internal_failed', { detail: 'The rate limiter is overloaded.', retryable: false });
      return false;
    }
    onRefused?.(429);
    const headers: Record<string, string> = fake.faults.has('v1.errors.rate-limited/no-retry-after') ? {} : { 'retry-after': String(Math.max(1, Math.ceil(decision.retryAfterMs / 1000))) };
    const retryable = !(decision.refused > 3 && fake.faults.has('load.v1.rate-limit.429-shape/retryable-false-under-burst'));
    v1.problem(r.res, 429, 'rate_limited', { detail: 'This API key is over its rate limit: wait for Retry-After.', retryable, retryAfterMs: decision.retryAfterMs, headers });
    return false;
  }

  function gate(r: RouteRequest, scopes: readonly string[]): FakeCaller | undefined {
    const caller = authenticate(r, scopes);
    return caller && limit(r) ? caller : undefined;
  }

  function writeEvent(res: ServerResponse, e: RunEvent, replayed: boolean): void {
    let data = e.data;
    if (e.type === ACCEPTED) {
      data = { ...data, replayed: replayed || data.replayed === true };
      if (data.replayed === false && fake.faults.has('v1.execute.turn.accepted-event/replayed-missing')) delete data.replayed;
    }
    let id = `id: ${e.sequence}\n`;
    if (e.type === 'run.progress' && fake.faults.has('v1.runs.events.identity/progress-without-id')) {
      id = '';
      const { event_id: _dropped, ...rest } = data;
      data = rest;
    }
    res.write(`${id}event: ${e.type}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  /** Streams a run's events after `after` until its terminal event; `onEarlyClose` runs when the reader leaves first. */
  const readersFromStart = new WeakMap<Run, number>();

  function pipe(res: ServerResponse, run: Run, after: number, options: { replayed?: boolean; onEarlyClose?: () => void; reader?: boolean } = {}): void {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    // A parked run may have nothing to send yet; the reader still gets its headers now.
    res.flushHeaders();
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      run.listeners.delete(write);
      unregister();
      res.end();
    };
    // Readers of a run's events from its start, counted for the fault that hits only a crowd of readers.
    const crowd = options.reader && after === 0 ? (readersFromStart.get(run) ?? 0) + 1 : 0;
    if (crowd > 0) readersFromStart.set(run, crowd);
    const skipped = crowd > 4 && fake.faults.has('load.v1.events.fanout-same-events/late-subscriber-gap') ? (run.events[0]?.sequence ?? 1) + 1 : undefined;
    const write = (e: RunEvent) => {
      if (e.sequence !== skipped) writeEvent(res, e, options.replayed ?? false);
      if (TERMINAL_KINDS.has(e.type)) end();
    };
    const unregister = fake.lifecycle.onClose(end);
    res.on('close', () => {
      if (ended) return;
      options.onEarlyClose?.();
      end();
    });
    for (const e of engine.eventsAfter(run, after)) {
      write(e);
      if (ended) return;
    }
    if (isFinished(run)) end();
    else run.listeners.add(write);
  }

  function respondStored(r: RouteRequest, stored: StoredExecution): void {
    if (stored.kind === 'refusal') {
      v1.problem(r.res, stored.status, stored.status === 429 ? 'rate_limited' : 'internal_failed', { detail: 'Replayed refusal.', retryable: true });
      return;
    }
    const run = engine.runs.get(stored.runId);
    if (stored.kind === 'task' || !run) {
      v1.json(r.res, 200, stored.kind === 'task' ? JSON.parse(stored.body) : { run_id: stored.runId, replayed: true });
      return;
    }
    pipe(r.res, run, 0, { replayed: true });
  }

  /**
   * Reads and validates an execute request (version header, JSON, the mode's contract, the key);
   * answers 400 itself and returns undefined when it is unusable.
   */
  async function readExecute(r: RouteRequest): Promise<ExecuteRequest | undefined> {
    const version = r.header('x-ai-platform-version');
    if (version !== undefined && (version !== 'v1' || fake.faults.has('v1.versioning.header/rejected'))) {
      v1.problem(r.res, 400, 'invalid_request', { detail: 'X-AI-Platform-Version may only carry v1.', retryable: false, fieldErrors: [{ path: 'X-AI-Platform-Version', code: 'invalid_value', message: 'must be v1' }] });
      return undefined;
    }
    const text = await r.body();
    const parsed = parseJson(text);
    if (!parsed.ok) {
      v1.problem(r.res, 400, 'invalid_request', { detail: 'The request body is not valid JSON.', retryable: false });
      return undefined;
    }
    const isTask = isRecord(parsed.value) && parsed.value.mode === 'task';
    let body = parsed.value;
    // The spec names the mode "mode:turn" but closes the turn body; a `mode: "turn"` marker is tolerated.
    if (!isTask && isRecord(body) && body.mode === 'turn') {
      const { mode: _mode, ...rest } = body;
      body = rest;
    }
    const valid = (isTask ? schemas.task : schemas.turn).safeParse(body);
    if (!valid.success) {
      v1.problem(r.res, 400, 'invalid_request', { detail: `The ${isTask ? 'task' : 'turn'} request does not match the contract.`, retryable: false, fieldErrors: fieldErrors(valid.error) });
      return undefined;
    }
    const bodyKey = !isTask && isRecord(body) && typeof body.idempotencyKey === 'string' ? body.idempotencyKey : undefined;
    const key = r.header('idempotency-key') ?? bodyKey;
    const tooShort = key !== undefined && key.length < 16 && fake.faults.has('v1.execute.idempotency.key-format/min-16-chars');
    if (key !== undefined && (!identifier.safeParse(key).success || tooShort)) {
      v1.problem(r.res, 400, 'invalid_request', { detail: 'Idempotency-Key must be an Identifier: 1-128 characters matching ^[A-Za-z0-9][A-Za-z0-9._:-]*$.', retryable: false, fieldErrors: [{ path: 'Idempotency-Key', code: 'invalid_string', message: 'not an Identifier' }] });
      return undefined;
    }
    const fingerprint = fake.faults.has('v1.execute.idempotency.normalized/raw-text') ? text : canonicalJson(body);
    return { mode: isTask ? 'task' : 'turn', body, key, fingerprint };
  }

  /** Answers a repeated key itself (replay or 409) and returns true; false when the request is new. */
  function answeredByKey(r: RouteRequest, scope: string, request: ExecuteRequest): boolean {
    if (request.key === undefined) return false;
    const seen = state.idempotency.lookup(scope, request.key, request.fingerprint);
    if (seen.kind === 'new') return false;
    if (seen.kind === 'replay') {
      if (fake.faults.has('v1.execute.idempotency.replay/re-executes') && seen.stored.kind !== 'refusal') return false;
      respondStored(r, seen.stored);
      return true;
    }
    if (fake.faults.has('v1.execute.idempotency.conflict/replays-different-body')) respondStored(r, seen.stored);
    else v1.problem(r.res, 409, 'conflict', { detail: 'This Idempotency-Key was used with a different request: use a new key for a new request.', retryable: false });
    return true;
  }

  async function execute(r: RouteRequest): Promise<void> {
    const caller = authenticate(r, ['runs:write']);
    if (!caller) return;
    const request = await readExecute(r);
    if (!request) return;
    const { key, fingerprint } = request;
    const scope = fake.faults.has('v1.execute.idempotency.scope/global-keys') ? 'v1' : `${caller.tenant}\u0001${caller.principal}\u0001v1`;
    const burnKey = (status: 429 | 503) => {
      const fault = status === 429 ? 'v1.execute.idempotency.retry-after-429/key-burnt' : 'v1.execute.idempotency.retry-after-503/key-burnt';
      if (key !== undefined && fake.faults.has(fault)) state.idempotency.remember(scope, key, fingerprint, { kind: 'refusal', status });
    };
    if (!limit(r, burnKey)) return;
    if (answeredByKey(r, scope, request)) return;
    // The race a storm of one new key finds: the key is checked, then remembered a tick later.
    if (key !== undefined && fake.faults.has('load.v1.idempotency.storm-one-run/race')) await new Promise((resolve) => setTimeout(resolve, 25));
    if (request.mode === 'task') {
      const scenario = taskScenarioOf(request.body);
      const run = engine.start(caller, 'task', scenario ? taskScripts[scenario] : defaultTaskScript);
      const body = JSON.stringify({ run_id: run.id, accepted: true });
      if (key !== undefined) state.idempotency.remember(scope, key, fingerprint, { kind: 'task', runId: run.id, body });
      const contentType = fake.faults.has('v1.execute.task.run-id/text-plain') ? 'text/plain' : 'application/json';
      r.res.writeHead(200, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
      r.res.end(body);
      return;
    }
    const run = engine.start(caller, 'turn', turnScript);
    if (key !== undefined) state.idempotency.remember(scope, key, fingerprint, { kind: 'turn', runId: run.id });
    if (fake.faults.has('v1.execute.turn.stream/json-response')) v1.json(r.res, 200, { run_id: run.id });
    else pipe(r.res, run, 0);
  }

  function findRun(r: RouteRequest, caller: FakeCaller): Run | undefined {
    const run = engine.find(caller.tenant, r.params[0]!);
    if (!run) v1.problem(r.res, 404, 'invalid_request', { detail: 'No run with this id for this tenant.', retryable: false });
    return run;
  }

  function getRun(r: RouteRequest): void {
    const caller = gate(r, ['runs:read']);
    const run = caller && findRun(r, caller);
    if (!run) return;
    const text = JSON.stringify(engine.projection(run));
    r.res.writeHead(200, { 'content-type': fake.faults.has('v1.runs.get/html') ? 'text/html' : 'application/json', 'content-length': Buffer.byteLength(text) });
    r.res.end(text);
  }

  function events(r: RouteRequest): void {
    const caller = gate(r, ['runs:read']);
    const run = caller && findRun(r, caller);
    if (!run) return;
    let after = 0;
    const lastEventId = r.header('last-event-id');
    if (lastEventId !== undefined) {
      if (!/^\d{1,15}$/.test(lastEventId.trim())) {
        v1.problem(r.res, 400, 'invalid_request', { detail: 'Last-Event-ID carries the sequence of a stored run event (an integer).', retryable: false });
        return;
      }
      after = Number(lastEventId.trim());
      if (fake.faults.has('v1.runs.events.resume/repeats-cursor-event')) after -= 1;
    }
    const forget = fake.faults.has('v1.runs.events.dropped-connection/forgets-run');
    pipe(r.res, run, after, {
      reader: lastEventId === undefined,
      onEarlyClose: () => {
        // Only runs that never parked: an approval racing the dropped stream must not lose its run.
        if (forget && run.mode === 'task' && run.state === 'in_flight' && !run.events.some((e) => e.data.action_digest !== undefined)) engine.forget(run);
      },
    });
  }

  async function approve(r: RouteRequest): Promise<void> {
    const caller = gate(r, ['runs:write']);
    const run = caller && findRun(r, caller);
    if (!run) return;
    const parsed = parseJson(await r.body());
    const schema = fake.faults.has('v1.runs.approve.request-shape/open-body') ? z.looseObject(approveRequest.shape) : approveRequest;
    const body = parsed.ok ? schema.safeParse(parsed.value) : undefined;
    if (!body?.success) {
      v1.problem(r.res, 400, 'invalid_request', { detail: 'Send {"action_digest": "...", "decision": "approved" | "rejected"} and nothing else.', retryable: false, ...(body ? { fieldErrors: fieldErrors(body.error) } : {}) });
      return;
    }
    const decision = DECISIONS.find((d) => d === body.data.decision);
    if (!decision) {
      v1.problem(r.res, 400, 'invalid_request', { detail: 'decision must be "approved" or "rejected".', retryable: false, fieldErrors: [{ path: 'decision', code: 'invalid_value', message: 'approved or rejected' }] });
      return;
    }
    const stall = fake.faults.has('v1.runs.approve.resumes/no-resume') && run.state === 'parked' && run.actionDigest === body.data.action_digest;
    const outcome = stall ? 'approved' : engine.approve(run, body.data.action_digest, decision, fake.faults.has('v1.runs.approve.digest-binds/ignores-digest'));
    if (outcome === 'not-parked') v1.problem(r.res, 409, 'conflict', { detail: `The run is ${run.state}, not parked awaiting approval.`, retryable: false });
    else if (outcome === 'digest-mismatch') v1.problem(r.res, 409, 'conflict', { detail: 'action_digest does not match the action this run proposes: read it again from the run.', retryable: false });
    else v1.json(r.res, 200, { run_id: run.id, decision, state: run.state });
  }

  function cancel(r: RouteRequest): void {
    const caller = gate(r, ['runs:write']);
    const run = caller && findRun(r, caller);
    if (!run) return;
    const wasFinished = isFinished(run);
    if (!wasFinished && !fake.faults.has('v1.runs.cancel.terminal-event/no-event')) engine.cancel(run);
    v1.json(r.res, 200, { run_id: run.id, cancellation: wasFinished ? 'not-needed' : 'accepted', state: run.state });
  }

  function usage(r: RouteRequest): void {
    const caller = gate(r, ['runs:read']);
    if (!caller) return;
    const runs = engine.ofTenant(fake.faults.has('v1.usage.tenant-scoped/all-tenants') ? undefined : caller.tenant);
    const byState: Record<string, number> = {};
    for (const run of runs) byState[run.state] = (byState[run.state] ?? 0) + 1;
    const body = {
      period: { start: new Date(Date.now() - 86_400_000).toISOString().replace('Z', '+00:00'), end: new Date().toISOString().replace('Z', '+00:00') },
      requests: state.requests.get(caller.tenant) ?? 0,
      runs: { total: runs.length, by_state: byState },
      recent_runs: runs.slice(0, 200).map((run) => ({ run_id: run.id, mode: run.mode, state: run.state })),
      spend: { currency: 'USD', amount: Math.round(runs.length * 0.0012 * 1e6) / 1e6 },
    };
    const text = JSON.stringify(body);
    r.res.writeHead(200, { 'content-type': fake.faults.has('v1.usage.readback/text-plain') ? 'text/plain' : 'application/json', 'content-length': Buffer.byteLength(text) });
    r.res.end(text);
  }

  return [
    { method: 'POST', pattern: /^\/v1\/execute$/, handler: execute },
    // The reference client's path; the fake serves it as an alias of turn-mode execute.
    { method: 'POST', pattern: /^\/v1\/chat$/, handler: execute },
    { method: 'GET', pattern: new RegExp(`^/v1/runs/${RUN_ID}$`), handler: getRun },
    { method: 'GET', pattern: new RegExp(`^/v1/runs/${RUN_ID}/events$`), handler: events },
    { method: 'POST', pattern: new RegExp(`^/v1/runs/${RUN_ID}/approve$`), handler: approve },
    { method: 'POST', pattern: new RegExp(`^/v1/runs/${RUN_ID}/cancel$`), handler: cancel },
    { method: 'GET', pattern: /^\/v1\/usage$/, handler: usage },
  ];
}
