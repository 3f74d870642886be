/**
 * Two causes of refusal in one request: no sentence orders a deployment's checks, so a request
 * without a usable key (or on a key whose limiter is down) that also carries a malformed body, or
 * names a run nobody was shown, may be refused for that other cause. Hand-made recordings of a
 * deployment that validates first; an ordinary request is still held to the key's (the limiter's) answer.
 */
import { describe, expect, it } from 'vitest';
import { judgeRecording } from '../../src/passive/judge.ts';
import type { Exchange } from '../../src/rule/index.ts';
import { journal, TASK, threeKeys, type Part } from './three-keys.ts';

const { FULL, EXPIRED, DOWN, profile } = threeKeys('twocauses');

async function verdicts(parts: Part[], patterns: string[]): Promise<Record<string, string>> {
  const { results } = await judgeRecording(journal(parts), { surfaces: ['v1'], patterns, profile: profile() });
  return Object.fromEntries(results.map((r) => [r.rule.id, r.verdict]));
}

const problem = (status: number, code: string) => ({
  status,
  responseHeaders: { 'content-type': 'application/problem+json' },
  responseBody: JSON.stringify({ type: 'about:blank', title: code, status, code, retryable: status === 503 }),
});
const key = (token: string | undefined, name?: string): Partial<Exchange> => ({
  requestHeaders: { 'content-type': 'application/json', ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
  ...(name === undefined ? {} : { credential: name }),
});
const execute = (token: string | undefined, name: string | undefined, body: string): Part => ({ method: 'POST', path: '/v1/execute', ...key(token, name), requestBody: body });
const MALFORMED = '{"mode": ';

describe('v1.auth.*: a request without a usable key and with a malformed body', () => {
  it('refused 400 invalid_request for the body passes; served, or refused 400 when the body is well-formed, fails', async () => {
    const rules = ['v1.auth.unauthenticated', 'v1.auth.expired-key'];
    const validateFirst = await verdicts(
      [
        { ...execute(undefined, undefined, MALFORMED), ...problem(400, 'invalid_request') },
        { ...execute(EXPIRED, 'expired', MALFORMED), ...problem(400, 'invalid_request') },
        { ...execute(undefined, undefined, JSON.stringify(TASK)), ...problem(401, 'authentication_failed') },
        { ...execute(EXPIRED, 'expired', JSON.stringify(TASK)), ...problem(401, 'authentication_failed') },
      ],
      rules,
    );
    expect(validateFirst).toEqual({ 'v1.auth.unauthenticated': 'pass', 'v1.auth.expired-key': 'pass' });
    const servedMalformed = await verdicts([{ ...execute(undefined, undefined, MALFORMED), status: 200, responseHeaders: { 'content-type': 'application/json' }, responseBody: '{"run_id":"r1"}' }], ['v1.auth.unauthenticated']);
    expect(servedMalformed['v1.auth.unauthenticated']).toBe('fail');
    const ordinaryAs400 = await verdicts(
      [
        { ...execute(undefined, undefined, JSON.stringify(TASK)), ...problem(400, 'invalid_request') },
        { ...execute(EXPIRED, 'expired', JSON.stringify(TASK)), ...problem(400, 'invalid_request') },
      ],
      rules,
    );
    expect(ordinaryAs400).toEqual({ 'v1.auth.unauthenticated': 'fail', 'v1.auth.expired-key': 'fail' });
  });

  it('a run no earlier answer showed may be answered 404; a run the recording showed may not', async () => {
    const shown = { ...execute(FULL, 'full', JSON.stringify(TASK)), status: 200, responseHeaders: { 'content-type': 'application/json' }, responseBody: '{"run_id":"run_1"}' };
    const unknown = await verdicts([{ method: 'GET', path: '/v1/runs/run_never_shown', ...problem(404, 'invalid_request') }], ['v1.auth.unauthenticated']);
    expect(unknown['v1.auth.unauthenticated']).toBe('pass');
    const known = await verdicts([shown, { method: 'GET', path: '/v1/runs/run_1', ...problem(404, 'invalid_request') }], ['v1.auth.unauthenticated']);
    expect(known['v1.auth.unauthenticated']).toBe('fail');
  });
});

describe('v1.errors.limiter-unavailable-503: the limiter-down key with another cause', () => {
  const rule = 'v1.errors.limiter-unavailable-503';
  it('a malformed body refused 400 and an unknown run answered 404 pass; 429, or 400 to an ordinary request, fail', async () => {
    const other = await verdicts(
      [
        { ...execute(DOWN, 'down', MALFORMED), ...problem(400, 'invalid_request') },
        { method: 'GET', path: '/v1/runs/run_does_not_exist', ...key(DOWN, 'down'), ...problem(404, 'invalid_request') },
        { method: 'GET', path: '/v1/usage', ...key(DOWN, 'down'), ...problem(503, 'internal_failed') },
      ],
      [rule],
    );
    expect(other[rule]).toBe('pass');
    const limited = await verdicts([{ ...execute(DOWN, 'down', MALFORMED), ...problem(429, 'rate_limited') }], [rule]);
    expect(limited[rule]).toBe('fail');
    const ordinary = await verdicts([{ ...execute(DOWN, 'down', JSON.stringify(TASK)), ...problem(400, 'invalid_request') }], [rule]);
    expect(ordinary[rule]).toBe('fail');
  });
});
