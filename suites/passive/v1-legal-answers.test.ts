/**
 * Legal /v1 answers the rules judging recordings once failed: a task whose open `task` the
 * deployment does not take, a limiter refusal of a reused idempotency key, a HEAD answer without
 * content, and requests to paths or with methods the description does not list.
 */
import { describe, expect, it } from 'vitest';
import { v1Recording } from './v1-recording.ts';

const TOKEN = 'service_sk_legalanswers0123456789abcdef';
const BASE = 'https://fabric.example.com';
const AUTH = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', accept: 'application/json' };
const TASK = { mode: 'task', task: { scenario: 'apicert.completes' } };
const OTHER_TASK = { mode: 'task', task: { scenario: 'apicert.fails' } };

const { journal, verdicts } = v1Recording(BASE, TOKEN, { completes: TASK, fails: OTHER_TASK });

const json = (body: unknown) => ({ status: 200, responseHeaders: { 'content-type': 'application/json' }, responseBody: JSON.stringify(body) });
const problem = (status: number, code: string, retryable = false) => ({
  status,
  responseHeaders: { 'content-type': 'application/problem+json', ...(status === 429 ? { 'retry-after': '30' } : {}) },
  responseBody: JSON.stringify({ type: 'about:blank', title: 'refused', status, code, retryable }),
});
const execute = (body: unknown, headers: Record<string, string> = {}) => ({ method: 'POST', path: '/v1/execute', credential: 'full', requestHeaders: { ...AUTH, ...headers }, requestBody: JSON.stringify(body) });

describe('/v1 task bodies: "Sub-field shapes of `task`, `context`, `policy` and `delivery`: not shown."', () => {
  it('a task whose `task` or `policy` is no fixture\'s may be refused; a fixture\'s body with top-level extras may not', async () => {
    const ok = await verdicts(
      journal([
        { ...execute(TASK), ...json({ run_id: 'run_1' }) },
        { ...execute({ mode: 'task', task: { scenario: 'apicert.completes', unknown: 1 }, extra: true }), ...problem(400, 'invalid_request') },
        { ...execute({ ...TASK, policy: { riskCeiling: 'bogus' } }), ...problem(400, 'invalid_request') },
      ]),
      ['v1.execute.task.run-id', 'v1.execute.task.extra-properties'],
    );
    expect(ok['v1.execute.task.run-id']).toBe('pass');
    expect(ok['v1.execute.task.extra-properties']).toBe('not-applicable');
    const refused = await verdicts(journal([{ ...execute({ ...OTHER_TASK, apicertNote: 'extra' }), ...problem(400, 'invalid_request') }]), ['v1.execute.task.extra-properties']);
    expect(refused['v1.execute.task.extra-properties']).toBe('fail');
  });

  it('a conflict is judged only on a body the deployment takes under a fresh key', async () => {
    const key = { 'idempotency-key': 'k-conflict-1' };
    const open = await verdicts(
      journal([
        { ...execute(TASK, key), ...json({ run_id: 'run_1' }) },
        { ...execute({ mode: 'task', task: { scenario: 'apicert.completes', variant: 2 } }, key), ...problem(400, 'invalid_request') },
      ]),
      ['v1.execute.idempotency.conflict'],
    );
    expect(open['v1.execute.idempotency.conflict']).toBe('not-applicable');
    const wrong = await verdicts(journal([{ ...execute(TASK, key), ...json({ run_id: 'run_1' }) }, { ...execute(OTHER_TASK, key), ...json({ run_id: 'run_2' }) }]), ['v1.execute.idempotency.conflict']);
    expect(wrong['v1.execute.idempotency.conflict']).toBe('fail');
  });
});

describe('/v1 idempotency: "`429` and `503` are safe to retry with the same idempotency key, because nothing was accepted."', () => {
  it.each([429, 503])('a reused key answered %i is neither a failed replay nor a missed conflict', async (status) => {
    const key = { 'idempotency-key': 'k-limited-1' };
    const out = await verdicts(
      journal([
        { ...execute(TASK, key), ...json({ run_id: 'run_1' }) },
        { ...execute(TASK, key), ...problem(status, status === 429 ? 'rate_limited' : 'unavailable', true) },
        { ...execute(OTHER_TASK, key), ...problem(status, status === 429 ? 'rate_limited' : 'unavailable', true) },
        { ...execute(TASK, key), ...json({ run_id: 'run_1' }) },
      ]),
      ['v1.execute.idempotency.replay', 'v1.execute.idempotency.conflict'],
    );
    expect(out['v1.execute.idempotency.replay']).toBe('pass');
    expect(out['v1.execute.idempotency.conflict']).toBe('not-applicable');
  });
});

describe('/v1 HEAD answers carry no content (RFC 9110 9.3.2)', () => {
  const headers = { 'content-type': 'application/problem+json', 'content-length': '120' };
  it('a HEAD refused 401 without a body passes the authentication rules', async () => {
    const out = await verdicts(
      journal([
        { method: 'GET', path: '/v1/usage', credential: 'full', requestHeaders: { authorization: `Bearer ${TOKEN}` }, ...json({}) },
        { method: 'HEAD', path: '/v1/usage', status: 401, responseHeaders: headers, responseBody: '' },
        { method: 'HEAD', path: '/v1/usage', requestHeaders: { authorization: 'Bearer sk_live_notprefixed' }, status: 401, responseHeaders: headers, responseBody: '' },
      ]),
      ['v1.auth.unauthenticated', 'v1.auth.key-prefix'],
    );
    expect(out).toEqual({ 'v1.auth.unauthenticated': 'pass', 'v1.auth.key-prefix': 'pass' });
  });

  it('a HEAD answered 429 without a body passes v1.errors.rate-limited; a HEAD admitted 200 without a key still fails', async () => {
    const limited = await verdicts(journal([{ method: 'HEAD', path: '/v1/usage', credential: 'full', requestHeaders: { authorization: `Bearer ${TOKEN}` }, status: 429, responseHeaders: { 'content-type': 'application/problem+json', 'retry-after': '30' }, responseBody: '' }]), ['v1.errors.rate-limited']);
    expect(limited['v1.errors.rate-limited']).toBe('pass');
    const served = await verdicts(journal([{ method: 'HEAD', path: '/v1/usage', status: 200, responseHeaders: { 'content-type': 'application/json' }, responseBody: '' }]), ['v1.auth.unauthenticated']);
    expect(served['v1.auth.unauthenticated']).toBe('fail');
  });
});

describe('/v1 authentication judges the operations the description lists', () => {
  it('an unknown path answered 404 and a CORS preflight answered 204, without a key, are not judged', async () => {
    const out = await verdicts(
      journal([
        { method: 'GET', path: '/v1/no-such-endpoint', ...problem(404, 'invalid_request') },
        { method: 'OPTIONS', path: '/v1/usage', requestHeaders: { origin: 'https://app.example.com', 'access-control-request-method': 'GET' }, status: 204, responseHeaders: { 'access-control-allow-origin': 'https://app.example.com' }, responseBody: '' },
      ]),
      ['v1.auth.unauthenticated'],
    );
    expect(out['v1.auth.unauthenticated']).toBe('not-applicable');
  });
});
