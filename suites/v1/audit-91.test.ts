/**
 * Fixer helper-94 (audit-91 D1, G1), judged on hand-made recordings (the judgement the active run,
 * judge-traffic and the proxy share):
 * - D1: "The creation response (HTTP `201`) returns `signing_secret` exactly once, at creation."
 *   A deployment may refuse a URL it cannot show public, but a registration it answered 2xx created
 *   the endpoint: that answer is the 201. v1.webhooks.register.created judged the status only for
 *   the profile's receiver, so a registration of any other URL answered 200 went unjudged.
 * - G1: "| GET | `/v1/runs/{id}/events` | ... | `200` `text/event-stream` |". The events GET of a
 *   run an earlier task answer issued to the same caller, answered 200 with JSON, was judged by no
 *   rule without a profile (the identity and resume rules read event streams only): the new
 *   v1.runs.events.stream judges it.
 */
import { describe, expect, it } from 'vitest';
import { judgeRecording } from '../../src/passive/judge.ts';
import type { RuleResult } from '../../src/rule/index.ts';
import { journal, TASK, threeKeys, type Part } from './three-keys.ts';

const { FULL, profile } = threeKeys('audit91');
const OTHER = 'service_sk_audit91_other_0123456789abcdef';
const JSON_TYPE = { 'content-type': 'application/json' };
const PROBLEM_TYPE = { 'content-type': 'application/problem+json' };
const UNJUDGED = ['not-applicable', 'untestable'];

async function judged(parts: Part[], patterns: string[], withProfile: boolean): Promise<RuleResult[]> {
  const { results } = await judgeRecording(journal(parts), { surfaces: ['v1'], patterns, env: {}, ...(withProfile ? { profile: profile() } : {}) });
  return results;
}

async function one(parts: Part[], rule: string, withProfile: boolean): Promise<RuleResult> {
  const results = await judged(parts, [rule], withProfile);
  expect(results.map((r) => r.rule.id)).toEqual([rule]);
  return results[0]!;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });

describe('D1 v1.webhooks.register.created: a registration answered 2xx is the creation, so it is the 201', () => {
  const RULE = 'v1.webhooks.register.created';
  // Made-up values: no secret of any deployment.
  const register = (url: string, status: number, body: unknown, token = FULL): Part => ({
    method: 'POST',
    path: '/v1/webhooks',
    credential: 'full',
    requestHeaders: bearer(token),
    requestBody: JSON.stringify({ url }),
    status,
    responseHeaders: status < 300 ? JSON_TYPE : PROBLEM_TYPE,
    responseBody: JSON.stringify(body),
  });
  const created = (n: number) => ({ id: `we_${n}`, signing_secret: `whsec_audit91_made_up_${n}` });
  const refusal = { type: 'about:blank', title: 'Bad Request', status: 400, code: 'invalid_request', retryable: false };

  it('with a profile: a public-looking URL (not the receiver) answered 200 with a secret fails, naming 200 and 201', async () => {
    // Old code: not-applicable ("the recording holds no exchange this rule can judge").
    const r = await one([register('https://hooks.example.com/a91', 200, created(1))], RULE, true);
    expect(r.verdict, r.reason).toBe('fail');
    expect(r.reason).toMatch(/answered 200, expected 201/);
  });

  it('without a profile: a second URL answered 202 after a first one answered 201 fails (the caller was admitted by the earlier 201)', async () => {
    // Old code: not-applicable (the first registration admits the caller, and the 202 was passed over).
    const r = await one([register('https://hooks.example.com/a', 201, created(1)), register('https://hooks.example.com/b', 202, created(2))], RULE, false);
    expect(r.verdict, r.reason).toBe('fail');
    expect(r.reason).toMatch(/answered 202, expected 201/);
  });

  it('a refusal of a URL not known public stays open; a 201 with its secret passes', async () => {
    const refused = await one([register('https://hooks.example.com/a91', 400, refusal)], RULE, true);
    expect(UNJUDGED, refused.reason).toContain(refused.verdict);
    const ok = await one([register('https://hooks.example.com/a91', 201, created(1))], RULE, true);
    expect(ok.verdict, ok.reason).toBe('pass');
  });

  it('a second registration of the same URL answered 200 is still open ("What a second registration of one URL answers is not shown")', async () => {
    const r = await one([register('https://hooks.example.com/a91', 201, created(1)), register('https://hooks.example.com/a91', 200, { id: 'we_1' })], RULE, true);
    expect(r.verdict, r.reason).toBe('pass');
  });
});

describe('G1 a /v1 run event stream answered as JSON', () => {
  const RULE = 'v1.runs.events.stream';
  const execute = (token = FULL): Part => ({
    method: 'POST',
    path: '/v1/execute',
    requestHeaders: { ...bearer(token), 'idempotency-key': 'key-audit91-1' },
    requestBody: JSON.stringify(TASK),
    status: 200,
    responseHeaders: JSON_TYPE,
    responseBody: JSON.stringify({ run_id: 'run_a91_1' }),
  });
  const events = (status: number, type: string, body: string, extra: Record<string, string> = {}, token = FULL): Part => ({
    method: 'GET',
    path: '/v1/runs/run_a91_1/events',
    requestHeaders: { authorization: `Bearer ${token}`, accept: 'text/event-stream', ...extra },
    status,
    responseHeaders: { 'content-type': type },
    responseBody: body,
  });
  const jsonEvents = JSON.stringify([{ id: '1', kind: 'run.started' }, { id: '2', kind: 'run.completed' }]);
  const sse = 'id: 1\nevent: request.accepted\ndata: {"replayed":false}\n\nid: 2\nevent: run.completed\ndata: {}\n\n';

  it('without a profile, the issued run\'s events answered 200 application/json fail a v1.runs.events rule (the a91 recording)', async () => {
    // Old code: every v1.runs.events rule not-applicable, the gate PASS.
    const results = await judged([execute(), events(200, 'application/json', jsonEvents), events(200, 'application/json', '[]', { 'last-event-id': '1' })], ['v1.runs.events.*'], false);
    const failing = results.filter((r) => r.verdict === 'fail').map((r) => r.rule.id);
    expect(failing).toEqual([RULE]);
    const r = results.find((x) => x.rule.id === RULE)!;
    expect(r.reason).toMatch(/content-type "application\/json", expected text\/event-stream/);
  });

  it('a resume (Last-Event-ID) answered 200 JSON fails too; a 204 fails for its status', async () => {
    const resumed = await one([execute(), events(200, 'application/json', '[]', { 'last-event-id': '1' })], RULE, false);
    expect(resumed.verdict, resumed.reason).toBe('fail');
    const empty = await one([execute(), events(204, 'text/event-stream', '')], RULE, true);
    expect(empty.verdict, empty.reason).toBe('fail');
    expect(empty.reason).toMatch(/answered 204, expected 200/);
  });

  it('the same read answered 200 text/event-stream passes, with or without a profile', async () => {
    for (const withProfile of [false, true]) {
      const r = await one([execute(), events(200, 'text/event-stream; charset=utf-8', sse)], RULE, withProfile);
      expect(r.verdict, r.reason).toBe('pass');
    }
  });

  it('a refusal of the issued run stays open (an expired run may be refused: silence is open)', async () => {
    const gone = JSON.stringify({ type: 'about:blank', title: 'Gone', status: 410, code: 'invalid_request', retryable: false });
    const r = await one([execute(), events(410, 'application/problem+json', gone)], RULE, false);
    expect(UNJUDGED, r.reason).toContain(r.verdict);
  });

  it('the events of a run issued to another caller, or never issued, are not picked (chosen by the request and earlier exchanges)', async () => {
    const other = await one([execute(), events(200, 'application/json', jsonEvents, {}, OTHER)], RULE, false);
    expect(UNJUDGED, other.reason).toContain(other.verdict);
    const never = await one([events(200, 'application/json', jsonEvents)], RULE, false);
    expect(UNJUDGED, never.reason).toContain(never.verdict);
  });
});
