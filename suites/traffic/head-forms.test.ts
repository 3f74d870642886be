/**
 * Fixer helper-155 (audit helper-151 F4, F5, F6, against Express 5 on Node): the run-wide rules read
 * requests a deployment may refuse or answer otherwise as ordinary ones.
 * - F4: a head past what a server may limit it to (RFC 9110 §5.4): Node answers the catalogue's
 *   16 KiB header with a bodiless 431 before Express sees it.
 * - F5: a precondition (RFC 9110 §13.2.2): Express answers `If-None-Match: *` to a GET with 304.
 * - F6: creates sent at once under one Idempotency-Key: the one listed first in the recording need
 *   not be the one the deployment took first, so its 409 is no refusal of a fresh key.
 * One reading for all (`openRequestForm`, `oversizedHead`, `conditionalForm` in src/traffic/read.ts,
 * `sharesKeyInFlight` in src/traffic/shared-keys.ts), judged here on hand-built recordings.
 */
import { describe, expect, it } from 'vitest';
import { judgeRecording } from '../../src/passive/judge.ts';
import { parseProfile } from '../../src/profile/load.ts';
import type { Exchange } from '../../src/rule/index.ts';
import { conditionalForm, openRequestForm, oversizedHead } from '../../src/traffic/read.ts';
import { sharingKeysInFlight } from '../../src/traffic/shared-keys.ts';

const BASE = 'https://gateway.example.test';
const TOKEN = 'tok-head-forms-0000155';
const SCOPES = ['missions:write', 'missions:read', 'memory:read', 'capabilities:read', 'traces:read', 'skills:read', 'context:read', 'world:read', 'coverage:read'];
const budget = { maximumSteps: 5, maximumToolCalls: 5, maximumElapsedMs: 60_000, maximumParallelism: 1 };
const BODY = { goalSpec: { task: 'head forms' }, resourceBudget: budget };
const profile = parseProfile(
  { target: BASE, credentials: [{ name: 'full', token: TOKEN, surfaces: ['v8'], scopes: SCOPES, principal: 'alice' }], fixtures: { v8: { missions: { succeeds: BODY } } } },
  'head-forms profile',
);
const VERSION = { 'x-service-contract-version': 'service-integration-gateway-v8.1' };
const PROBLEM = { type: 'about:blank', title: 'Conflict', status: 409, detail: 'key in use', code: 'conflict', requestId: '0190a3c2-7b1e-7cc0-8b3a-1d2e3f4a5b6d' };
const BIG = { 'x-apicert-probe': 'a'.repeat(16 * 1024) };
const GOALS = { goals: [{ goalId: 'g1', title: 'grow', description: 'grow sales', status: 'active', priority: 'high', compartment: 'sales', createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z' }] };

let clock = Date.UTC(2026, 0, 1);
/** One exchange 10 ms long, starting 100 ms after the one before (`at`: a start of its own, to overlap another). */
function ex(method: string, path: string, status: number, options: { headers?: Record<string, string>; body?: unknown; answer?: unknown; at?: number; ms?: number } = {}): Exchange {
  clock += 100;
  const answered = options.answer !== undefined;
  const problem = status >= 400;
  return {
    index: 0,
    startedAt: new Date(options.at ?? clock).toISOString(),
    durationMs: options.ms ?? 10,
    method,
    url: `${BASE}${path}`,
    path,
    requestHeaders: { authorization: `Bearer ${TOKEN}`, ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}), ...options.headers },
    ...(options.body !== undefined ? { requestBody: JSON.stringify(options.body) } : {}),
    status,
    // A bodiless answer is the HTTP layer's (Node's 431) or a 304: neither carries content nor the contract header.
    responseHeaders: answered ? { 'content-type': problem ? 'application/problem+json' : 'application/json', ...VERSION } : {},
    responseBody: answered ? JSON.stringify(options.answer) : '',
  } as Exchange;
}

async function verdicts(patterns: string[], exchanges: Exchange[]): Promise<Record<string, string>> {
  const indexed = exchanges.map((e, index) => ({ ...e, index }));
  const { results } = await judgeRecording(indexed, { surfaces: ['v8'], patterns, profile, env: {} });
  return Object.fromEntries(results.map((r) => [r.rule.id, r.verdict === 'pass' ? 'pass' : `${r.verdict}: ${r.reason ?? ''}`]));
}

const request = (method: string, path: string, headers: Record<string, string> = {}) => ({ method, path, requestHeaders: headers });

describe('the head forms a deployment may refuse or answer otherwise', () => {
  it('names a head past 8 KiB or 100 fields, a precondition, and a Range on a GET', () => {
    expect(oversizedHead(request('GET', '/v8/coverage', BIG))).toMatch(/request head of \d+ bytes, past the 8192/);
    expect(oversizedHead(request('GET', `/v8/skills/${'a'.repeat(8192)}`))).toMatch(/request head/);
    const hundred = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`x-apicert-${i}`, String(i)]));
    expect(oversizedHead(request('POST', '/v8/missions', { ...hundred, authorization: 'Bearer t' }))).toMatch(/101 header fields, past the 100/);
    for (const name of ['if-none-match', 'if-match', 'if-modified-since', 'if-unmodified-since', 'if-range']) expect(conditionalForm(request('POST', '/v8/missions', { [name]: '*' })), name).toContain(name);
    expect(conditionalForm(request('GET', '/v8/coverage', { range: 'bytes=0-0' }))).toMatch(/Range/);
    for (const form of [request('GET', '/v8/coverage', BIG), request('GET', '/v8/coverage', { 'if-none-match': '*' })]) expect(openRequestForm(form)).toBeDefined();
  });

  it('leaves an ordinary head alone: a long token, a few fields, a Range where no range is defined', () => {
    expect(oversizedHead(request('POST', '/v8/missions', { authorization: `Bearer ${'t'.repeat(4000)}`, 'content-type': 'application/json', 'idempotency-key': 'k'.repeat(128) }))).toBeUndefined();
    expect(conditionalForm(request('POST', '/v8/missions', { range: 'bytes=0-0' }))).toBeUndefined();
    expect(openRequestForm(request('GET', '/v8/coverage', { authorization: 'Bearer t', accept: 'application/json' }))).toBeUndefined();
  });

  it('pairs requests of one key in flight together, never two one after the other or without timings', () => {
    const a = { ...ex('POST', '/v8/missions', 409, { at: 1000, ms: 50 }), index: 0 };
    const b = { ...ex('POST', '/v8/missions', 202, { at: 1010, ms: 50 }), index: 1 };
    const c = { ...ex('POST', '/v8/missions', 202, { at: 2000, ms: 50 }), index: 2 };
    expect([...sharingKeysInFlight([[a, ['k']], [b, ['k']], [c, ['k']]])]).toEqual([a, b]);
    const untimed = [a, b].map(({ startedAt: _s, durationMs: _d, ...rest }) => rest as Exchange);
    expect(sharingKeysInFlight([[untimed[0]!, ['k']], [untimed[1]!, ['k']]]).size).toBe(0);
    expect(sharingKeysInFlight([[a, ['k']], [b, ['other']]]).size).toBe(0);
  });
});

// Old code: every rule below failed these recordings ("answered 304, expected 200", "answered 431 ...", "a valid create answered 409").
const READS = ['v8.goals.shape', 'v8.goals.payload-form', 'v8.coverage.shape', 'v8.auth.scope-matrix', 'v8.contract.generated.accepts-valid'];

describe('run-wide rules over requests a deployment may answer otherwise (recordings)', () => {
  it('F5: a GET answered 304 to If-None-Match: * is no failed read', async () => {
    const result = await verdicts(READS, [
      ex('GET', '/v8/context-twin/goals', 200, { answer: GOALS }),
      ex('GET', '/v8/context-twin/goals', 304, { headers: { 'if-none-match': '*' } }),
      ex('GET', '/v8/coverage', 304, { headers: { 'if-modified-since': 'Sat, 28 Nov 2026 13:00:00 GMT' } }),
    ]);
    expect(result).toEqual(Object.fromEntries(READS.map((id) => [id, id === 'v8.coverage.shape' ? result[id] : 'pass'])));
    // The coverage read was its only one: nothing of it is judged, never a pass over nothing.
    expect(result['v8.coverage.shape']).toMatch(/^(not-applicable|untestable)/);
  });

  it('F4: a 16 KiB header answered with Node\'s bodiless 431 is no failed read nor a failed replay', async () => {
    const key = { 'idempotency-key': 'apicert-head-forms-000000000001' };
    const CREATED = { runId: '01970000-0000-7000-8000-000000000155', status: 'running', sequence: 1, steps: [] };
    const result = await verdicts([...READS, 'v8.missions.idempotency.replay', 'v8.missions.create.accepted'], [
      ex('GET', '/v8/context-twin/goals', 200, { answer: GOALS }),
      ex('GET', '/v8/context-twin/goals', 431, { headers: BIG }),
      ex('GET', '/v8/coverage', 431, { headers: BIG }),
      ex('POST', '/v8/missions', 202, { headers: key, body: BODY, answer: CREATED }),
      ex('POST', '/v8/missions', 431, { headers: { ...key, ...BIG }, body: BODY }),
      ex('POST', '/v8/missions', 202, { headers: key, body: BODY, answer: CREATED }),
      ex('POST', '/v8/missions', 431, { headers: { 'idempotency-key': 'apicert-head-forms-000000000002', ...BIG }, body: BODY }),
    ]);
    for (const id of [...READS, 'v8.missions.idempotency.replay', 'v8.missions.create.accepted']) if (id !== 'v8.coverage.shape') expect(result[id], id).toBe('pass');
    expect(result['v8.coverage.shape']).toMatch(/^(not-applicable|untestable)/);
  });

  it('F6: of two creates in flight under one key, the 409 listed first is no refused fresh key', async () => {
    const key = { 'idempotency-key': 'apicert-head-forms-000000000003' };
    const rules = ['v8.missions.create.accepted', 'v8.missions.idempotency.key-format', 'v8.auth.scope-matrix', 'v8.contract.generated.accepts-valid'];
    const other = { ...BODY, goalSpec: { task: 'head forms, another body' } };
    const at = clock + 1000;
    const result = await verdicts(rules, [
      ex('POST', '/v8/missions', 409, { headers: key, body: other, answer: PROBLEM, at, ms: 40 }),
      ex('POST', '/v8/missions', 202, { headers: key, body: BODY, answer: { runId: '01970000-0000-7000-8000-000000000156', status: 'running', sequence: 1, steps: [] }, at: at + 5, ms: 30 }),
      ex('POST', '/v8/missions', 202, { headers: { 'idempotency-key': 'apicert-head-forms-000000000004' }, body: BODY, answer: { runId: '01970000-0000-7000-8000-000000000157', status: 'running', sequence: 1, steps: [] } }),
    ]);
    expect(result).toEqual(Object.fromEntries(rules.map((id) => [id, 'pass'])));
  });

  it('still fails a fresh key refused 409, and a 304 to a request that names no precondition', async () => {
    const result = await verdicts(['v8.missions.create.accepted', 'v8.goals.shape'], [
      ex('POST', '/v8/missions', 409, { headers: { 'idempotency-key': 'apicert-head-forms-000000000005' }, body: BODY, answer: PROBLEM }),
      ex('POST', '/v8/missions', 202, { headers: { 'idempotency-key': 'apicert-head-forms-000000000005' }, body: BODY, answer: { runId: '01970000-0000-7000-8000-000000000158', status: 'running', sequence: 1, steps: [] } }),
      ex('GET', '/v8/context-twin/goals', 200, { answer: GOALS }),
      ex('GET', '/v8/context-twin/goals', 304),
    ]);
    expect(result['v8.missions.create.accepted']).toMatch(/^fail: .*answered 409, expected 202/);
    expect(result['v8.goals.shape']).toMatch(/^fail: .*answered 304, expected 200/);
  });
});

describe('/v1: a head past a server\'s limit is another cause of refusal (`otherCauses`)', () => {
  const v1 = (headers: Record<string, string>, status: number, answer?: unknown): Exchange =>
    ({
      index: 0,
      startedAt: new Date((clock += 100)).toISOString(),
      durationMs: 10,
      method: 'GET',
      url: `${BASE}/v1/usage`,
      path: '/v1/usage',
      requestHeaders: { 'x-ai-platform-version': 'v1', ...headers },
      status,
      responseHeaders: answer === undefined ? {} : { 'content-type': 'application/problem+json' },
      responseBody: answer === undefined ? '' : JSON.stringify(answer),
    }) as Exchange;
  const UNAUTHENTICATED = { type: 'about:blank', title: 'Unauthorized', status: 401, detail: 'no key', code: 'authentication_failed' };

  it('a request without a key answered Node\'s bodiless 431 to its 16 KiB header is refused for that cause (old code: no problem+json)', async () => {
    const exchanges = [v1({}, 401, UNAUTHENTICATED), v1(BIG, 431)].map((e, index) => ({ ...e, index }));
    const { results } = await judgeRecording(exchanges, { surfaces: ['v1'], patterns: ['v1.auth.unauthenticated'], env: {} });
    expect(results.map((r) => `${r.verdict} ${r.reason ?? ''}`.trim())).toEqual(['pass']);
  });
});
