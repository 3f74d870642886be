/**
 * A stream its reader stopped (apicert's stream timeout or bounds, a client letting go) before its
 * server ended it did not end: a rule judging the whole stream (which terminal event came, whether
 * one came, how many of an event it carried) lacks its end, in a recording (untestable, or inconclusive
 * as in certify where apicert's own reader stopped it at its time, byte or event bound: the stops its
 * HAR names) as in an active run (inconclusive), said once by `endedStream`/`streamRead` (src/traffic/read.ts). What the
 * events read do show still decides: an event after the terminal one fails, and a stream held open
 * for the whole close grace after its terminal event fails the close rules.
 */
import { describe, expect, it } from 'vitest';
import { minimalTurn } from '../../scenarios/v1/turns.ts';
import { cancelTerminalEvent } from '../../src/checks/v1/runs/cancel.ts';
import { judgeRecording } from '../../src/passive/judge.ts';
import { parseProfile } from '../../src/profile/load.ts';
import { Inconclusive, runJudgement, type Exchange, type Judgement, type StreamEnd } from '../../src/rule/index.ts';
import type { Profile } from '../../src/profile/schema.ts';
import { replay } from '../../src/checks/v1/execute/idempotency.ts';
import { resume } from '../../src/checks/v8/missions/events.ts';
import { endedStream, streamRead } from '../../src/traffic/read.ts';
import { v1Recording } from '../passive/v1-recording.ts';
import { operating, post, verdicts as mcpVerdicts, type Part } from '../mcp/mcp-recording.ts';

const BASE = 'https://fabric.example.com';
const TOKEN = 'service_sk_readerstopped0123456789abcdef';
const AUTH = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
const LONG = { mode: 'task', task: { scenario: 'apicert.long' } };
const COMPLETES = { mode: 'task', task: { scenario: 'apicert.completes' } };
const { journal, verdicts } = v1Recording(BASE, TOKEN, { long: LONG, completes: COMPLETES });
const V1_PROFILE = parseProfile(
  { target: BASE, credentials: [{ name: 'full', token: TOKEN, surfaces: ['v1'], scopes: ['runs:read', 'runs:write'], principal: 'alice', tenant: 't1' }], fixtures: { v1: { tasks: { long: LONG, completes: COMPLETES } } } },
  'test profile',
);

/** A /v1 run event, keeping its identity and sequence in its data. */
const event = (seq: number, type: string) => `id: ${seq}\nevent: ${type}\ndata: ${JSON.stringify({ apiVersion: 'v1', event_id: `evt_${seq}`, run_id: 'run_1', sequence: seq, type, ...(type === 'request.accepted' ? { replayed: seq > 100 } : {}) })}\n\n`;
const sse = (types: readonly string[], streamEnd: StreamEnd, first = 1) => ({ status: 200, responseHeaders: { 'content-type': 'text/event-stream' }, responseBody: types.map((t, i) => event(first + i, t)).join(''), streamEnd });

const activeVerdict = (judgement: Judgement, exchanges: Exchange[], profile: Profile = V1_PROFILE): string => {
  let failed = false;
  const ctx = { check: (held: unknown) => (held ? true : ((failed = true), false)), observe: () => undefined };
  try {
    runJudgement(ctx as never, judgement, exchanges, { source: 'active', profile });
  } catch (e) {
    if (e instanceof Inconclusive) return 'inconclusive';
    throw e;
  }
  return failed ? 'fail' : 'pass';
};

describe('v1.runs.cancel.terminal-event: the run\'s stream read after an accepted cancel', () => {
  const runEvents = { method: 'GET', path: '/v1/runs/run_1/events', credential: 'full', requestHeaders: AUTH };
  const cancelled = (after: ReturnType<typeof sse>) =>
    journal([
      { method: 'POST', path: '/v1/execute', credential: 'full', requestHeaders: AUTH, requestBody: JSON.stringify(LONG), status: 200, responseHeaders: { 'content-type': 'application/json' }, responseBody: JSON.stringify({ run_id: 'run_1' }) },
      // The run in flight: its reader let go after its first events.
      { ...runEvents, ...sse(['request.accepted', 'run.progress'], 'client-disconnect') },
      { method: 'POST', path: '/v1/runs/run_1/cancel', credential: 'full', requestHeaders: AUTH, status: 200, responseHeaders: { 'content-type': 'application/json' }, responseBody: '{}' },
      { ...runEvents, ...after },
    ]);
  const ID = 'v1.runs.cancel.terminal-event';
  const verdict = async (after: ReturnType<typeof sse>) => (await verdicts(cancelled(after), [ID]))[ID];

  it('a stream its reader timed out before any terminal event lacks its end: inconclusive in a recording as active (it once failed)', async () => {
    const stopped = sse(['request.accepted', 'run.progress'], 'timeout');
    expect(await verdict(stopped)).toBe('inconclusive');
    expect(activeVerdict(cancelTerminalEvent.judgement!, cancelled(stopped))).toBe('inconclusive');
  });

  it.each(['byte-limit', 'event-limit'] as const)('the same for a stream stopped at a reader\'s bound (%s)', async (end) => {
    expect(await verdict(sse(['request.accepted', 'run.progress'], end))).toBe('inconclusive');
  });

  it('a stream its (recorded) client let go of lacks its end: untestable in a recording', async () => {
    expect(await verdict(sse(['request.accepted', 'run.progress'], 'client-disconnect'))).toBe('untestable');
  });

  it('a stream its server ended without request.cancelled still fails; one ending at it passes', async () => {
    expect(await verdict(sse(['request.accepted', 'run.progress'], 'server'))).toBe('fail');
    expect(await verdict(sse(['request.accepted', 'run.progress', 'request.cancelled'], 'server'))).toBe('pass');
  });

  it('what the read events show still decides: an event after request.cancelled fails, however the reader stopped', async () => {
    expect(await verdict(sse(['request.accepted', 'request.cancelled', 'run.progress'], 'timeout'))).toBe('fail');
    // Another terminal event read is the run's end: no request.cancelled can follow it.
    expect(await verdict(sse(['request.accepted', 'run.completed'], 'client-disconnect'))).toBe('fail');
  });

  it('a stream held open for the whole close grace after request.cancelled fails', async () => {
    expect(await verdict(sse(['request.accepted', 'request.cancelled'], 'grace-expired'))).toBe('fail');
  });
});

describe('v1.execute.turn: a turn stream its reader stopped', () => {
  const turn = { method: 'POST', path: '/v1/execute', credential: 'full', requestHeaders: { ...AUTH, accept: 'text/event-stream' }, requestBody: JSON.stringify({ ...minimalTurn, requestId: 'req1' }) };
  const turnVerdict = async (stream: ReturnType<typeof sse>, id: string) => (await verdicts(journal([{ ...turn, ...stream }]), [id]))[id];

  it('turn.stream: stopped before any terminal event is inconclusive (apicert\'s timeout) or untestable (a client\'s disconnect); an event after the terminal one or a held-open close fails', async () => {
    expect(await turnVerdict(sse(['request.accepted', 'run.progress'], 'timeout'), 'v1.execute.turn.stream')).toBe('inconclusive');
    expect(await turnVerdict(sse(['request.accepted', 'run.progress'], 'client-disconnect'), 'v1.execute.turn.stream')).toBe('untestable');
    expect(await turnVerdict(sse(['request.accepted', 'run.completed', 'run.progress'], 'timeout'), 'v1.execute.turn.stream')).toBe('fail');
    expect(await turnVerdict(sse(['request.accepted', 'run.completed'], 'grace-expired'), 'v1.execute.turn.stream')).toBe('fail');
    expect(await turnVerdict(sse(['request.accepted', 'run.completed'], 'server'), 'v1.execute.turn.stream')).toBe('pass');
  });

  it('turn.accepted-event: a stream stopped before any event lacks its request.accepted (it once failed as "carried 0")', async () => {
    expect(await turnVerdict(sse([], 'timeout'), 'v1.execute.turn.accepted-event')).toBe('inconclusive');
    // One that ended at its terminal event without request.accepted still fails.
    expect(await turnVerdict(sse(['run.completed'], 'client-disconnect'), 'v1.execute.turn.accepted-event')).toBe('fail');
  });

  it('idempotency.replay: a replayed turn stream stopped before request.accepted lacks it (it once failed as "replayed: undefined")', async () => {
    const keyed = { ...turn, requestHeaders: { ...turn.requestHeaders, 'idempotency-key': 'apicert-reader-stopped-01' } };
    const first = { ...keyed, ...sse(['request.accepted', 'run.completed'], 'server') };
    const ID = 'v1.execute.idempotency.replay';
    const stopped = journal([first, { ...keyed, ...sse([], 'timeout') }]);
    // The shared replay judgement counts the original as judged (the replay's case names it): a recording passes on it, saying
    // the stopped replay was not judged; an active run, which sent the replay to see it, is inconclusive.
    const judged = await judgeRecording(stopped, { surfaces: ['v1'], patterns: [ID], profile: V1_PROFILE, env: {} });
    const result = judged.results.find((r) => r.rule.id === ID)!;
    expect(result.verdict, result.reason).not.toBe('fail');
    if (result.verdict === 'pass') expect(result.observations.find((o) => o.subject.startsWith('exchanges not judged'))?.value).toMatch(/reader stopped it \(timeout\)/);
    expect(activeVerdict(replay.judgement!, stopped)).toBe('inconclusive');
    // A replay whose request.accepted says replayed:false still fails (event 1 carries replayed:false).
    expect((await verdicts(journal([first, { ...keyed, ...sse(['request.accepted', 'run.completed'], 'timeout') }]), [ID]))[ID]).toBe('fail');
    expect((await verdicts(journal([first, { ...keyed, ...sse(['request.accepted', 'run.completed'], 'timeout', 101) }]), [ID]))[ID]).toBe('pass');
  });
});

describe('v8 mission streams its reader stopped', () => {
  const V8 = 'https://gateway.example.com';
  const V8_TOKEN = 'tok-reader-stopped-0000001';
  const RUN = '0190a8f0-1c2d-7e3f-8a4b-5c6d7e8f9a0c';
  const body = { goalSpec: { task: 'x' }, resourceBudget: { maximumSteps: 10, maximumToolCalls: 0, maximumElapsedMs: 60_000, maximumParallelism: 1 } };
  const json = { 'content-type': 'application/json', 'x-service-contract-version': 'service-integration-gateway-v8.1' };
  const auth = { authorization: `Bearer ${V8_TOKEN}` };
  const profile = parseProfile(
    {
      target: V8,
      credentials: [{ name: 'all', token: V8_TOKEN, surfaces: ['v8'], scopes: ['missions:write', 'missions:read', 'traces:read'], principal: 'alice' }],
      fixtures: { v8: { missions: { succeeds: body, timeLimit: body } } },
    },
    'test profile',
  );
  const mission = (seq: number, type: string) => `id: ${seq}\nevent: ${type}\ndata: ${JSON.stringify({ runId: RUN, sequence: seq, type, traceId: null })}\n\n`;
  const stream = (types: readonly string[], streamEnd: StreamEnd, first = 1) => ({ status: 200, responseHeaders: { 'content-type': 'text/event-stream' }, responseBody: types.map((t, i) => mission(first + i, t)).join(''), streamEnd });
  const exchanges = (...streams: Array<Partial<Exchange>>): Exchange[] =>
    [
      { method: 'POST', path: '/v8/missions', requestHeaders: { ...auth, 'content-type': 'application/json', 'idempotency-key': 'apicert-stopped-key-000001' }, requestBody: JSON.stringify(body), status: 202, responseHeaders: json, responseBody: JSON.stringify({ runId: RUN, status: 'running', sequence: 1, steps: [] }) },
      ...streams.map((s) => ({ method: 'GET', path: `/v8/missions/${RUN}/events`, requestHeaders: auth, ...s })),
    ].map((e, i) => ({ index: i, startedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(), durationMs: 10, url: `${V8}${e.path}`, responseHeaders: {}, ...e }) as Exchange);
  const verdict = async (id: string, ...streams: Array<Partial<Exchange>>) => {
    const { results } = await judgeRecording(exchanges(...streams), { surfaces: ['v8'], patterns: [id], profile, env: {} });
    return results.find((r) => r.rule.id === id)!;
  };
  const CLOSE = 'v8.missions.events.closes-after-terminal';

  it('closes-after-terminal: held open for the whole grace fails, even beside a stream stopped earlier; a server close passes', async () => {
    expect((await verdict(CLOSE, stream(['mission.started', 'mission.completed'], 'grace-expired'))).verdict).toBe('fail');
    expect((await verdict(CLOSE, stream(['mission.started', 'mission.completed'], 'server'))).verdict).toBe('pass');
    expect((await verdict(CLOSE, stream(['mission.started', 'mission.completed', 'mission.failed'], 'timeout'))).verdict).toBe('fail');
  });

  it('closes-after-terminal: a reader that let go at the terminal event does not know who closed the stream (it once passed on it)', async () => {
    const r = await verdict(CLOSE, stream(['mission.started', 'mission.completed'], 'client-disconnect'));
    expect(r.verdict, JSON.stringify(r.reason)).toBe('untestable');
    expect(r.reason ?? '').toMatch(/client-disconnect/);
  });

  it('events.resume: a resume its reader stopped before the terminal event lacks the rest (it once failed as a skip); a changed event still fails', async () => {
    const ID = 'v8.missions.events.resume';
    const full = stream(['mission.started', 'mission.step.started', 'mission.step.completed', 'mission.completed'], 'server');
    const resumed = (types: readonly string[], end: StreamEnd) => ({ ...stream(types, end, 2), requestHeaders: { ...auth, 'last-event-id': '1' } });
    expect((await verdict(ID, full, resumed(['mission.step.started', 'mission.step.completed', 'mission.completed'], 'server'))).verdict).toBe('pass');
    // The resume's 200 (the window held the cursor) is judged whole: a recording passes on it, saying the stopped rest was not judged.
    const r = await verdict(ID, full, resumed(['mission.step.started'], 'timeout'));
    expect(r.verdict, JSON.stringify(r.reason)).toBe('pass');
    expect(r.observations.find((o) => o.subject.startsWith('exchanges not judged'))?.value).toMatch(/reader stopped it \(timeout\) before any terminal event/);
    expect(activeVerdict(resume.judgement!, exchanges(full, resumed(['mission.step.started'], 'timeout')), profile)).toBe('inconclusive');
    expect((await verdict(ID, full, resumed(['mission.step.completed'], 'timeout'))).verdict).toBe('fail');
  });

  it('time-limit.terminal: a stream stopped before its terminal event says its end was not read', async () => {
    const r = await verdict('v8.missions.time-limit.terminal', stream(['mission.started'], 'timeout'));
    expect(r.verdict).toBe('inconclusive');
    expect(r.reason ?? '').toMatch(/reader stopped it \(timeout\)/);
    expect((await verdict('v8.missions.time-limit.terminal', stream(['mission.started', 'mission.completed'], 'client-disconnect'))).verdict).toBe('fail');
  });
});

describe('the accessor', () => {
  const ex = (streamEnd: StreamEnd | undefined, body: string) => ({ index: 0, method: 'GET', path: '/v1/runs/r/events', url: `${BASE}/v1/runs/r/events`, requestHeaders: {}, status: 200, responseHeaders: { 'content-type': 'text/event-stream' }, responseBody: body, ...(streamEnd ? { streamEnd } : {}) }) as Exchange;
  const judge = () => {
    const lacked: string[] = [];
    return { lacked, j: { lacks: (_ex: Exchange, why: string) => lacked.push(why) } as never };
  };
  const isEnd = (e: { event?: string }) => e.event === 'run.completed';

  it('lacks a stream its reader stopped before any terminal event, and says nothing of one its server ended or a recording that does not say', () => {
    for (const end of ['timeout', 'byte-limit', 'event-limit', 'client-disconnect', 'grace-expired'] as const) {
      const { lacked, j } = judge();
      expect(endedStream(j, ex(end, event(1, 'run.progress')), isEnd)).toBeUndefined();
      expect(lacked[0]).toMatch(new RegExp(`reader stopped it \\(${end}\\) before any terminal event`));
    }
    for (const end of ['server', undefined] as const) {
      const { lacked, j } = judge();
      expect(endedStream(j, ex(end, event(1, 'run.progress')), isEnd)?.terminal).toBe(-1);
      expect(lacked).toEqual([]);
    }
  });

  it('reads a terminal event and how the stream closed after it', () => {
    const body = event(1, 'run.progress') + event(2, 'run.completed');
    const { j } = judge();
    expect(endedStream(j, ex('server', body), isEnd)).toMatchObject({ terminal: 1, closed: true, closeUnread: undefined });
    expect(endedStream(j, ex('grace-expired', body), isEnd)).toMatchObject({ terminal: 1, closed: false, closeUnread: undefined });
    expect(endedStream(j, ex('client-disconnect', body), isEnd)).toMatchObject({ terminal: 1, closed: undefined, closeUnread: expect.stringMatching(/client-disconnect/) });
    expect(endedStream(j, ex(undefined, body), isEnd)?.closeUnread).toMatch(/does not say/);
    // streamRead tells nothing but a missing body: the caller decides what an unended stream means to it.
    const { lacked, j: quiet } = judge();
    expect(streamRead(quiet, ex('timeout', event(1, 'run.progress')), isEnd)?.unended).toMatch(/timeout/);
    expect(lacked).toEqual([]);
  });
});

describe('mcp.batch.empty: an SSE answer to [] its reader stopped', () => {
  const ID = 'mcp.batch.empty';
  const answered = (body: string, streamEnd: StreamEnd): Part => ({ ...post([], 's1'), status: 200, responseHeaders: { 'content-type': 'text/event-stream' }, responseBody: body, streamEnd });
  const invalid = `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } })}\n\n`;
  const verdictOf = async (part: Part) => (await mcpVerdicts([...operating('s1'), part], [ID]))[ID]?.verdict;

  it('stopped before any response is no "array []": inconclusive, apicert\'s reader having timed out (it once failed)', async () => {
    expect(await verdictOf(answered('', 'timeout'))).toBe('inconclusive');
  });

  it('a response read decides, however the reader stopped; a server that ended it with none fails', async () => {
    expect(await verdictOf(answered(invalid, 'timeout'))).toBe('pass');
    expect(await verdictOf(answered(invalid + invalid, 'timeout'))).toBe('fail');
    expect(await verdictOf(answered('', 'server'))).toBe('fail');
  });
});
