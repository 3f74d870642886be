/**
 * Audit helper-68 on /v1, judged on hand-made recordings (the judgement the active run and the proxy
 * share) and on the fake:
 * - D5: the fail-closed 503 of a key whose limiter is down carries `retryable: true` ("retryable |
 *   boolean | yes | authoritative retry signal for this response"; "`429` and `503` are safe to retry
 *   with the same idempotency key, because nothing was accepted.").
 * - D6: "Related errors: `authentication_failed`, `authorization_failed`, `entitlement_failed`." maps
 *   no case to one of them: an expired, never-issued, missing or unprefixed key may be refused with
 *   any of the three, and which one is recorded. A code outside the three, or a served request, fails.
 */
import { describe, expect, it } from 'vitest';
import { judgeRecording } from '../../src/passive/judge.ts';
import type { Exchange, RuleResult } from '../../src/rule/index.ts';
import { journal, TASK, threeKeys, type Part } from './three-keys.ts';
import { certify } from '../../src/runner/certify.ts';

const { FULL, EXPIRED, DOWN, profile } = threeKeys('audit68');

async function judged(parts: Part[], rule: string): Promise<RuleResult> {
  const { results } = await judgeRecording(journal(parts), { surfaces: ['v1'], patterns: [rule], profile: profile() });
  expect(results.map((r) => r.rule.id)).toEqual([rule]);
  return results[0]!;
}

const problem = (status: number, code: string, retryable: boolean) => ({
  status,
  responseHeaders: { 'content-type': 'application/problem+json' },
  responseBody: JSON.stringify({ type: 'about:blank', title: code, status, code, retryable }),
});
const bearer = (token: string | undefined, name?: string): Partial<Exchange> => ({
  requestHeaders: { 'content-type': 'application/json', ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
  ...(name === undefined ? {} : { credential: name }),
});
const usage = (token: string | undefined, name?: string): Part => ({ method: 'GET', path: '/v1/usage', ...bearer(token, name) });
const execute = (token: string | undefined, name?: string): Part => ({ method: 'POST', path: '/v1/execute', ...bearer(token, name), requestBody: JSON.stringify(TASK) });

describe('D5 v1.errors.limiter-unavailable-503: the fail-closed 503 says retryable: true', () => {
  const RULE = 'v1.errors.limiter-unavailable-503';

  it('a 503 with retryable: true passes; the same 503 with retryable: false fails, naming the member', async () => {
    const ok = await judged([{ ...usage(DOWN, 'down'), ...problem(503, 'internal_failed', true) }], RULE);
    expect(ok.verdict, ok.reason).toBe('pass');
    const not = await judged([{ ...usage(DOWN, 'down'), ...problem(503, 'internal_failed', false) }], RULE);
    expect(not.verdict, not.reason).toBe('fail');
    expect(not.reason).toMatch(/retryable/);
  });

  it('the rule quotes both sentences it rests on', async () => {
    const { limiterUnavailable } = await import('../../src/checks/v1/errors/rate-limits.ts');
    expect(limiterUnavailable.spec.quote).toContain('retryable | boolean | yes | authoritative retry signal for this response');
    expect(limiterUnavailable.spec.quote).toContain('`429` and `503` are safe to retry with the same idempotency key, because nothing was accepted.');
  });

  it('the fake with v1.errors.limiter-unavailable-503/not-retryable fails the rule in an active run', async () => {
    const { results } = await certify({ faults: ['v1.errors.limiter-unavailable-503/not-retryable'], patterns: [RULE], seed: 7 });
    expect(results[0]!.verdict, results[0]!.reason).toBe('fail');
    expect(results[0]!.reason).toMatch(/retryable/);
  }, 120_000);
});

describe('D6 v1.auth.*: which of the three related errors refuses a key is not shown', () => {
  const codesObserved = (r: RuleResult) => r.observations.filter((o) => /code/.test(o.subject)).map((o) => o.value);

  it('v1.auth.expired-key: authorization_failed or entitlement_failed passes, and the code is recorded', async () => {
    const r = await judged(
      [
        { ...execute(EXPIRED, 'expired'), ...problem(403, 'authorization_failed', false) },
        { ...usage(EXPIRED, 'expired'), ...problem(401, 'entitlement_failed', false) },
      ],
      'v1.auth.expired-key',
    );
    expect(r.verdict, r.reason).toBe('pass');
    expect(JSON.stringify(codesObserved(r))).toMatch(/authorization_failed/);
    expect(JSON.stringify(codesObserved(r))).toMatch(/entitlement_failed/);
  });

  it('v1.auth.expired-key: a code outside the three, or a served request, still fails', async () => {
    const other = await judged([{ ...usage(EXPIRED, 'expired'), ...problem(401, 'invalid_request', false) }], 'v1.auth.expired-key');
    expect(other.verdict, other.reason).toBe('fail');
    expect(other.reason).toMatch(/authentication_failed, authorization_failed or entitlement_failed/);
    const served = await judged([{ ...usage(EXPIRED, 'expired'), status: 200, responseHeaders: { 'content-type': 'application/json' }, responseBody: '{}' }], 'v1.auth.expired-key');
    expect(served.verdict, served.reason).toBe('fail');
  });

  it('v1.auth.unauthenticated and v1.auth.key-prefix: a refusal with authorization_failed passes', async () => {
    const none = await judged([{ ...usage(undefined), ...problem(403, 'authorization_failed', false) }], 'v1.auth.unauthenticated');
    expect(none.verdict, none.reason).toBe('pass');
    const unprefixed = await judged([{ ...usage(FULL.replace('service_sk_', 'live_sk_')), ...problem(403, 'entitlement_failed', false) }], 'v1.auth.key-prefix');
    expect(unprefixed.verdict, unprefixed.reason).toBe('pass');
  });

  it('the fake under v1.auth/expired-as-authorization-failed passes every v1.auth rule; its faults are still caught', async () => {
    const variant = await certify({ variants: ['v1.auth/expired-as-authorization-failed'], patterns: ['v1.auth.*'], seed: 7 });
    const wrong = variant.results.filter((r) => r.rule.level !== 'observation' && r.verdict !== 'pass').map((r) => `${r.rule.id}: ${r.verdict}: ${r.reason}`);
    expect(wrong).toEqual([]);
    expect(variant.variantsTaken).toContain('v1.auth/expired-as-authorization-failed');
    const expired = variant.results.find((r) => r.rule.id === 'v1.auth.expired-key')!;
    expect(JSON.stringify(codesObserved(expired))).toMatch(/authorization_failed/);
    const accepted = await certify({ faults: ['v1.auth.expired-key/accepted'], patterns: ['v1.auth.expired-key'], seed: 7 });
    expect(accepted.results[0]!.verdict, accepted.results[0]!.reason).toBe('fail');
  }, 180_000);
});
