/**
 * Legal choices two audits found rules failing (docs/legal-variation.md): each case here is a request
 * a legal deployment may answer either way, so its expectation must be open (or name only what a
 * sentence names), in the generated expectation and in the probe catalogue alike.
 */
import { describe, expect, it } from 'vitest';
import { judged } from '../../src/checks/catalogue/run.ts';
import { httpCases, mcpCases } from '../../src/checks/catalogue/plan.ts';
import { expectationOf, sentOf, type Known } from '../../src/checks/generated/expectation.ts';
import { judgeAnswer, type Answer } from '../../src/checks/generated/judgement.ts';

const credential = { name: 'k', token: 'service_sk_test0123456789', surfaces: ['v8', 'v1'], scopes: [], principal: 'p', tenant: 't' } as never;
const send = (method: string, path: string, json?: unknown, headers: Record<string, string> = {}) => sentOf({ method: method as 'GET', path, credential, headers, ...(json === undefined ? {} : { json }) });
const raw = (path: string, rawBody: string) => sentOf({ method: 'POST', path, credential, headers: { 'idempotency-key': 'apicert-0123456789abcdef' }, rawBody });
const key = { 'idempotency-key': 'apicert-0123456789abcdef' };
const mission = (budget: Record<string, unknown>) => ({ goalSpec: { task: 'summarize' }, resourceBudget: { maximumSteps: 1, maximumToolCalls: 0, maximumElapsedMs: 1000, maximumParallelism: 1, ...budget } });
const task = { mode: 'task', task: { objective: 'summarize' } };
const RUN = '0190a8f0-1c2d-7e3f-8a4b-5c6d7e8f9a0b';
const existing: Known = { existing: [RUN], parked: [], bases: {} };
const answer = (status: number, text = '', contentType = ''): Answer => ({ status, headers: {}, contentType, json: undefined, text, cut: false });

describe('the generated expectation leaves legal choices open', () => {
  it('a task asking only for an event stream: 406 or the Accept disregarded (RFC 9110 §12.5.1)', () => {
    const tasks: Known = { existing: [], parked: [], bases: { 'v1.tasks.completes': task } };
    expect(expectationOf(send('POST', '/v1/execute', task, { accept: 'application/json' }), tasks).kind).toBe('accept');
    expect(expectationOf(send('POST', '/v1/execute', task, { accept: 'text/event-stream' }), tasks)).toMatchObject({ kind: 'open', why: expect.stringContaining('12.5.1') });
    expect(expectationOf(send('GET', '/v1/usage', undefined, { accept: 'image/png' })).kind).toBe('open');
    expect(expectationOf(send('GET', '/v1/usage', undefined, { accept: 'application/json;q=0' })).kind).toBe('open');
    expect(expectationOf(send('GET', '/v1/usage', undefined, { accept: 'application/json' })).kind).toBe('accept');
    expect(expectationOf(send('GET', '/v1/usage', undefined, { accept: '*/*' })).kind).toBe('accept');
  });

  it('an integer past 2^53-1 under a stated lower bound only: zod\'s safe-integer bound is not the description\'s (I-JSON §2.2)', () => {
    expect(expectationOf(send('POST', '/v8/missions', mission({ maximumSteps: 1e308 }), key))).toMatchObject({ kind: 'open', constraint: 'POST /v8/missions resourceBudget.maximumSteps safe-integer' });
    expect(expectationOf(send('POST', '/v8/missions', mission({ maximumSteps: 2 ** 53 }), key)).kind).toBe('open');
    // The stated bound still decides where it is broken.
    expect(expectationOf(send('POST', '/v8/missions', mission({ maximumSteps: 0 }), key))).toMatchObject({ kind: 'refuse', status: 400 });
    expect(expectationOf(send('POST', '/v8/missions', mission({ maximumParallelism: 2 ** 53 }), key)).kind).toBe('refuse');
  });

  it('JSON extensions (RFC 8259 §9) are open but where a sentence names malformed JSON', () => {
    const search = '{"actionFamily":"a","purpose":"p","targetType":"t"}';
    for (const text of [`${search.slice(0, -1)},}`, `${search}x`, `${search}${search}`, `{'apicert':1,${search.slice(1)}`]) {
      expect(expectationOf(raw('/v8/capabilities/search', text)).kind, text).toBe('open');
      expect(expectationOf(raw('/v1/execute', text)).kind, text).toBe('open');
    }
    expect(expectationOf(raw('/v8/missions', `${JSON.stringify(mission({})).slice(0, -1)},}`))).toMatchObject({ kind: 'refuse', status: 400 });
    // A text cut short is no extension's.
    expect(expectationOf(raw('/v8/capabilities/search', '{"apicert":')).kind).toBe('refuse');
  });

  it('a /v1 key in the query or a cookie (RFC 6750 §2.3 "MAY support"); /v8 states its header', () => {
    const bare = (path: string, headers: Record<string, string> = {}) => sentOf({ method: 'GET', path, credential: null, headers });
    expect(expectationOf(bare('/v1/usage?access_token=service_sk_x')).kind).toBe('open');
    expect(expectationOf(bare('/v1/usage', { cookie: 'access_token=service_sk_x' })).kind).toBe('open');
    expect(expectationOf(bare('/v1/usage')).kind).toBe('refuse');
    expect(expectationOf(bare('/v8/coverage?access_token=x')).kind).toBe('refuse');
    expect(expectationOf(bare('/v8/coverage', { cookie: 'access_token=x' }))).toMatchObject({ kind: 'refuse', status: 401 });
  });

  it('names 400 only for a signal over 256 chars, and memory\'s "bounds exceeded" only upward', () => {
    const signal = (s: string) => expectationOf(send('POST', `/v8/missions/${RUN}/signals`, { signal: s, payload: {} }, key), existing);
    expect(signal('')).toMatchObject({ kind: 'refuse' });
    expect(signal('')).not.toHaveProperty('status');
    expect(signal('a'.repeat(257))).toMatchObject({ kind: 'refuse', status: 400 });
    const memory = (change: Record<string, unknown>) => expectationOf(send('POST', '/v8/memory/query', { compartment: 'c', purpose: 'p', queryText: 'q', classes: ['note'], ...change }));
    expect(memory({ limit: 0 })).not.toHaveProperty('status');
    expect(memory({ queryText: '' })).not.toHaveProperty('status');
    expect(memory({ limit: 51 })).toMatchObject({ kind: 'refuse', status: 400 });
    expect(memory({ classes: [] })).toMatchObject({ kind: 'refuse', status: 400 });
  });

  it('control, invisible and blank text: the catalogue\'s open reasons hold for a recording too', () => {
    const search = (purpose: string) => expectationOf(send('POST', '/v8/capabilities/search', { actionFamily: 'a', purpose, targetType: 't' }));
    for (const purpose of ['p\u0001\u001bq', 'p\u0085q', 'p\u200bq', '\u202eq', 'p\u0301q', '   ', ' p ']) expect(search(purpose).kind, JSON.stringify(purpose)).toBe('open');
    expect(search('plain purpose').kind).toBe('accept');
  });

  it('/mcp: a Number or Null id (JSON-RPC 2.0 §4), and an unknown method before notifications/initialized', () => {
    const rpc = (message: unknown) => sentOf({ method: 'POST', path: '/mcp', credential, headers: { 'mcp-session-id': 's1' }, json: message });
    const initialized: Known = { existing: [], parked: [], bases: {}, mcpSession: 's1', mcpInitialized: true };
    expect(expectationOf(rpc({ jsonrpc: '2.0', id: 1.5, method: 'ping' }), initialized).kind).toBe('open');
    expect(expectationOf(rpc({ jsonrpc: '2.0', id: null, method: 'ping' }), initialized).kind).toBe('open');
    const unknown = rpc({ jsonrpc: '2.0', id: 'u', method: 'apicert/no-such-method' });
    expect(expectationOf(unknown, { ...initialized, mcpInitialized: false }).kind).toBe('open');
    expect(expectationOf(unknown, initialized)).toMatchObject({ kind: 'refuse', codes: [-32601] });
  });
});

describe('the judgement and the catalogue leave them open too', () => {
  it('a 413 to an open request is a legal refusal, still held to the error format ("Failures are application/problem+json")', () => {
    const j = judgeAnswer(send('POST', '/v1/execute', task), { kind: 'open', why: 'w', constraint: 'c' }, answer(413));
    expect(j.findings['no-5xx']?.ok).toBe(true);
    expect(j.findings['problem-json']?.ok).toBe(false);
    expect(j.findings['error-status']).toBeUndefined();
  });

  it('states a refusal of not-JSON only on POST /v8/missions, a query token only on /v8, and lets a chunked body get 411', () => {
    const fixtures = { 'v8.missions.succeeds': mission({}) };
    const v8 = httpCases({ surface: 'v8', credential, fixtures, readOnly: false, depth: 'deep' });
    const v1 = httpCases({ surface: 'v1', credential, fixtures: {}, readOnly: false, depth: 'deep' });
    const notJson = [...v8, ...v1].filter((c) => c.operator === 'json-text.not-json');
    expect(notJson.length).toBeGreaterThan(0);
    for (const c of notJson) expect(c.stated === undefined, `${c.endpoint} ${c.label}`).toBe(c.endpoint !== 'POST /v8/missions');
    const statedNotJson = notJson.filter((c) => c.stated);
    expect(statedNotJson.length, 'a stated not-JSON case on POST /v8/missions').toBeGreaterThan(0);
    expect(statedNotJson.every((c) => c.stated?.status === 400)).toBe(true);
    const elsewhere = (cases: typeof v8) => cases.filter((c) => c.operator === 'credentials.elsewhere');
    expect(elsewhere(v1).length).toBeGreaterThan(0);
    expect(elsewhere(v1).every((c) => c.stated === undefined && c.why !== undefined)).toBe(true);
    expect(elsewhere(v8).length).toBeGreaterThan(0);
    // A refusal is stated ("required on every /v8 call"), but no status: the query parameter or the cookie is an open cause beside the missing token.
    expect(elsewhere(v8).every((c) => c.stated !== undefined && c.stated.status === undefined)).toBe(true);
    const chunked = v8.filter((c) => c.operator === 'framing.chunked');
    expect(chunked.length).toBeGreaterThan(0);
    for (const c of chunked) {
      expect(c.permits).toContain(411);
      expect(judged(send('POST', '/v8/memory/query'), { kind: 'refuse', because: { kind: 'standard', standard: 'x', section: 'y', quote: 'z' } as never, constraint: 'c', status: 404 }, answer(411, '{}', 'application/problem+json'), c.permits, true).findings).toEqual({});
    }
  });

  it('/mcp: ids 1.5 and null are not refusals the catalogue states', () => {
    const ids = mcpCases('deep', undefined).filter((c) => c.operator === 'jsonrpc.id-forms' && /^id (1\.5|null)$/.test(c.label));
    expect(ids).toHaveLength(2);
    for (const c of ids) expect(c.stated, c.label).toBeUndefined();
  });
});
