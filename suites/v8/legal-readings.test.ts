/**
 * Legal readings audit helper-64 found /v8 rules failing (docs/legal-variation.md), judged on
 * hand-made recordings: "HTTP origins are rejected" read as the transport, a raw message refused by
 * the HTTP layer with a text page, a trace indexed a while after its step event, a media type in
 * upper case.
 */
import { describe, expect, it } from 'vitest';
import { judged } from '../../src/checks/catalogue/run.ts';
import { sentOf } from '../../src/checks/generated/expectation.ts';
import type { Answer } from '../../src/checks/generated/judgement.ts';
import { TRACE_INDEX_BOUND_MS } from '../../src/checks/v8/support/read.ts';
import { judgeRecording } from '../../src/passive/judge.ts';
import { parseProfile } from '../../src/profile/load.ts';
import { runJudgement, type Exchange } from '../../src/rule/index.ts';
import { generatedErrorStatus } from '../../src/checks/v8/contract/generated.ts';

const RUN = '0190a8f0-1c2d-7e3f-8a4b-5c6d7e8f9a0b';
const T0 = Date.UTC(2026, 0, 1);

const profile = (target: string) =>
  parseProfile(
    {
      target,
      credentials: [{ name: 'all', token: 'tok-all-00000001', surfaces: ['v8'], scopes: ['missions:write', 'missions:read', 'traces:read', 'coverage:read', 'capabilities:read'], principal: 'alice' }],
    },
    'test profile',
  );

type Part = Partial<Exchange> & { method: string; path: string; at: number };

/** Exchanges at the given milliseconds after T0 (`at`), in the order given; `url` from `base` unless given. */
function journal(base: string, parts: Part[]): Exchange[] {
  return parts.map(({ at, ...e }, i) => ({ index: i, startedAt: new Date(T0 + at).toISOString(), durationMs: 10, url: `${base}${e.path}`, requestHeaders: {}, responseHeaders: {}, ...e }) as Exchange);
}

async function judge(base: string, exchanges: Exchange[], patterns: string[], target = base) {
  const { results } = await judgeRecording(exchanges, { surfaces: ['v8'], patterns, profile: profile(target), env: {} });
  return results;
}

const verdicts = async (base: string, exchanges: Exchange[], patterns: string[], target = base) => Object.fromEntries((await judge(base, exchanges, patterns, target)).map((r) => [r.rule.id, r.verdict]));

const auth = { authorization: 'Bearer tok-all-00000001' };
const json = { 'content-type': 'application/json', 'x-service-contract-version': 'service-integration-gateway-v8.1' };
const problemHeaders = { 'content-type': 'application/problem+json', 'x-service-contract-version': 'service-integration-gateway-v8.1' };
const problem = (status: number) => JSON.stringify({ type: 'https://errors.example.test/x', title: 'x', status, detail: 'x', code: 'x', requestId: '6f1c2a3b-4d5e-0f70-c192-a3b4c5d6e7f8' });

describe('v8.contract.http-origin: two readings of "HTTP origins are rejected"', () => {
  const BASE = 'http://127.0.0.1:1';
  const ORIGIN = { ...auth, origin: 'http://apicert-origin.example' };
  const coverage = (status: number, origin: boolean, at: number): Part => ({ at, method: 'GET', path: '/v8/coverage', requestHeaders: origin ? ORIGIN : auth, status, responseHeaders: status < 300 ? json : problemHeaders, responseBody: status < 300 ? '{}' : problem(status) });
  const search = (status: number, at: number): Part => ({ at, method: 'POST', path: '/v8/capabilities/search', requestHeaders: { ...ORIGIN, 'content-type': 'application/json' }, requestBody: '{"actionFamily":"a","purpose":"b","targetType":"c"}', status, responseHeaders: status < 300 ? json : problemHeaders, responseBody: status < 300 ? '[]' : problem(status) });
  const RULE = ['v8.contract.http-origin'];

  it('the header reading, taken on every request, passes', async () => {
    expect(await verdicts(BASE, journal(BASE, [coverage(200, false, 0), coverage(403, true, 1), search(403, 2)]), RULE)).toEqual({ 'v8.contract.http-origin': 'pass' });
  });

  it('a deployment that serves http:// Origins took the transport reading: not-applicable with that reason, never a fail', async () => {
    // A recording's not-applicable names what to record; an active run's gives the rule's own reason (`none`).
    expect(await verdicts(BASE, journal(BASE, [coverage(200, false, 0), coverage(200, true, 1), search(200, 2)]), RULE)).toEqual({ 'v8.contract.http-origin': 'not-applicable' });
  });

  it('the header reading taken on one request and forgotten on another fails', async () => {
    expect(await verdicts(BASE, journal(BASE, [coverage(200, false, 0), coverage(403, true, 1), search(200, 2)]), RULE)).toEqual({ 'v8.contract.http-origin': 'fail' });
  });

  it('an https:// target: a plain http:// request to its host served 2xx fails; refused or redirected passes', async () => {
    const HTTPS = 'https://gateway.example.test';
    const plain = (status: number): Part => ({ at: 3, method: 'GET', path: '/v8/coverage', url: 'http://gateway.example.test/v8/coverage', requestHeaders: auth, status, responseHeaders: status === 301 ? { location: `${HTTPS}/v8/coverage` } : json, responseBody: status === 301 ? '' : '{}' });
    const served = [coverage(200, false, 0), coverage(200, true, 1), search(200, 2)];
    expect(await verdicts(HTTPS, journal(HTTPS, [...served, plain(200)]), RULE)).toEqual({ 'v8.contract.http-origin': 'fail' });
    expect(await verdicts(HTTPS, journal(HTTPS, [...served, plain(301)]), RULE)).toEqual({ 'v8.contract.http-origin': 'pass' });
  });
});

describe('catalogue problem-json: a raw message refused by the HTTP layer', () => {
  const credential = { name: 'k', token: 'tok-all-00000001', surfaces: ['v8', 'v1'], scopes: [], principal: 'p' } as never;
  const sent = (path: string) => sentOf({ method: 'POST', path, credential, headers: {}, json: {} });
  const refuse = { kind: 'refuse', because: { kind: 'standard', standard: 'RFC 9112', section: '3.2', quote: 'A server MUST respond with a 400' } as never, constraint: 'c', status: 400 } as const;
  const answer = (text: string, contentType: string): Answer => ({ status: 400, headers: { 'content-type': contentType }, contentType, json: undefined, text, cut: false });
  const GO = answer('400 Bad Request: too many Host headers', 'text/plain; charset=utf-8');
  const FASTIFY = answer('{"error":"Bad Request","message":"Client Error","statusCode":400}', 'application/json');
  const NGINX = answer('<html><head><title>400 Bad Request</title></head><body><center><h1>400 Bad Request</h1></center><hr><center>nginx</center></body></html>', 'text/html');

  it("Go's text/plain and nginx's HTML 400 to a raw message are the HTTP layer's: no problem-json finding, the media type kept", () => {
    for (const path of ['/v8/missions', '/v1/execute']) {
      expect(judged(sent(path), refuse, GO, undefined, true)).toMatchObject({ httpLayer: 'text/plain' });
      expect(judged(sent(path), refuse, GO, undefined, true).findings['problem-json']).toBeUndefined();
      expect(judged(sent(path), refuse, NGINX, undefined, true)).toMatchObject({ httpLayer: 'text/html' });
      expect(judged(sent(path), refuse, GO, undefined, true).findings['error-status']).toMatchObject({ ok: true });
    }
  });

  it('the same answer to an ordinary request still fails problem-json', () => {
    expect(judged(sent('/v8/missions'), refuse, GO, undefined, false).findings['problem-json']).toMatchObject({ ok: false });
    expect(judged(sent('/v8/missions'), refuse, FASTIFY, undefined, false).findings['problem-json']).toMatchObject({ ok: false });
  });

  it("Fastify's JSON answer to a message Node's parser refuses is the HTTP layer's too (audit helper-142 F2): which layer wrote a raw message's refusal is not in the answer", () => {
    expect(judged(sent('/v1/execute'), refuse, FASTIFY, undefined, true)).toMatchObject({ httpLayer: 'application/json' });
    expect(judged(sent('/v1/execute'), refuse, FASTIFY, undefined, true).findings['problem-json']).toBeUndefined();
  });
});

describe('v8.traces: a trace indexed a while after its step event', () => {
  const BASE = 'http://127.0.0.1:1';
  const TRACE = 'trc.0001.1';
  const step = `event: mission.step.started\ndata: {"runId":"${RUN}","stepId":"step-1","traceId":"${TRACE}"}\n\nevent: mission.completed\ndata: {"runId":"${RUN}"}\n\n`;
  const stream: Part = { at: 0, method: 'GET', path: `/v8/missions/${RUN}/events`, requestHeaders: { ...auth, accept: 'text/event-stream' }, status: 200, responseHeaders: { 'content-type': 'text/event-stream' }, responseBody: step };
  const traceBody = JSON.stringify({ traceId: TRACE, missionRunId: RUN, stepId: 'step-1', startedAt: '2026-01-01T00:00:00.000Z', steps: [] });
  const read = (status: number, at: number): Part => ({ at, method: 'GET', path: `/v8/traces/${TRACE}`, requestHeaders: auth, status, responseHeaders: status === 200 ? json : problemHeaders, responseBody: status === 200 ? traceBody : problem(status) });
  const RULES = ['v8.traces.get.resolves', 'v8.traces.get.ok'];

  it('one early 404 is not failed: no sentence says when a trace becomes readable, so the recording lacks a later read', async () => {
    const results = await judge(BASE, journal(BASE, [stream, read(404, 100)]), RULES);
    for (const r of results) expect(r, r.rule.id).toMatchObject({ verdict: 'untestable', reason: expect.stringContaining('no later read was recorded') });
    expect(results).toHaveLength(2);
  });

  it('a 404, then a 200 two seconds later: readable', async () => {
    expect(await verdicts(BASE, journal(BASE, [stream, read(404, 100), read(200, 2_100)]), RULES)).toEqual({ 'v8.traces.get.resolves': 'pass', 'v8.traces.get.ok': 'pass' });
  });

  it('404 on every read, the last at the bound after the step event: not readable', async () => {
    expect(await verdicts(BASE, journal(BASE, [stream, read(404, 100), read(404, TRACE_INDEX_BOUND_MS + 100)]), RULES)).toEqual({ 'v8.traces.get.resolves': 'fail', 'v8.traces.get.ok': 'fail' });
  });
});

describe('v8.contract.generated: media types are case-insensitive (RFC 9110 §8.3.1)', () => {
  const BASE = 'http://127.0.0.1:1';
  const body = JSON.stringify({ goalSpec: { task: 'summarize' }, resourceBudget: { maximumSteps: 1, maximumToolCalls: 0, maximumElapsedMs: 1000, maximumParallelism: 1 } });
  const projection = JSON.stringify({ runId: RUN, status: 'running', sequence: 1, steps: [] });

  it.each(['application/json', 'Application/JSON; Charset="UTF-8"'])('a mission created answered %s is the caller\'s: reading it back (active run) is not expected to be refused', (type) => {
    const headers = { 'content-type': type, 'x-service-contract-version': 'service-integration-gateway-v8.1' };
    const exchanges = journal(BASE, [
      { at: 0, method: 'POST', path: '/v8/missions', requestHeaders: { ...auth, 'content-type': 'application/json', 'idempotency-key': 'apicert-test-key-0000001' }, requestBody: body, status: 202, responseHeaders: headers, responseBody: projection },
      { at: 1, method: 'GET', path: `/v8/missions/${RUN}`, requestHeaders: auth, status: 200, responseHeaders: headers, responseBody: projection },
    ]);
    const failures: string[] = [];
    const ctx = { check: (held: unknown, why: string) => (held ? true : (failures.push(why), false)), observe: () => undefined };
    runJudgement(ctx as never, generatedErrorStatus.judgement!, exchanges, { source: 'active', profile: profile(BASE) });
    expect(failures).toEqual([]);
  });
});
