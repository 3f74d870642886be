/**
 * A same-key duplicate sent before the first request was answered (helper 101): neither replay
 * sentence speaks of it ("Replay with the same key and the same body returns the original response
 * without re-executing", v8 Endpoints > Rules 3; "Same key with the same request replays safely",
 * v1 Endpoints > Rules 2), and many deployments refuse it 409 "request in progress". That refusal
 * passes (it failed as "answered 409, the original 202" before); an overlapping duplicate accepted
 * with another answer still fails (a second execution), as does one sent after the answer and
 * refused. With another body, an overlapping request is still owed a 409, of whatever code.
 */
import { describe, expect, it } from 'vitest';
import { judgeRecording } from '../../src/passive/judge.ts';
import { parseProfile } from '../../src/profile/load.ts';
import type { Exchange } from '../../src/rule/index.ts';

const BASE = 'https://gateway.example.com';
const V8_AUTH = { authorization: 'Bearer v8_writer_token_0123456789abcdef', 'content-type': 'application/json' };
const V1_AUTH = { authorization: 'Bearer service_sk_inflight0123456789abcdef', 'content-type': 'application/json' };
const KEY = 'apicert-inflight-key-0001';
const CREATE = { goalSpec: { task: 'summarise' }, resourceBudget: { maximumSteps: 5, maximumToolCalls: 5, maximumElapsedMs: 60_000, maximumParallelism: 1 } };
const OTHER = { ...CREATE, goalSpec: { task: 'summarise, changed' } };
const T0 = Date.UTC(2025, 0, 1);

type Part = Partial<Exchange> & { method: string; path: string; atMs: number };

/** Exchanges in the order given, each starting `atMs` after T0 (100 ms long unless said). */
function journal(parts: Part[]): Exchange[] {
  return parts.map(({ atMs, ...e }, i) => ({ index: i, startedAt: new Date(T0 + atMs).toISOString(), durationMs: 100, url: `${BASE}${e.path}`, requestHeaders: {}, responseHeaders: {}, ...e }) as Exchange);
}

const TASK = { mode: 'task', task: { scenario: 'apicert.completes' } };
const OTHER_TASK = { mode: 'task', task: { scenario: 'apicert.fails' } };
/** Which task bodies the /v1 deployment admits: the conflict rule judges only a request it would admit under a fresh key. */
const V1_PROFILE = parseProfile(
  { target: BASE, credentials: [{ name: 'full', token: V1_AUTH.authorization.slice(7), surfaces: ['v1'], scopes: ['runs:read', 'runs:write'], principal: 'alice', tenant: 't1' }], fixtures: { v1: { tasks: { completes: TASK, fails: OTHER_TASK } } } },
  'test profile',
);

async function verdicts(surface: 'v8' | 'v1', exchanges: Exchange[], patterns: string[]): Promise<Record<string, string>> {
  const { results } = await judgeRecording(exchanges, { surfaces: [surface], patterns, env: {}, ...(surface === 'v1' ? { profile: V1_PROFILE } : {}) });
  return Object.fromEntries(results.map((r) => [r.rule.id, `${r.verdict}${r.verdict === 'fail' ? `: ${r.reason}` : ''}`]));
}

const projection = (runId: string) => JSON.stringify({ runId, status: 'running', steps: [], sequence: 1 });
const created = (atMs: number, runId = 'm-1', body: unknown = CREATE): Part => ({
  atMs,
  method: 'POST',
  path: '/v8/missions',
  requestHeaders: { ...V8_AUTH, 'idempotency-key': KEY },
  requestBody: JSON.stringify(body),
  status: 202,
  responseHeaders: { 'content-type': 'application/json' },
  responseBody: projection(runId),
});
const inProgress = (status = 409, title = 'Request in progress') => ({ status, responseHeaders: { 'content-type': 'application/problem+json' }, responseBody: JSON.stringify({ type: 'about:blank', title, status }) });

const REPLAY = 'v8.missions.idempotency.replay';
const CONFLICT = 'v8.missions.idempotency.conflict';

describe('/v8 create: a same-key same-body duplicate sent before the original was answered', () => {
  it('passes refused 409 "in progress", and the replay sent after the answer is still judged', async () => {
    const v = await verdicts('v8', journal([created(0), { ...created(20), ...inProgress() }, created(500)]), [REPLAY]);
    expect(v[REPLAY]).toBe('pass');
  });

  it('fails accepted with another mission: a second execution', async () => {
    const v = await verdicts('v8', journal([created(0), created(20, 'm-2')]), [REPLAY]);
    expect(v[REPLAY]).toMatch(/^fail: .*not a replay of the original/);
  });

  it('passes accepted with the original response (the deployment waited for the first)', async () => {
    expect((await verdicts('v8', journal([created(0), { ...created(20), durationMs: 200 }]), [REPLAY]))[REPLAY]).toBe('pass');
  });

  it('still fails a 409 to a duplicate sent after the original was answered, and one without timings', async () => {
    expect((await verdicts('v8', journal([created(0), { ...created(150), ...inProgress() }]), [REPLAY]))[REPLAY]).toMatch(/^fail: .*answered 409, the original 202/);
    const untimed = journal([created(0), { ...created(20), ...inProgress() }]).map(({ startedAt: _s, durationMs: _d, ...ex }) => ex as Exchange);
    expect((await verdicts('v8', untimed, [REPLAY]))[REPLAY]).toMatch(/^fail: /);
  });

  it('fails a refusal other than 409 (no practice refuses an in-progress duplicate so)', async () => {
    expect((await verdicts('v8', journal([created(0), { ...created(20), ...inProgress(500, 'Internal error') }]), [REPLAY]))[REPLAY]).toMatch(/^fail: .*answered 500/);
  });

  it('with another body: a 409 passes, an acceptance fails whichever the deployment took first', async () => {
    expect((await verdicts('v8', journal([created(0), { ...created(20, 'm-1', OTHER), ...inProgress() }]), [CONFLICT]))[CONFLICT]).toBe('pass');
    expect((await verdicts('v8', journal([created(0), created(20, 'm-2', OTHER)]), [CONFLICT]))[CONFLICT]).toMatch(/^fail: .*sent before it was answered, answered 202, expected a 409/);
  });
});

describe('/v8 signals and cancel: a duplicate refused 409 while the original was in progress', () => {
  const signal = (atMs: number, extra: Partial<Exchange> = {}): Part => ({
    atMs,
    method: 'POST',
    path: '/v8/missions/m-1/signals',
    requestHeaders: { ...V8_AUTH, 'idempotency-key': KEY },
    requestBody: JSON.stringify({ signal: 'go', payload: { n: 1 } }),
    status: 200,
    responseHeaders: {},
    responseBody: '',
    ...extra,
  });
  const cancel = (atMs: number, extra: Partial<Exchange> = {}): Part => ({ atMs, method: 'POST', path: '/v8/missions/m-1/cancel', requestHeaders: { ...V8_AUTH, 'idempotency-key': KEY }, status: 202, responseHeaders: { 'content-type': 'application/json' }, responseBody: '{"accepted":true}', ...extra });

  it('passes on signals.replay and cancel.replay', async () => {
    const v = await verdicts('v8', journal([created(-1000), signal(0), signal(20, inProgress()), signal(500), cancel(1000), cancel(1020, inProgress()), cancel(1500)]), ['v8.missions.signals.replay', 'v8.missions.cancel.replay']);
    expect(v).toMatchObject({ 'v8.missions.signals.replay': 'pass', 'v8.missions.cancel.replay': 'pass' });
  });
});

describe('/v1 execute: a same-key duplicate sent before the original was answered', () => {
  const task = (atMs: number, runId = 'run_1', body: unknown = TASK): Part => ({
    atMs,
    method: 'POST',
    path: '/v1/execute',
    requestHeaders: { ...V1_AUTH, 'idempotency-key': KEY },
    requestBody: JSON.stringify(body),
    status: 200,
    responseHeaders: { 'content-type': 'application/json' },
    responseBody: JSON.stringify({ run_id: runId }),
  });
  const problem = (code: string, retryable: boolean) => ({ status: 409, responseHeaders: { 'content-type': 'application/json' }, responseBody: JSON.stringify({ code, message: code, retryable }) });
  const turnBody = { mode: 'turn', requestId: 'req-1', messages: [{ role: 'user', content: 'hi' }] };
  const accepted = (replayed: boolean) => `id: 1\nevent: request.accepted\ndata: ${JSON.stringify({ type: 'request.accepted', sequence: 1, run_id: 'run_9', replayed })}\n\nid: 2\nevent: run.completed\ndata: ${JSON.stringify({ type: 'run.completed', sequence: 2, run_id: 'run_9' })}\n\n`;
  const turn = (atMs: number, replayed: boolean): Part => ({
    atMs,
    method: 'POST',
    path: '/v1/execute',
    requestHeaders: { ...V1_AUTH, accept: 'text/event-stream', 'idempotency-key': KEY },
    requestBody: JSON.stringify(turnBody),
    status: 200,
    responseHeaders: { 'content-type': 'text/event-stream' },
    responseBody: accepted(replayed),
    streamEnd: 'server',
  });
  const ID = 'v1.execute.idempotency.replay';

  it('passes a 409 idempotency_replay, retryable (the fake\'s v1.execute/in-flight-409)', async () => {
    expect((await verdicts('v1', journal([task(0), { ...task(20), ...problem('idempotency_replay', true) }, task(500)]), [ID]))[ID]).toBe('pass');
  });

  it('fails a 409 conflict to the same request, and a second run_id', async () => {
    expect((await verdicts('v1', journal([task(0), { ...task(20), ...problem('conflict', false) }]), [ID]))[ID]).toMatch(/^fail: /);
    expect((await verdicts('v1', journal([task(0), task(20, 'run_2')]), [ID]))[ID]).toMatch(/^fail: .*executed twice/);
  });

  it('passes two overlapping turns when either says replayed:true (the deployment may have taken the later first), fails when neither does', async () => {
    expect((await verdicts('v1', journal([turn(0, true), turn(20, false)]), [ID]))[ID]).toBe('pass');
    expect((await verdicts('v1', journal([turn(0, false), turn(20, false)]), [ID]))[ID]).toMatch(/^fail: .*replayed: false/);
    // One after the other, the later one must be the replay.
    expect((await verdicts('v1', journal([turn(0, true), turn(500, false)]), [ID]))[ID]).toMatch(/^fail: .*replayed: false/);
  });

  it('another request sent before the first was answered: a 409 of any code passes, sent after it the conflict code is still owed', async () => {
    const CONFLICT_ID = 'v1.execute.idempotency.conflict';
    expect((await verdicts('v1', journal([task(0), { ...task(20, 'run_1', OTHER_TASK), ...problem('idempotency_replay', true) }]), [CONFLICT_ID]))[CONFLICT_ID]).toBe('pass');
    expect((await verdicts('v1', journal([task(0), { ...task(200, 'run_1', OTHER_TASK), ...problem('idempotency_replay', true) }]), [CONFLICT_ID]))[CONFLICT_ID]).toMatch(/^fail: .*code "idempotency_replay", expected conflict/);
  });
});
