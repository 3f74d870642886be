/**
 * Endpoints rule 4 on the client side: "After a dropped connection on a task-mode run, read the run
 * back or resume its event stream with `Last-Event-ID` before posting again." The
 * `dropped-task-stream` scenario cuts the first event stream of a task-mode run after one event;
 * `client.v1.endpoints.task-readback` fails a client that posts the run's task again before it read
 * the run back or resumed, and never one that reads back, resumes, or does not post again.
 */
import { describe, expect, it } from 'vitest';
import { recorded, sessionJudge } from './client-sessions.ts';
import type { RuleResult } from '../../src/rule/index.ts';
import { judgeClient } from '../../src/client-judge/judge-client.ts';
import { scenarioByName, type IncomingRequest } from '../../src/client-judge/scenarios.ts';

const ID = 'client.v1.endpoints.task-readback';
const judge = sessionJudge();
const verdict = (results: Map<string, RuleResult>, id = ID) => [results.get(id)?.verdict, results.get(id)?.reason];

const KEY = 'task-key-0123456789ab';
const keyed = (key: string) => ({ 'content-type': 'application/json', 'idempotency-key': key });
const task = (n: number) => JSON.stringify({ mode: 'task', task: { scenario: 'apicert.completes', n } });
const CUT = 'stream cut after 1 event(s)';
/** The task POST (answered with run_1 at 10 ms) and its event stream, cut at 40 ms. */
const started = recorded({ index: 0, at: 0, method: 'POST', path: '/v1/execute', headers: keyed(KEY), body: task(1), status: 200, respondedAt: 10, runId: 'run_1', connection: 1, connectedAt: -5, onConnection: 1 });
const cut = recorded({ index: 1, at: 20, method: 'GET', path: '/v1/runs/run_1/events', status: 200, respondedAt: 40, eventIds: ['1'], adversity: CUT, connection: 2, connectedAt: 19, onConnection: 1 });
const post = (index: number, at: number, key = KEY, n = 1) => recorded({ index, at, method: 'POST', path: '/v1/execute', headers: keyed(key), body: task(n), status: 200, connection: 10 + index, connectedAt: at - 1, onConnection: 1 });
const get = (index: number, at: number, path: string, headers: Record<string, string> = {}) => recorded({ index, at, method: 'GET', path, headers, status: 200, connection: 10 + index, connectedAt: at - 1, onConnection: 1 });
const run = (...later: ReturnType<typeof recorded>[]) => judge({ scenario: 'dropped-task-stream', exchanges: [started, cut, ...later] });

describe('client.v1.endpoints.task-readback over recorded logs', () => {
  it('fails the task posted again before any readback, even under a new key or within 25 ms of the cut', async () => {
    const results = await run(post(2, 45), get(3, 60, '/v1/runs/run_1'));
    expect(results.get(ID)?.verdict).toBe('fail');
    expect(results.get(ID)?.reason).toMatch(/task-mode run run_1 was cut, the client posted its task again \(#2 POST \/v1\/execute\) before reading the run back/);
    expect((await run(post(2, 300, 'task-key-another-key-01'))).get(ID)?.verdict).toBe('fail');
  });

  it.each([
    ['a GET of the run', get(2, 100, '/v1/runs/run_1')],
    ['a resume with Last-Event-ID', get(2, 100, '/v1/runs/run_1/events', { 'last-event-id': '1' })],
    ['a read of its events from the start', get(2, 100, '/v1/runs/run_1/events')],
  ])('passes %s before the identical task is posted again', async (_what, readback) => {
    expect(verdict(await run(readback, post(3, 200)))).toEqual(['pass', undefined]);
  });

  it('is not applicable to a client that reads back, resumes or posts other work, and never posts the task again', async () => {
    for (const later of [[get(2, 100, '/v1/runs/run_1')], [get(2, 100, '/v1/runs/run_1/events', { 'last-event-id': '1' })], [], [post(2, 100, 'task-key-other-work-01', 2)]]) {
      const results = await run(...later);
      expect(results.get(ID)?.verdict, results.get(ID)?.reason).toBe('not-applicable');
    }
    expect((await run(get(2, 100, '/v1/runs/run_1'))).get(ID)?.reason).toMatch(/read the run back or resumed its stream: #2 GET/);
  });

  it('does not judge a post of the task already under way when the stream was cut', async () => {
    // Arrived at 30 ms, before the cut at 40 ms: the client sent it before it could know of the cut.
    const results = await run(post(2, 30), get(3, 100, '/v1/runs/run_1'));
    expect(results.get(ID)?.verdict).toBe('not-applicable');
  });

  it('is inconclusive where a verdict would rest on what the client had not sent yet', async () => {
    expect((await judge({ scenario: 'dropped-task-stream', exchanges: [started, cut], ended: 'deadline' })).get(ID)?.verdict).toBe('inconclusive');
    expect((await judge({ scenario: 'dropped-task-stream', exchanges: [started, cut], dropped: 2 })).get(ID)?.verdict).toBe('inconclusive');
    expect((await judge({ scenario: 'dropped-task-stream', exchanges: [started, cut], ended: 'exit', exitCode: 1 })).get(ID)?.verdict).toBe('inconclusive');
    // The scenario never happened: the client followed no task run's stream.
    expect((await judge({ scenario: 'dropped-task-stream', exchanges: [started] })).get(ID)?.verdict).toBe('inconclusive');
  });
});

describe('the dropped-task-stream scenario', () => {
  const request = (path: string): IncomingRequest => ({ method: 'GET', path, headers: {}, body: '' });
  it('cuts the first event stream of a task-mode run only: a turn run’s stream and later reads are served', () => {
    const scenario = scenarioByName('dropped-task-stream')!;
    const fired = new Set<string>();
    const memory = { taskRuns: new Set(['run_task']) };
    const settings = { timeScale: 1 };
    expect(scenario.decide(request('/v1/runs/run_turn/events'), fired, settings, memory).kind).toBe('serve');
    expect(scenario.decide(request('/v1/runs/run_task'), fired, settings, memory).kind).toBe('serve');
    expect(scenario.decide(request('/v1/runs/run_task/events'), fired, settings, memory)).toEqual({ kind: 'drop-after-events', events: 1 });
    expect(scenario.decide(request('/v1/runs/run_task/events'), fired, settings, memory).kind).toBe('serve');
  });
});

/** Scripted clients through judge-client's front: each takes a legal course after the cut. */
const script = (source: string): string[] => [process.execPath, '--input-type=module', '-e', source];
const PRELUDE = `
const base = process.env.APICERT_BASE_URL;
const headers = (extra = {}) => ({ authorization: 'Bearer ' + process.env.APICERT_V1_KEY, 'content-type': 'application/json', ...extra });
const body = JSON.stringify({ mode: 'task', task: { scenario: 'apicert.completes', instruction: 'summarise three short documents' } });
const key = 'legal-task-key-000000000001';
const postTask = async () => (await (await fetch(base + '/v1/execute', { method: 'POST', headers: headers({ 'idempotency-key': key }), body })).json()).run_id;
/** Reads a run's event stream; the id of the last event received, and whether the connection broke. */
async function follow(runId, lastId) {
  const res = await fetch(base + '/v1/runs/' + runId + '/events', { headers: headers({ accept: 'text/event-stream', ...(lastId ? { 'last-event-id': lastId } : {}) }) });
  let text = '';
  try { for await (const chunk of res.body) text += Buffer.from(chunk).toString(); } catch { return { lastId: [...text.matchAll(/^id: ?(.*)$/gm)].at(-1)?.[1], dropped: true }; }
  return { lastId: [...text.matchAll(/^id: ?(.*)$/gm)].at(-1)?.[1], dropped: false };
}
const readBack = async (runId) => (await fetch(base + '/v1/runs/' + runId, { headers: headers() })).arrayBuffer();
const runId = await postTask();
const first = await follow(runId);
if (!first.dropped) { console.error('the stream was not cut'); process.exit(1); }
`;

const LEGAL_CLIENTS = {
  'reads the run back, then stops': `${PRELUDE} await readBack(runId);`,
  'resumes with Last-Event-ID to the end': `${PRELUDE} await follow(runId, first.lastId);`,
  'reads the run back, then posts the identical task under the same key': `${PRELUDE} await readBack(runId); await postTask();`,
};

describe('legal clients after the cut, end to end', () => {
  it.each(Object.entries(LEGAL_CLIENTS))('%s: never failed', async (name, source) => {
    const { results, sessions } = await judgeClient({ scenarios: ['dropped-task-stream'], timeScale: 0.02, command: script(source), maxSecondsPerScenario: 20, quietMs: 1_000, seed: 7 });
    expect(sessions[0]!.exitCode, sessions[0]!.output).toBe(0);
    expect(sessions[0]!.exchanges.some((ex) => ex.adversity === CUT)).toBe(true);
    const result = results.find((r) => r.rule.id === ID);
    expect(result?.verdict, result?.reason).toBe(name.includes('posts the identical task') ? 'pass' : 'not-applicable');
  }, 60_000);
});
