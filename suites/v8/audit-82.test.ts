/**
 * Fixer helper-82, part 1: "resourceBudget.maximumToolCalls | integer | yes | at least 0; `0` means
 * planning only" with "budget limit reached ... | `failed`" had no rule, and the fake made no
 * `tool-call` operation, so no fault could show one. Now v8.missions.budget.tool-calls judges the
 * distinct toolCallIds of a mission's traces against the budget its create sent: on hand-made
 * recordings (the judgement an active run and the proxy share), and on the fake with its fault and without it.
 */
import { describe, expect, it } from 'vitest';
import { certify } from '../../src/runner/certify.ts';
import { judgeRecording } from '../../src/passive/judge.ts';
import { parseProfile } from '../../src/profile/load.ts';
import type { Exchange } from '../../src/rule/index.ts';

const RULE = 'v8.missions.budget.tool-calls';
const BASE = 'https://gateway.example.test';
const TOKEN = 'tok-missions-0000082';
const RUN = '01970000-0000-7000-8000-000000000082';
const OTHER_RUN = '01970000-0000-7000-8000-000000000099';
const budget = (maximumToolCalls: number) => ({ maximumSteps: 10, maximumToolCalls, maximumElapsedMs: 60_000, maximumParallelism: 1 });
const body = (maximumToolCalls: number) => ({ goalSpec: { task: 'compare two reports with a tool' }, resourceBudget: budget(maximumToolCalls) });
const profile = parseProfile(
  {
    target: BASE,
    credentials: [{ name: 'writer', token: TOKEN, surfaces: ['v8'], scopes: ['missions:write', 'missions:read', 'traces:read'], principal: 'alice' }],
    fixtures: { v8: { missions: { succeeds: body(20) } } },
  },
  'audit-82 missions profile',
);

let clock = Date.UTC(2026, 0, 1);
/** One exchange 10 ms long, 100 ms after the one before: each starts after the last ended. */
function ex(method: string, path: string, status: number, options: { body?: unknown; answer?: unknown; events?: string[]; requestBodyMissing?: string } = {}): Exchange {
  clock += 100;
  const stream = options.events !== undefined;
  return {
    index: 0,
    startedAt: new Date(clock).toISOString(),
    durationMs: 10,
    method,
    url: `${BASE}${path}`,
    path,
    requestHeaders: { authorization: `Bearer ${TOKEN}`, ...(options.body !== undefined ? { 'content-type': 'application/json', 'idempotency-key': 'create-key-000000082' } : {}), ...(stream ? { accept: 'text/event-stream' } : {}) },
    ...(options.body !== undefined ? { requestBody: JSON.stringify(options.body) } : {}),
    ...(options.requestBodyMissing !== undefined ? { requestBodyMissing: options.requestBodyMissing } : {}),
    status,
    responseHeaders: { 'content-type': stream ? 'text/event-stream' : 'application/json', 'x-service-contract-version': 'service-integration-gateway-v8.1' },
    responseBody: stream ? options.events!.join('') : JSON.stringify(options.answer),
  } as Exchange;
}

const create = (b: unknown, runId = RUN, extra: { requestBodyMissing?: string } = {}) => ex('POST', '/v8/missions', 202, { body: b, answer: { runId, status: 'running', sequence: 1, steps: [] }, ...extra });
const op = (kind: string, toolCallId?: string) => ({ operationId: `op-${kind}-${toolCallId ?? 'x'}`, kind, ...(toolCallId !== undefined ? { toolCallId } : {}) });
const traceRead = (traceId: string, ops: unknown[], runId = RUN) => ex('GET', `/v8/traces/${traceId}`, 200, { answer: { traceId, missionRunId: runId, stepId: `step-${traceId}`, startedAt: '2026-01-01T00:00:00Z', steps: ops } });
const stepStream = (runId: string, traceIds: string[], terminal = 'mission.failed') =>
  ex('GET', `/v8/missions/${runId}/events`, 200, {
    events: [`id: c0\nevent: mission.started\ndata: {}\n\n`, ...traceIds.map((t, i) => `id: c${i + 1}\nevent: mission.step.started\ndata: ${JSON.stringify({ stepId: `step-${t}`, traceId: t })}\n\n`), `id: cz\nevent: ${terminal}\ndata: {}\n\n`],
  });
/** A read showing the mission ended `status`. */
const ended = (status: 'succeeded' | 'failed' | 'cancelled', runId = RUN) => ex('GET', `/v8/missions/${runId}`, 200, { answer: { runId, status, sequence: 9, steps: [] } });

async function judged(exchanges: Exchange[]) {
  const indexed = exchanges.map((e, index) => ({ ...e, index }));
  const { results } = await judgeRecording(indexed, { surfaces: ['v8'], patterns: [RULE], profile, env: {} });
  expect(results).toHaveLength(1);
  return results[0]!;
}

describe('v8.missions.budget.tool-calls on recordings', () => {
  it('traces showing as many distinct tool calls as the budget pass; reading a trace again counts its calls once', async () => {
    const result = await judged([create(body(2)), traceRead('t1', [op('observation'), op('tool-call', 'tc-1')]), traceRead('t2', [op('tool-call', 'tc-2'), op('tool-call', 'tc-1')]), traceRead('t2', [op('tool-call', 'tc-2')])]);
    expect(result.verdict, result.reason).toBe('pass');
  });

  it('a mission whose traces show more distinct toolCallIds than maximumToolCalls, counted across its traces, fails when it went on to succeed', async () => {
    const result = await judged([create(body(1)), traceRead('t1', [op('tool-call', 'tc-1')]), traceRead('t2', [op('tool-call', 'tc-2')]), ended('succeeded')]);
    expect(result.verdict, result.reason).toBe('fail');
    expect(result.reason).toMatch(/show 2 distinct tool calls .*more than the maximumToolCalls 1.*ended succeeded/);
  });

  it('a call past the limit that the runtime refused and recorded, the mission ending failed, is the budget limit reached: pass (audit-84 D1); with no end shown, untestable', async () => {
    const refused = { ...op('tool-call', 'tc-2'), output: { error: 'refused: maximumToolCalls reached; tool not invoked' } };
    const failed = await judged([create(body(1)), traceRead('t1', [op('tool-call', 'tc-1'), refused]), ended('failed')]);
    expect(failed.verdict, failed.reason).toBe('pass');
    const open = await judged([create(body(1)), traceRead('t1', [op('tool-call', 'tc-1'), refused])]);
    expect(open.verdict, open.reason).toBe('untestable');
    expect(open.reason).toMatch(/the end of mission/);
  });

  it('with maximumToolCalls 0 ("planning only") a single tool-call operation fails a mission that succeeded, with or without its toolCallId', async () => {
    for (const call of [op('tool-call', 'tc-1'), op('tool-call')]) {
      const result = await judged([create(body(0)), traceRead('t1', [op('observation'), call]), ended('succeeded')]);
      expect(result.verdict, result.reason).toBe('fail');
      expect(result.reason).toMatch(/maximumToolCalls 0 .*planning only/);
    }
    const planned = await judged([create(body(0)), traceRead('t1', [op('observation'), op('sub-step')])]);
    expect(planned.verdict, planned.reason).toBe('pass');
  });

  it("another mission's tool calls do not count against this budget; a trace of a mission created outside the recording is not judged", async () => {
    const result = await judged([create(body(1)), create(body(5), OTHER_RUN), traceRead('t1', [op('tool-call', 'tc-1')]), traceRead('o1', [op('tool-call', 'tc-2'), op('tool-call', 'tc-3')], OTHER_RUN)]);
    expect(result.verdict, result.reason).toBe('pass');
    const unknown = await judged([create(body(0)), traceRead('x1', [op('tool-call', 'tc-1')], '01970000-0000-7000-8000-0000000000aa')]);
    expect(unknown.verdict, unknown.reason).not.toBe('pass');
    expect(unknown.verdict).not.toBe('fail');
  });

  it('the mission a step event named the trace for is the one judged, decided from the exchanges before the read', async () => {
    // The answer names another mission (v8.traces.get.ok's failure); the stream that named the trace says whose budget holds.
    const result = await judged([create(body(0)), create(body(5), OTHER_RUN), stepStream(RUN, ['t1'], 'mission.completed'), traceRead('t1', [op('tool-call', 'tc-1')], OTHER_RUN)]);
    expect(result.verdict, result.reason).toBe('fail');
  });

  it('without the create body the budget is unknown: untestable, never a pass', async () => {
    const result = await judged([create(undefined, RUN, { requestBodyMissing: 'the recorder omitted it' }), traceRead('t1', [op('tool-call', 'tc-1')])]);
    expect(result.verdict, result.reason).toBe('untestable');
    expect(result.reason).toMatch(/create body .*holds the budget/);
  });
});

describe.concurrent('v8.missions.budget.tool-calls on the fake', () => {
  it('the clean fake passes: its missions make tool-call operations with toolCallIds, up to the budget, and end failed when their goal needs more', async () => {
    const { results } = await certify({ patterns: [RULE], seed: 7 });
    expect(results).toHaveLength(1);
    const result = results[0]!;
    expect(result.verdict, result.reason).toBe('pass');
    const evidence = JSON.stringify(result.evidence);
    // Budget 1: the first step's trace shows its one tool call.
    expect(evidence).toMatch(/\\"kind\\":\\"tool-call\\",\\"toolCallId\\":\\"tc-/);
    // Both missions needed three tool calls: budgets of 0 and 1 end them failed ("budget limit reached ... | `failed`").
    expect(evidence.match(/"event":"mission\.failed","data":"\{[^}]*maximumToolCalls reached/g)?.length).toBe(2);
    expect(evidence).not.toMatch(/"event":"mission\.completed"/);
  }, 120_000);

  it('the fault that ignores maximumToolCalls makes the rule fail', async () => {
    const { results } = await certify({ patterns: [RULE], faults: ['v8.missions.budget.tool-calls/ignored'], seed: 7 });
    expect(results).toHaveLength(1);
    expect(results[0]!.verdict, results[0]!.reason).toBe('fail');
    expect(results[0]!.reason).toMatch(/maximumToolCalls 0/);
  }, 120_000);
});
