/**
 * "Size or duration of the replay window: not shown." and "A `Last-Event-ID` outside the window gives
 * `409`": no cursor before the terminal event is one a window must still hold when the resume comes
 * (the terminal event, and any informational event, came after it; a window bounded in time may have
 * let it go once the stream ended). v8.missions.events.resume once demanded 200 for the event before
 * the terminal one, failing a window of one event, and in a recording read to the stream's close took
 * the terminal event's own cursor (the after-terminal rule's) for it (audit helper-104's F3 and F4).
 */
import { describe, expect, it } from 'vitest';
import { judgeRecording } from '../../src/passive/judge.ts';
import { HarRecorder, hidingFor } from '../../src/passive/recorder.ts';
import { parseProfile } from '../../src/profile/load.ts';
import type { Profile } from '../../src/profile/schema.ts';
import type { Exchange, RuleResult, StreamEnd } from '../../src/rule/index.ts';
import { certify, HARNESS_VERSION, redactorFor } from '../../src/runner/certify.ts';
import type { VariantId } from '../../src/fake/variants/index.ts';
import { exchangesOf, stripApicert } from '../passive/record.ts';

const ID = 'v8.missions.events.resume';

describe('v8.missions.events.resume over a recording: which cursors a window must hold', () => {
  const V8 = 'https://gateway.example.com';
  const TOKEN = 'tok-resume-window-00000001';
  const RUN = '0190a8f0-1c2d-7e3f-8a4b-5c6d7e8f9a0d';
  const body = { goalSpec: { task: 'x' }, resourceBudget: { maximumSteps: 10, maximumToolCalls: 0, maximumElapsedMs: 60_000, maximumParallelism: 1 } };
  const json = { 'content-type': 'application/json', 'x-service-contract-version': 'service-integration-gateway-v8.1' };
  const auth = { authorization: `Bearer ${TOKEN}` };
  const profile = parseProfile(
    {
      target: V8,
      credentials: [{ name: 'all', token: TOKEN, surfaces: ['v8'], scopes: ['missions:write', 'missions:read', 'traces:read'], principal: 'alice' }],
      fixtures: { v8: { missions: { succeeds: body, timeLimit: body } } },
    },
    'test profile',
  );
  const event = (seq: number, type: string) => `id: ${seq}\nevent: ${type}\ndata: ${JSON.stringify({ runId: RUN, sequence: seq, type, traceId: null })}\n\n`;
  const stream = (types: readonly string[], streamEnd: StreamEnd, first = 1) => ({ status: 200, responseHeaders: { 'content-type': 'text/event-stream' }, responseBody: types.map((t, i) => event(first + i, t)).join(''), streamEnd });
  const problem = (status: number) => ({ status, responseHeaders: { 'content-type': 'application/problem+json' }, responseBody: JSON.stringify({ type: 'about:blank', title: 'outside', status }), streamEnd: 'server' as const });
  const resumeAfter = (cursor: string, answer: Partial<Exchange>) => ({ ...answer, requestHeaders: { ...auth, 'last-event-id': cursor } });
  const exchanges = (...streams: Array<Partial<Exchange>>): Exchange[] =>
    [
      { method: 'POST', path: '/v8/missions', requestHeaders: { ...auth, 'content-type': 'application/json', 'idempotency-key': 'apicert-window-key-0000001' }, requestBody: JSON.stringify(body), status: 202, responseHeaders: json, responseBody: JSON.stringify({ runId: RUN, status: 'running', sequence: 1, steps: [] }) },
      ...streams.map((s) => ({ method: 'GET', path: `/v8/missions/${RUN}/events`, requestHeaders: auth, ...s })),
    ].map((e, i) => ({ index: i, startedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(), durationMs: 10, url: `${V8}${e.path}`, responseHeaders: {}, ...e }) as Exchange);
  const judged = async (...streams: Array<Partial<Exchange>>): Promise<RuleResult> => {
    const { results } = await judgeRecording(exchanges(...streams), { surfaces: ['v8'], patterns: [ID], profile, env: {} });
    return results.find((r) => r.rule.id === ID)!;
  };
  const RAN = ['mission.started', 'mission.step.started', 'mission.step.completed', 'mission.completed'];
  const NOTED = [...RAN, 'mission.audit-note'];

  it('a window of one event: the cursor of the event before the terminal one answered 409 passes (it once failed)', async () => {
    const r = await judged(stream(RAN, 'server'), resumeAfter('3', problem(409)));
    expect(r.verdict, r.reason).toBe('pass');
    expect(r.observations.find((o) => o.subject === 'replay window')?.value).toMatch(/no cursor before the terminal event resumed/);
  });

  it('a window of two events holding the terminal event and an informational one its reader did not wait for: the same 409 passes (it once failed)', async () => {
    // The reader let go at the terminal event, as apicert's does: the informational event the window holds was never read.
    const r = await judged(stream(RAN, 'client-disconnect'), resumeAfter('3', problem(409)));
    expect(r.verdict, r.reason).toBe('pass');
    // Read to its close, the stream shows the informational event: still a 409 to the same cursor passes.
    expect((await judged(stream(NOTED, 'server'), resumeAfter('3', problem(409)))).verdict).toBe('pass');
  });

  it('the terminal event\'s own cursor, on a stream read to its close past an informational event, is the after-terminal rule\'s (it once demanded 200)', async () => {
    const r = await judged(stream(NOTED, 'server'), resumeAfter('1', stream(RAN.slice(1), 'client-disconnect', 2)), resumeAfter('4', { status: 204, responseHeaders: {}, responseBody: '', streamEnd: 'server' }));
    expect(r.verdict, r.reason).toBe('pass');
    expect(r.observations.find((o) => o.subject === 'resumed cursors (event #) by status')?.value).toEqual({ 200: [1] });
  });

  it('a resume read past the terminal event is compared up to it: the informational event after it is not "a repeat" (it once failed)', async () => {
    const r = await judged(stream(RAN, 'client-disconnect'), resumeAfter('2', stream([...NOTED.slice(2)], 'server', 3)));
    expect(r.verdict, r.reason).toBe('pass');
  });

  it('still fails what it is for: a repeated, changed or skipped event, and an answer neither 200 nor 409', async () => {
    expect((await judged(stream(RAN, 'server'), resumeAfter('2', stream(RAN.slice(1), 'server', 2)))).verdict).toBe('fail');
    expect((await judged(stream(RAN, 'server'), resumeAfter('1', stream(RAN, 'server')))).verdict).toBe('fail');
    expect((await judged(stream(RAN, 'server'), resumeAfter('1', stream(RAN.slice(2), 'server', 3)))).verdict).toBe('fail');
    expect((await judged(stream(RAN, 'server'), resumeAfter('3', problem(500)))).verdict).toBe('fail');
    expect((await judged(stream(RAN, 'server'), resumeAfter('3', problem(410)))).verdict).toBe('fail');
  });
});

describe('the fake with a replay window of one event (v8.missions/replay-window-one)', () => {
  const EVENT_RULES = ['v8.missions.events.*'];
  const fewerModelRuns = (p: Profile): Profile => ({ ...p, safety: { ...p.safety, modelRuns: 5 } });

  it.each([[['v8.missions/replay-window-one']], [['v8.missions/replay-window-one', 'v8.missions/informational-after-terminal']]] as Array<[VariantId[]]>)(
    '%j: certify and the judged recording pass every events rule, and resume judged the 409',
    async (variants) => {
      const recorder = new HarRecorder();
      const active = await certify({ variants, surfaces: ['v8'], patterns: EVENT_RULES, seed: 23, recorder, adjustEmbeddedProfile: fewerModelRuns });
      expect([...(active.variantsTaken ?? [])].sort()).toEqual([...variants].sort());
      const verdicts = (results: readonly RuleResult[]) => results.map((r) => [r.rule.id, r.verdict, r.reason?.split('\n')[0] ?? '']).filter(([, v]) => v !== 'pass');
      expect(verdicts(active.results)).toEqual([]);
      const resume = active.results.find((r) => r.rule.id === ID)!;
      expect(resume.observations.find((o) => o.subject === 'resumed cursors (event #) by status')?.value).toMatchObject({ 409: [expect.any(Number)] });
      const profile = active.profile!;
      const har = stripApicert(JSON.parse(JSON.stringify(recorder.document(HARNESS_VERSION, hidingFor(profile, redactorFor(profile))))) as { log: { entries: unknown[] } });
      const passive = await judgeRecording(exchangesOf(har), { env: {}, profile, patterns: EVENT_RULES });
      // A recording cannot show a cursor the prober made up or a runId never created: those rules do not apply to it.
      expect(verdicts(passive.results).filter(([, v]) => v !== 'not-applicable')).toEqual([]);
      expect(passive.results.find((r) => r.rule.id === ID)?.verdict).toBe('pass');
    },
    180_000,
  );
});
