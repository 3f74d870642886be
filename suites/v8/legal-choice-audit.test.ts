/**
 * Legal choices two audits found rules failing, judged on hand-made recordings and on the contract
 * schemas: two causes of refusal answered by the other cause, a signal that ends a waiting mission,
 * open step-summary properties that change, UUIDs of other versions, ISO 8601 basic-format times.
 */
import { describe, expect, it } from 'vitest';
import { judgeRecording } from '../../src/passive/judge.ts';
import { parseProfile } from '../../src/profile/load.ts';
import type { Exchange } from '../../src/rule/index.ts';
import { isoInstant, isoUtc, timestamp } from '../../src/contract/v8/common.ts';
import { v8Problem } from '../../src/contract/v8/problem.ts';
import { trace } from '../../src/contract/v8/traces.ts';

const BASE = 'http://127.0.0.1:1';
const WAITS = { goalSpec: { task: 'wait for the operator' }, resourceBudget: { maximumSteps: 5, maximumToolCalls: 5, maximumElapsedMs: 600_000, maximumParallelism: 1 } };
const RUN = '0190a8f0-1c2d-7e3f-8a4b-5c6d7e8f9a0b';

const profile = () =>
  parseProfile(
    {
      target: BASE,
      credentials: [
        { name: 'writer', token: 'tok-writer-0001', surfaces: ['v8'], scopes: ['missions:write', 'missions:read'], principal: 'alice' },
        { name: 'expired', token: 'tok-expired-0001', surfaces: ['v8'], scopes: ['missions:write', 'missions:read'], principal: 'alice', expired: true },
        { name: 'reader', token: 'tok-reader-0001', surfaces: ['v8'], scopes: ['missions:read'], principal: 'alice' },
      ],
      fixtures: { v8: { missions: { waits: WAITS } } },
    },
    'test profile',
  );

type Part = Partial<Exchange> & { method: string; path: string };

/** Exchanges one second apart, in the order given. */
function journal(parts: Part[]): Exchange[] {
  return parts.map((e, i) => ({ index: i, startedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(), durationMs: 10, url: `${BASE}${e.path}`, requestHeaders: {}, responseHeaders: {}, ...e }) as Exchange);
}

async function verdicts(exchanges: Exchange[], patterns: string[]): Promise<Record<string, string>> {
  const { results } = await judgeRecording(exchanges, { surfaces: ['v8'], patterns, profile: profile(), env: {} });
  return Object.fromEntries(results.map((r) => [r.rule.id, r.verdict]));
}

const problem = (status: number, code: string) => JSON.stringify({ type: `https://errors.example.test/${code}`, title: code, status, detail: code, code, requestId: '6f1c2a3b-4d5e-0f70-c192-a3b4c5d6e7f8' });
const problemHeaders = { 'content-type': 'application/problem+json', 'x-service-contract-version': 'service-integration-gateway-v8.1' };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** A POST to /v8/missions with the given credential and body, answered with `status`. */
function create(token: string | undefined, body: string, status: number, key: string): Part {
  const auth = token === undefined ? {} : bearer(token);
  return { method: 'POST', path: '/v8/missions', requestHeaders: { ...auth, 'content-type': 'application/json', 'idempotency-key': key }, requestBody: body, status, responseHeaders: problemHeaders, responseBody: problem(status, status === 400 ? 'malformed_json' : 'auth') };
}

describe('two causes of refusal: no sentence orders them', () => {
  const AUTH = ['v8.missions.auth.missing-token-401', 'v8.missions.auth.expired-token-401', 'v8.missions.auth.scope-403'];

  it('a malformed create answered 400 without a token, with an expired one or without missions:write is judged by none of the auth rules', async () => {
    const bad = '{"goalSpec": ';
    const out = await verdicts(journal([create(undefined, bad, 400, 'apicert-test-key-0000001'), create('tok-expired-0001', bad, 400, 'apicert-test-key-0000002'), create('tok-reader-0001', bad, 400, 'apicert-test-key-0000003')]), AUTH);
    expect(out).toEqual(Object.fromEntries(AUTH.map((id) => [id, 'not-applicable'])));
  });

  it('an ordinary create (well-formed body, its headers) answered 400 still fails each rule', async () => {
    const good = JSON.stringify(WAITS);
    const out = await verdicts(journal([create(undefined, good, 400, 'apicert-test-key-0000004'), create('tok-expired-0001', good, 400, 'apicert-test-key-0000005'), create('tok-reader-0001', good, 400, 'apicert-test-key-0000006')]), AUTH);
    expect(out).toEqual(Object.fromEntries(AUTH.map((id) => [id, 'fail'])));
  });

  it('a create without Idempotency-Key and without a token, answered 400, is not judged; with 401 answers the rules pass', async () => {
    const noKey: Part = { method: 'POST', path: '/v8/missions', requestHeaders: { 'content-type': 'application/json' }, requestBody: JSON.stringify(WAITS), status: 400, responseHeaders: problemHeaders, responseBody: problem(400, 'key') };
    expect(await verdicts(journal([noKey]), ['v8.missions.auth.missing-token-401'])).toEqual({ 'v8.missions.auth.missing-token-401': 'not-applicable' });
    const out = await verdicts(journal([create(undefined, JSON.stringify(WAITS), 401, 'apicert-test-key-0000007'), create('tok-reader-0001', JSON.stringify(WAITS), 403, 'apicert-test-key-0000008')]), ['v8.missions.auth.missing-token-401', 'v8.missions.auth.scope-403']);
    expect(out).toEqual({ 'v8.missions.auth.missing-token-401': 'pass', 'v8.missions.auth.scope-403': 'pass' });
  });
});

describe('signals to a waiting mission: how it leaves waiting is not shown', () => {
  const created: Part = {
    method: 'POST',
    path: '/v8/missions',
    requestHeaders: { ...bearer('tok-writer-0001'), 'content-type': 'application/json', 'idempotency-key': 'apicert-test-key-1000001' },
    requestBody: JSON.stringify(WAITS),
    status: 202,
    responseHeaders: { 'content-type': 'application/json' },
    responseBody: JSON.stringify({ runId: RUN, status: 'running', sequence: 1, steps: [] }),
  };
  const signal = (n: number, status: number): Part => ({
    method: 'POST',
    path: `/v8/missions/${RUN}/signals`,
    requestHeaders: { ...bearer('tok-writer-0001'), 'content-type': 'application/json', 'idempotency-key': `apicert-test-key-200000${n}` },
    requestBody: JSON.stringify({ signal: 'apicert.probe', payload: { n } }),
    status,
    responseHeaders: status === 200 ? {} : problemHeaders,
    responseBody: status === 200 ? '' : problem(status, 'mission_terminal'),
  });

  it('the first signal accepted and later ones refused 409 (the signal ended the mission) pass', async () => {
    expect(await verdicts(journal([created, signal(1, 200), signal(2, 409), signal(3, 409)]), ['v8.missions.signals.accepted'])).toEqual({ 'v8.missions.signals.accepted': 'pass' });
  });

  it('a first signal refused 409, or a later one refused 400, fails', async () => {
    expect(await verdicts(journal([created, signal(1, 409)]), ['v8.missions.signals.accepted'])).toEqual({ 'v8.missions.signals.accepted': 'fail' });
    expect(await verdicts(journal([created, signal(1, 200), signal(2, 400)]), ['v8.missions.signals.accepted'])).toEqual({ 'v8.missions.signals.accepted': 'fail' });
  });
});

describe('sequence and open step-summary properties', () => {
  const read = (i: number, status: string, sequence: number, step: Record<string, unknown>): Part => ({
    method: 'GET',
    path: `/v8/missions/${RUN}`,
    requestHeaders: bearer('tok-writer-0001'),
    status: 200,
    responseHeaders: { 'content-type': 'application/json' },
    responseBody: JSON.stringify({ runId: RUN, status, sequence, steps: [{ stepId: 'step-1', ...step }], read: i }),
  });

  it('a step property beyond stepId and status that changes under one sequence passes', async () => {
    const out = await verdicts(journal([read(1, 'running', 3, { status: 'running', observedAt: '2026-01-01T00:00:01Z' }), read(2, 'running', 3, { status: 'running', observedAt: '2026-01-01T00:00:02Z' })]), ['v8.missions.sequence.monotonic']);
    expect(out).toEqual({ 'v8.missions.sequence.monotonic': 'pass' });
  });

  it('a step status that changes under one sequence still fails', async () => {
    const out = await verdicts(journal([read(1, 'running', 3, { status: 'running' }), read(2, 'running', 3, { status: 'completed' })]), ['v8.missions.sequence.monotonic']);
    expect(out).toEqual({ 'v8.missions.sequence.monotonic': 'fail' });
  });
});

describe('"UUID string" states no version', () => {
  const body = { type: 'https://e.test/x', title: 'x', status: 400, detail: 'x', code: 'x' };
  it('requestId and missionRunId take any 8-4-4-4-12 hex, and refuse what is not one', () => {
    for (const id of ['6f1c2a3b-4d5e-0f70-c192-a3b4c5d6e7f8', '00000000-0000-0000-0000-000000000000', 'ABCDEF01-2345-6789-ABCD-EF0123456789', RUN]) {
      expect(v8Problem.safeParse({ ...body, requestId: id }).success, id).toBe(true);
      expect(trace.safeParse({ traceId: 't', missionRunId: id, stepId: 's', startedAt: '2026-01-01T00:00:00Z', steps: [] }).success, id).toBe(true);
    }
    for (const id of ['6f1c2a3b4d5e0f70c192a3b4c5d6e7f8', 'run-5c6d7e8f9a0b', '6f1c2a3b-4d5e-0f70-c192-a3b4c5d6e7fg']) {
      expect(v8Problem.safeParse({ ...body, requestId: id }).success, id).toBe(false);
      expect(trace.safeParse({ traceId: 't', missionRunId: id, stepId: 's', startedAt: '2026-01-01T00:00:00Z', steps: [] }).success, id).toBe(false);
    }
  });
});

describe('"ISO 8601 UTC"', () => {
  const at = Date.UTC(2026, 0, 2, 3, 4, 5, 678);
  it('accepts the extended and basic formats, a fraction after . or ,, reduced precision, Z or a zero offset, and reads the instant', () => {
    const forms: Array<[string, number]> = [
      ['2026-01-02T03:04:05.678Z', at],
      ['2026-01-02T03:04:05,678Z', at],
      ['20260102T030405.678Z', at],
      ['20260102T030405,678Z', at],
      ['20260102T030405Z', at - 678],
      ['2026-01-02T03:04:05.678+00:00', at],
      ['20260102T030405.678+0000', at],
      ['2026-01-02T03:04Z', Date.UTC(2026, 0, 2, 3, 4)],
      ['20260102T0304Z', Date.UTC(2026, 0, 2, 3, 4)],
      ['2026-01-02T03Z', Date.UTC(2026, 0, 2, 3)],
      ['2026-01-02T03:04,5Z', Date.UTC(2026, 0, 2, 3, 4, 30)],
      ['2026-01-02t03:04:05.678z', at],
      ['2026-01-02T24:00:00Z', Date.UTC(2026, 0, 3)],
    ];
    for (const [text, ms] of forms) {
      expect(isoUtc.safeParse(text).success, text).toBe(true);
      expect(isoInstant(text), text).toBe(ms);
    }
  });

  it('refuses other offsets, a date alone, mixed formats and impossible dates', () => {
    for (const text of ['2026-01-02T03:04:05+02:00', '20260102T030405+0200', '2026-01-02', '2026-01-02T03:04:05', '2026-01-02T03:04:05+0000', '20260102T03:04:05Z', '2026-02-30T00:00:00Z', '2026-01-02T25:00:00Z', '2026-01-02T24:00:01Z', '2026-01-02 03:04:05Z']) {
      expect(isoUtc.safeParse(text).success, text).toBe(false);
    }
  });

  it('a "(timestamp)" takes any offset in either format, or an epoch number', () => {
    for (const value of ['20260102T050405,678+0200', '2026-01-02T05:04:05.678+02:00', 1767322800000]) expect(timestamp.safeParse(value).success, String(value)).toBe(true);
    expect(isoInstant('20260102T050405,678+0200')).toBe(at);
    expect(timestamp.safeParse('yesterday').success).toBe(false);
  });
});
