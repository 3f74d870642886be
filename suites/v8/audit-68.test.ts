/**
 * Audit helper-68 D1, D2, D3: sentences of the /v8 missions no rule judged.
 * - D1 "`running` or `waiting` | budget limit reached, ... | `failed`": v8.missions.budget.steps.
 * - D2 "Replay with the same key and the same body returns the original response without
 *   re-executing", for signals (v8.missions.signals.replay) and cancels (v8.missions.cancel.replay).
 * - D3 "`mission.started` | the agent first begins executing the mission": v8.missions.events.started.
 * Each judged on hand-made recordings (the judgement an active run and the proxy share), and on the
 * fake with its fault and without it.
 */
import { describe, expect, it } from 'vitest';
import { certify } from '../../src/runner/certify.ts';
import { judgeRecording } from '../../src/passive/judge.ts';
import { parseProfile } from '../../src/profile/load.ts';
import type { Exchange } from '../../src/rule/index.ts';

const BASE = 'https://gateway.example.test';
const TOKEN = 'tok-missions-0000001';
const RUN = '01970000-0000-7000-8000-000000000001';
const budget = (maximumSteps: number) => ({ maximumSteps, maximumToolCalls: 5, maximumElapsedMs: 60_000, maximumParallelism: 1 });
const WAITS = { goalSpec: { task: 'wait for the operator' }, resourceBudget: budget(10) };
const OVER = { goalSpec: { task: 'six reports, one step each' }, resourceBudget: budget(2) };
const profile = parseProfile(
  {
    target: BASE,
    credentials: [{ name: 'writer', token: TOKEN, surfaces: ['v8'], scopes: ['missions:write', 'missions:read'], principal: 'alice' }],
    fixtures: { v8: { missions: { waits: WAITS, overBudget: OVER } } },
  },
  'audit-68 missions profile',
);

let clock = Date.UTC(2026, 0, 1);
/** One exchange 10 ms long, 100 ms after the one before: each starts after the last ended. */
function ex(method: string, path: string, status: number, options: { body?: unknown; key?: string; answer?: unknown; events?: string[]; headers?: Record<string, string> } = {}): Exchange {
  clock += 100;
  const stream = options.events !== undefined;
  return {
    index: 0,
    startedAt: new Date(clock).toISOString(),
    durationMs: 10,
    method,
    url: `${BASE}${path}`,
    path,
    requestHeaders: { authorization: `Bearer ${TOKEN}`, ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}), ...(options.key ? { 'idempotency-key': options.key } : {}), ...(stream ? { accept: 'text/event-stream' } : {}), ...options.headers },
    ...(options.body !== undefined ? { requestBody: JSON.stringify(options.body) } : {}),
    status,
    responseHeaders: { 'content-type': stream ? 'text/event-stream' : status >= 400 ? 'application/problem+json' : 'application/json', 'x-service-contract-version': 'service-integration-gateway-v8.1' },
    responseBody: stream ? options.events!.map((e, i) => `id: c${i}\nevent: ${e}\ndata: ${e.startsWith('mission.step') ? JSON.stringify({ stepId: `s${i}`, traceId: `t${i}` }) : '{}'}\n\n`).join('') : options.answer === undefined ? '' : JSON.stringify(options.answer),
  } as Exchange;
}

const projection = (status: string, steps = 0) => ({ runId: RUN, status, sequence: 1 + steps, steps: Array.from({ length: steps }, (_, i) => ({ stepId: `s${i}`, status: 'completed' })) });
const create = (body: unknown) => ex('POST', '/v8/missions', 202, { body, key: 'create-key-000000001', answer: projection('running') });
const stream = (events: string[], headers?: Record<string, string>) => ex('GET', `/v8/missions/${RUN}/events`, 200, { events, ...(headers ? { headers } : {}) });
const steps = (n: number) => Array.from({ length: n }, () => ['mission.step.started', 'mission.step.completed']).flat();

async function judged(rule: string, exchanges: Exchange[]) {
  const indexed = exchanges.map((e, index) => ({ ...e, index }));
  const { results } = await judgeRecording(indexed, { surfaces: ['v8'], patterns: [rule], profile, env: {} });
  expect(results).toHaveLength(1);
  return results[0]!;
}

describe('v8.missions.budget.steps (D1)', () => {
  const RULE = 'v8.missions.budget.steps';
  it('a mission showing no more steps than its maximumSteps passes; one that finished all its steps within the budget succeeds legally', async () => {
    const result = await judged(RULE, [create({ ...WAITS, resourceBudget: budget(3) }), stream(['mission.started', ...steps(3), 'mission.completed']), ex('GET', `/v8/missions/${RUN}`, 200, { answer: projection('succeeded', 3) })]);
    expect(result.verdict, result.reason).toBe('pass');
  });

  it('a stream showing more steps begun than maximumSteps fails', async () => {
    const result = await judged(RULE, [create({ ...WAITS, resourceBudget: budget(1) }), stream(['mission.started', ...steps(3), 'mission.completed'])]);
    expect(result.verdict, result.reason).toBe('fail');
    expect(result.reason).toMatch(/shows 3 steps, more than the maximumSteps 1/);
  });

  it('a read showing more steps than maximumSteps fails', async () => {
    const result = await judged(RULE, [create({ ...WAITS, resourceBudget: budget(2) }), ex('GET', `/v8/missions/${RUN}`, 200, { answer: projection('running', 3) })]);
    expect(result.verdict, result.reason).toBe('fail');
  });

  it('the over-budget fixture ending succeeded fails even within the step count; ending failed passes; cancelled is left open', async () => {
    const succeeded = await judged(RULE, [create(OVER), stream(['mission.started', ...steps(2), 'mission.completed'])]);
    expect(succeeded.verdict, succeeded.reason).toBe('fail');
    expect(succeeded.reason).toMatch(/ended succeeded, expected failed/);
    const failed = await judged(RULE, [create(OVER), stream(['mission.started', ...steps(2), 'mission.failed']), ex('GET', `/v8/missions/${RUN}`, 200, { answer: projection('failed', 2) })]);
    expect(failed.verdict, failed.reason).toBe('pass');
    const cancelled = await judged(RULE, [create(OVER), stream(['mission.started', ...steps(1), 'mission.cancelled'])]);
    expect(cancelled.verdict, cancelled.reason).toBe('pass');
  });

  it('the fake with v8.missions.budget.steps/ignored fails the rule; the clean fake passes it', async () => {
    const bent = await certify({ faults: ['v8.missions.budget.steps/ignored'], patterns: [RULE], seed: 7 });
    expect(bent.results[0]!.verdict, bent.results[0]!.reason).toBe('fail');
    const clean = await certify({ patterns: [RULE], seed: 7 });
    expect(clean.results[0]!.verdict, clean.results[0]!.reason).toBe('pass');
  }, 120_000);
});

describe('v8.missions.signals.replay and v8.missions.cancel.replay (D2)', () => {
  const SIGNAL = { signal: 'apicert.replayed', payload: { n: 1 } };
  const signal = (status: number, answer?: unknown) => ex('POST', `/v8/missions/${RUN}/signals`, status, { body: SIGNAL, key: 'signal-key-00000001', ...(answer !== undefined ? { answer } : {}) });
  const read = (status: string) => ex('GET', `/v8/missions/${RUN}`, 200, { answer: projection(status, 1) });

  it('a replay answered as the original passes', async () => {
    const result = await judged('v8.missions.signals.replay', [create(WAITS), signal(200), signal(200), read('waiting')]);
    expect(result.verdict, result.reason).toBe('pass');
  });

  it('a replay answered 409 while a later read shows the mission still waiting fails', async () => {
    const result = await judged('v8.missions.signals.replay', [create(WAITS), signal(200), signal(409, { type: 'about:blank', title: 'Conflict', status: 409 }), read('waiting')]);
    expect(result.verdict, result.reason).toBe('fail');
    expect(result.reason).toMatch(/answered 409, yet the mission read back waiting/);
  });

  it('a replay answered 409 to a mission the traffic showed ended, or that may have ended unseen, passes', async () => {
    const afterEnd = await judged('v8.missions.signals.replay', [create(WAITS), signal(200), stream(['mission.started', ...steps(1), 'mission.completed']), signal(409, { status: 409 })]);
    expect(afterEnd.verdict, afterEnd.reason).toBe('pass');
    const unseen = await judged('v8.missions.signals.replay', [create(WAITS), signal(200), signal(409, { status: 409 }), read('succeeded')]);
    expect(unseen.verdict, unseen.reason).toBe('pass');
  });

  it('a replay answered with another status than the original, not 409, fails', async () => {
    const result = await judged('v8.missions.signals.replay', [create(WAITS), signal(200), signal(202, { accepted: true })]);
    expect(result.verdict, result.reason).toBe('fail');
  });

  it('the conflict rule still judges another body under the key, and only that', async () => {
    const other = ex('POST', `/v8/missions/${RUN}/signals`, 200, { body: { signal: 'apicert.other', payload: 2 }, key: 'signal-key-00000001' });
    const result = await judged('v8.missions.signals.idempotency-conflict', [create(WAITS), signal(200), other]);
    expect(result.verdict, result.reason).toBe('fail');
  });

  const cancel = (status: number, answer?: unknown) => ex('POST', `/v8/missions/${RUN}/cancel`, status, { key: 'cancel-key-00000001', ...(answer !== undefined ? { answer } : {}) });
  it('a cancel replay answered as the original passes; another answer fails', async () => {
    const same = await judged('v8.missions.cancel.replay', [create(WAITS), cancel(200, projection('cancelled')), cancel(200, projection('cancelled'))]);
    expect(same.verdict, same.reason).toBe('pass');
    const second = await judged('v8.missions.cancel.replay', [create(WAITS), cancel(200, projection('cancelled')), cancel(409, { status: 409 })]);
    expect(second.verdict, second.reason).toBe('fail');
    expect(second.reason).toMatch(/answered 409, the original 200/);
  });

  it('the fake with each replay fault fails its rule; the clean fake, and the terminal-first variant with signal-ends-waiting, pass', async () => {
    for (const [fault, rule] of [
      ['v8.missions.signals.replay/replay-409', 'v8.missions.signals.replay'],
      ['v8.missions.cancel.replay/second-answer', 'v8.missions.cancel.replay'],
    ] as const) {
      const bent = await certify({ faults: [fault], patterns: [rule], seed: 7 });
      expect(bent.results[0]!.verdict, `${fault}: ${bent.results[0]!.reason}`).toBe('fail');
    }
    const clean = await certify({ patterns: ['v8.missions.signals.replay', 'v8.missions.cancel.replay'], seed: 7 });
    expect(clean.results.map((r) => `${r.rule.id} ${r.verdict}`)).toEqual(['v8.missions.signals.replay pass', 'v8.missions.cancel.replay pass']);
    const open = await certify({ variants: ['v8.missions/signal-ends-waiting', 'v8.missions/signal-replay-terminal-first'], patterns: ['v8.missions.signals.replay'], seed: 7 });
    expect(open.results[0]!.verdict, open.results[0]!.reason).toBe('pass');
  }, 180_000);
});

describe('v8.missions.events.started (D3)', () => {
  const RULE = 'v8.missions.events.started';
  it('mission.started once before the first step event passes', async () => {
    const result = await judged(RULE, [create(WAITS), stream(['mission.started', ...steps(2), 'mission.completed'])]);
    expect(result.verdict, result.reason).toBe('pass');
  });

  it('a stream with steps but no mission.started, one with it after the first step, and one with it twice fail', async () => {
    for (const [events, reason] of [
      [[...steps(2), 'mission.completed'], /carries no mission\.started/],
      [['mission.step.started', 'mission.started', 'mission.step.completed', 'mission.completed'], /after its first step event/],
      [['mission.started', ...steps(1), 'mission.started', 'mission.completed'], /2 times/],
      [['mission.completed'], /carries no mission\.started/],
    ] as const) {
      const result = await judged(RULE, [create(WAITS), stream([...events])]);
      expect(result.verdict, `${events.join(' ')}: ${result.reason}`).toBe('fail');
      expect(result.reason).toMatch(reason);
    }
  });

  it('a mission cancelled (or failed) before any step may carry none; a resumed stream is not judged', async () => {
    const cancelled = await judged(RULE, [create(WAITS), stream(['mission.cancelled'])]);
    expect(cancelled.verdict, cancelled.reason).not.toBe('fail');
    const resumed = await judged(RULE, [create(WAITS), stream([...steps(1), 'mission.completed'], { 'last-event-id': 'c0' })]);
    expect(resumed.verdict, resumed.reason).not.toBe('fail');
  });

  it('the fake with v8.missions.events.started/no-started fails the rule; the clean fake and the late-start variant pass it', async () => {
    const bent = await certify({ faults: ['v8.missions.events.started/no-started'], patterns: [RULE], seed: 7 });
    expect(bent.results[0]!.verdict, bent.results[0]!.reason).toBe('fail');
    const clean = await certify({ patterns: [RULE], seed: 7 });
    expect(clean.results[0]!.verdict, clean.results[0]!.reason).toBe('pass');
    const late = await certify({ variants: ['v8.missions/late-start'], patterns: [RULE, 'v8.missions.cancel.cancelled'], seed: 7 });
    expect(late.results.map((r) => r.verdict)).toEqual(['pass', 'pass']);
  }, 120_000);
});
