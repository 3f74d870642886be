/**
 * Which requests under a used key the idempotency rules may hold to a replay or a conflict.
 * - A body a deployment may read two ways (a member named twice: RFC 8259 4, "what software does
 *   with such an object is unpredictable"; a byte order mark a parser "MAY ignore", 8.1) is the same
 *   request as another only byte for byte: `{"a":1,"a":2}` against `{"a":2}` is judged neither way.
 * - A request that reuses a key with a body the contract refuses: the /v8 error table names `400`
 *   for the body and `409` for the key ("same `Idempotency-Key` with a different body") and does not
 *   say which comes first, so either answer passes.
 * - A /v1 execute body in such a form has no mode a rule may read: the deployment's reading decides.
 */
import { describe, expect, it } from 'vitest';
import { judgeRecording } from '../../src/passive/judge.ts';
import type { Exchange } from '../../src/rule/index.ts';

const BASE = 'https://gateway.example.com';
const V8_AUTH = { authorization: 'Bearer v8_writer_token_0123456789abcdef', 'content-type': 'application/json' };
const KEY = 'apicert-open-body-key-0001';
const BUDGET = { maximumSteps: 5, maximumToolCalls: 5, maximumElapsedMs: 60_000, maximumParallelism: 1 };
const CREATE = { goalSpec: { task: 'summarise' }, resourceBudget: BUDGET };
const T0 = Date.UTC(2025, 0, 1);
const REPLAY = 'v8.missions.idempotency.replay';
const CONFLICT = 'v8.missions.idempotency.conflict';
const SIGNAL_CONFLICT = 'v8.missions.signals.idempotency-conflict';

/** Exchanges in order, each sent 1 s after the one before and answered within 100 ms. */
function journal(parts: Array<Partial<Exchange> & { method: string; path: string }>): Exchange[] {
  return parts.map((e, i) => ({ index: i, startedAt: new Date(T0 + i * 1000).toISOString(), durationMs: 100, url: `${BASE}${e.path}`, requestHeaders: {}, responseHeaders: {}, ...e }) as Exchange);
}

const problem = (status: number) => ({ status, responseHeaders: { 'content-type': 'application/problem+json' }, responseBody: JSON.stringify({ type: 'about:blank', title: 'refused', status }) });
const accepted = { status: 202, responseHeaders: { 'content-type': 'application/json' }, responseBody: JSON.stringify({ runId: '0190a3b2-7c4d-7e5f-8a9b-0c1d2e3f4a5b', status: 'running', steps: [], sequence: 1 }) };
const create = (body: string, answer: Partial<Exchange>) => ({ method: 'POST', path: '/v8/missions', requestHeaders: { ...V8_AUTH, 'idempotency-key': KEY }, requestBody: body, ...answer });

async function verdicts(exchanges: Exchange[], patterns: string[]): Promise<Record<string, string>> {
  const { results } = await judgeRecording(exchanges, { surfaces: ['v8'], patterns, env: {} });
  return Object.fromEntries(results.map((r) => [r.rule.id, `${r.verdict}${r.verdict === 'fail' ? `: ${r.reason}` : ''}`]));
}

/** The create body with `goalSpec` named twice, the last one the plain body's: JSON.parse reads it as the plain body. */
const TWICE = `{"goalSpec":{"task":"another task"},"goalSpec":{"task":"summarise"},"resourceBudget":${JSON.stringify(BUDGET)}}`;

describe('idempotency: a body a deployment may read two ways', () => {
  it('a member named twice is not the plain body: a deployment that reads the first member may refuse it 409', async () => {
    const v = await verdicts(journal([create(JSON.stringify(CREATE), accepted), create(TWICE, problem(409))]), [REPLAY, CONFLICT]);
    expect(v[REPLAY]).not.toMatch(/^fail/);
    expect(v[CONFLICT]).not.toMatch(/^fail/);
  });

  it('nor is the plain body after it: a deployment that read the first member refuses it 409', async () => {
    const v = await verdicts(journal([create(TWICE, accepted), create(JSON.stringify(CREATE), problem(409))]), [REPLAY, CONFLICT]);
    expect(v[CONFLICT]).not.toMatch(/^fail/);
    expect(v[REPLAY]).not.toMatch(/^fail/);
  });

  it('but the same text again is the same request: it is still owed the replay', async () => {
    const v = await verdicts(journal([create(TWICE, accepted), create(TWICE, problem(409))]), [REPLAY]);
    expect(v[REPLAY]).toMatch(/^fail: .*not a replay of the original/);
  });
});

describe('/v8 conflict: a reused key with a body the contract refuses', () => {
  it('a create missing goalSpec may be refused 400 for its body', async () => {
    const v = await verdicts(journal([create(JSON.stringify(CREATE), accepted), create(JSON.stringify({ resourceBudget: BUDGET }), problem(400))]), [CONFLICT]);
    expect(v[CONFLICT]).not.toMatch(/^fail/);
  });

  it('a valid other body refused 400 still fails: only the key can refuse it', async () => {
    const other = { ...CREATE, goalSpec: { task: 'summarise, changed' } };
    const v = await verdicts(journal([create(JSON.stringify(CREATE), accepted), create(JSON.stringify(other), problem(400))]), [CONFLICT]);
    expect(v[CONFLICT]).toMatch(/^fail: .*expected a 409 conflict/);
  });

  it('a signal over 256 characters may be refused 400 for its body; a valid other signal refused 400 fails', async () => {
    const path = '/v8/missions/0190a3b2-7c4d-7e5f-8a9b-0c1d2e3f4a5b/signals';
    const signal = (body: unknown, answer: Partial<Exchange>) => ({ method: 'POST', path, requestHeaders: { ...V8_AUTH, 'idempotency-key': KEY }, requestBody: JSON.stringify(body), ...answer });
    const ok = { status: 200, responseHeaders: {}, responseBody: '' };
    const long = await verdicts(journal([signal({ signal: 'first', payload: {} }, ok), signal({ signal: 'x'.repeat(300), payload: {} }, problem(400))]), [SIGNAL_CONFLICT]);
    expect(long[SIGNAL_CONFLICT]).not.toMatch(/^fail/);
    const valid = await verdicts(journal([signal({ signal: 'first', payload: {} }, ok), signal({ signal: 'second', payload: {} }, problem(400))]), [SIGNAL_CONFLICT]);
    expect(valid[SIGNAL_CONFLICT]).toMatch(/^fail: /);
  });
});
