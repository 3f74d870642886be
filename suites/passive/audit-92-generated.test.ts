/**
 * Fixer helper-97 (audit-92 D6): over recorded traffic, `v1.contract.generated.accepts-valid` held
 * every well-formed cancel of a run an answer issued to "must accept", whatever the run's state, and
 * `v8.contract.generated.accepts-valid` held every read of a trace a step event named to "must
 * accept", however soon after. Both failed legal deployments (docs/legal-variation.md:
 * `v1.runs/cancel-finished-refused`, `v8.traces/indexed-later`) that certify passes. Now a cancel is
 * open (the description binds what an accepted cancellation does, not which are accepted: a run
 * shown in flight may have finished since), and so is a trace read within the index bound of the
 * stream that named it and before any read found it. A trace refused past the bound or after it
 * was read still fails.
 */
import { describe, expect, it } from 'vitest';
import { generatedAcceptsValid as v1AcceptsValid } from '../../src/checks/v1/contract/generated.ts';
import { generatedAcceptsValid as v8AcceptsValid } from '../../src/checks/v8/contract/generated.ts';
import { parseProfile } from '../../src/profile/load.ts';
import type { Exchange, Judge } from '../../src/rule/index.ts';
import { judgementCases, type JudgedCase } from '../support/judgement-cases.ts';

const T0 = Date.UTC(2025, 0, 1);

const failures = (list: readonly JudgedCase[]) => list.filter((c) => !c.ok).map((c) => c.reason);

// ---------------------------------------------------------------------------------------------
// /v1: cancel.

const V1_TOKEN = 'service_sk_audit92generated0123456789ab';
const V1_BASE = 'https://fabric.example.com';
const TASK = { mode: 'task', task: { scenario: 'apicert.completes' } };
const v1Profile = parseProfile(
  {
    target: V1_BASE,
    credentials: [{ name: 'full', token: V1_TOKEN, surfaces: ['v1'], scopes: ['runs:read', 'runs:write'], principal: 'alice', tenant: 't1' }],
    fixtures: { v1: { tasks: { completes: TASK } } },
  },
  'test profile',
);
const V1_AUTH = { authorization: `Bearer ${V1_TOKEN}` };

function v1(at: number, method: string, path: string, status: number, answer: { type: string; body: string }, request: { headers?: Record<string, string>; body?: unknown } = {}): Omit<Exchange, 'index'> {
  const ex: Omit<Exchange, 'index'> = {
    startedAt: new Date(T0 + at).toISOString(),
    durationMs: 10,
    method,
    url: `${V1_BASE}${path}`,
    path,
    requestHeaders: { ...V1_AUTH, ...request.headers },
    status,
    responseHeaders: { 'content-type': answer.type },
    responseBody: answer.body,
  };
  if (request.body !== undefined) ex.requestBody = JSON.stringify(request.body);
  return ex;
}

const json = (value: unknown) => ({ type: 'application/json', body: JSON.stringify(value) });
const v1Problem = (status: number, code: string) => ({ type: 'application/problem+json', body: JSON.stringify({ type: 'about:blank', title: 'refused', status, code, retryable: false }) });
const runEvents = (kinds: readonly string[]) => ({
  type: 'text/event-stream',
  body: kinds.map((k, i) => `id: ${i + 1}\nevent: ${k}\ndata: ${JSON.stringify({ apiVersion: 'v1', event_id: `evt_${i + 1}`, run_id: 'run_1', sequence: i + 1, type: k })}\n\n`).join(''),
});

const execute = (at: number) => v1(at, 'POST', '/v1/execute', 200, json({ run_id: 'run_1' }), { headers: { 'content-type': 'application/json', accept: 'application/json' }, body: TASK });
const read = (at: number, kinds: readonly string[]) => v1(at, 'GET', '/v1/runs/run_1/events', 200, runEvents(kinds));
const cancel = (at: number, status: number) => v1(at, 'POST', '/v1/runs/run_1/cancel', status, status === 200 ? json({}) : v1Problem(status, 'invalid_request'));
const cancelsFailed = (list: readonly JudgedCase[]) => failures(list).filter((r) => r.includes('/cancel'));

describe('v1.contract.generated.accepts-valid: a cancel is open, however the run was shown', () => {
  const judge = (journal: Array<Omit<Exchange, 'index'>>, source: Judge['source'] = 'recording') => judgementCases(v1AcceptsValid.judgement!, journal, v1Profile, source);

  it('a cancel refused after the run\'s stream showed a terminal event passes (v1.runs/cancel-finished-refused)', () => {
    const out = judge([execute(0), read(1000, ['request.accepted', 'run.completed']), cancel(2000, 400)]);
    expect(cancelsFailed(out)).toEqual([]);
    // The execute is still judged: the rule judged something.
    expect(out.some((c) => c.ok)).toBe(true);
  });

  it('a second cancel, refused after the first was accepted, passes', () => {
    expect(cancelsFailed(judge([execute(0), read(1000, ['request.accepted']), cancel(2000, 200), cancel(3000, 400)]))).toEqual([]);
  });

  it.each(['recording', 'active'] as const)('a cancel of a run no read showed (it may have finished unseen) passes (%s)', (source) => {
    expect(cancelsFailed(judge([execute(0), cancel(2000, 400)], source))).toEqual([]);
  });

  it.each(['recording', 'active'] as const)('a cancel refused after a read showed the run in flight passes too: it may have finished since (%s)', (source) => {
    const out = judge([execute(0), read(1000, ['request.accepted', 'run.progress']), cancel(2000, 400)], source);
    expect(cancelsFailed(out)).toEqual([]);
  });

  it('a cancel, accepted or refused, adds no case the rule holds: the run\'s other exchanges are judged as before', () => {
    const before = judge([execute(0), read(1000, ['request.accepted'])]);
    for (const status of [200, 400]) {
      const out = judge([execute(0), read(1000, ['request.accepted']), cancel(2000, status)]);
      expect(failures(out)).toEqual([]);
      expect(out.filter((c) => c.ok)).toHaveLength(before.length);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// /v8: trace reads.

const V8_TOKEN = 'tok-audit-92-generated-v8';
const V8_BASE = 'https://gateway.example.test';
const RUN = '01970000-0000-7000-8000-000000000092';
const TRACE = 'trc_audit92_1';
const v8Profile = parseProfile(
  {
    target: V8_BASE,
    credentials: [{ name: 'full', token: V8_TOKEN, surfaces: ['v8'], scopes: ['missions:read', 'missions:write', 'traces:read', 'memory:read', 'capabilities:read', 'skills:read'], principal: 'alice', tenant: 't1' }],
  },
  'test profile',
);
const VERSION = { 'x-service-contract-version': 'service-integration-gateway-v8.1' };

function v8(at: number, path: string, status: number, answer: { type: string; body: string }, durationMs = 10): Omit<Exchange, 'index'> {
  return {
    startedAt: new Date(T0 + at).toISOString(),
    durationMs,
    method: 'GET',
    url: `${V8_BASE}${path}`,
    path,
    requestHeaders: { authorization: `Bearer ${V8_TOKEN}` },
    status,
    responseHeaders: { 'content-type': answer.type, ...VERSION },
    responseBody: answer.body,
  };
}

const missionEvents = (at: number) =>
  v8(
    at,
    `/v8/missions/${RUN}/events`,
    200,
    {
      type: 'text/event-stream',
      body: [
        ['mission.step.started', { runId: RUN, sequence: 1, stepId: 'step-1', traceId: TRACE }],
        ['mission.step.completed', { runId: RUN, sequence: 2, stepId: 'step-1', traceId: TRACE }],
        ['mission.completed', { runId: RUN, sequence: 3 }],
      ]
        .map(([event, data], i) => `id: ${i + 1}\nevent: ${event as string}\ndata: ${JSON.stringify(data)}\n\n`)
        .join(''),
    },
    500,
  );
const TRACE_BODY = { traceId: TRACE, missionRunId: RUN, stepId: 'step-1', startedAt: '2025-01-01T00:00:00Z', steps: [] };
const v8Problem = (status: number) => ({ type: 'application/problem+json', body: JSON.stringify({ type: 'about:blank', title: 'Not Found', status, detail: 'no such trace', code: 'not_found', requestId: '0190a3c2-7b1e-7cc0-8b3a-1d2e3f4a5b6d' }) });
const traceRead = (at: number, status: number) => v8(at, `/v8/traces/${TRACE}`, status, status === 200 ? json(TRACE_BODY) : v8Problem(status));
const tracesFailed = (list: readonly JudgedCase[]) => failures(list).filter((r) => r.includes('/v8/traces/'));

describe('v8.contract.generated.accepts-valid: a trace read within the index bound, before any read found it, is open', () => {
  const judge = (journal: Array<Omit<Exchange, 'index'>>, source: Judge['source'] = 'recording') => judgementCases(v8AcceptsValid.judgement!, journal, v8Profile, source);

  it.each(['recording', 'active'] as const)('a 404 within 5 s of the stream that named it, then a 200, passes (v8.traces/indexed-later) (%s)', (source) => {
    const out = judge([missionEvents(0), traceRead(1500, 404), traceRead(3000, 200), traceRead(7000, 200)], source);
    expect(tracesFailed(out)).toEqual([]);
    // The read past the bound is judged, and held: the rule judged something.
    expect(out.filter((c) => c.ok).length).toBeGreaterThan(0);
  });

  it('a 404 past the bound still fails', () => {
    const out = judge([missionEvents(0), traceRead(6000, 404)]);
    expect(tracesFailed(out)).toHaveLength(1);
  });

  it('a 404 after a read found the trace still fails, within the bound too', () => {
    const out = judge([missionEvents(0), traceRead(1000, 200), traceRead(2000, 404)]);
    expect(tracesFailed(out)).toHaveLength(1);
  });
});
