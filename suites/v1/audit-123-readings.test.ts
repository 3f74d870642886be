/**
 * Two /v1 expectations that went beyond their sentences (audit helper-123, F2 and F6):
 * - Errors Rule 2 gives the unavailable limiter a 503 and no code ("Mapping of each `code` to an HTTP
 *   status: not shown."): a fail-closed 503 saying `rate_limited` breaks neither
 *   v1.errors.limiter-unavailable-503 nor v1.errors.rate-limited, whose Rule 1 runs from being over
 *   the limit to the answer, not from the code to a status.
 * - The turn table lists "| idempotencyKey | Identifier | no | |" with no meaning: a deployment keying
 *   by the Idempotency-Key header alone passes v1.execute.idempotency.*; one that shows it keys by the
 *   body field is held to Rules 2-3 under it.
 */
import { describe, expect, it } from 'vitest';
import { judgeRecording } from '../../src/passive/judge.ts';
import { parseProfile } from '../../src/profile/load.ts';
import type { Exchange } from '../../src/rule/index.ts';
import { certify } from '../../src/runner/certify.ts';

const BASE = 'http://127.0.0.1:1';
const KEY = 'service_sk_test0123456789abcdef';
const DOWN = 'service_sk_limiterdown0123456789ab';

const profile = parseProfile(
  {
    target: BASE,
    credentials: [
      { name: 'v1-full', token: KEY, surfaces: ['v1'], scopes: ['runs:read', 'runs:write'], principal: 'alice', tenant: 't' },
      { name: 'v1-down', token: DOWN, surfaces: ['v1'], scopes: ['runs:read', 'runs:write'], principal: 'bob', tenant: 't' },
    ],
    fixtures: { v1: { tasks: { completes: { mode: 'task', task: { objective: 'x' } } }, rateLimitCredential: 'v1-full', limiterUnavailableCredential: 'v1-down' } },
  },
  'test profile',
);

const problemHeaders = { 'content-type': 'application/problem+json' };
const problem = (status: number, code: string, retryable: boolean) => JSON.stringify({ type: 'about:blank', title: 'Refused', status, code, retryable });

function usageReads(parts: Array<{ token: string; status: number; body: string }>): Exchange[] {
  return parts.map(
    (p, i) =>
      ({
        index: i,
        startedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
        durationMs: 10,
        method: 'GET',
        path: '/v1/usage',
        url: `${BASE}/v1/usage`,
        requestHeaders: { authorization: `Bearer ${p.token}` },
        status: p.status,
        responseHeaders: p.status === 429 ? { ...problemHeaders, 'retry-after': '1' } : problemHeaders,
        responseBody: p.body,
      }) as Exchange,
  );
}

async function verdicts(exchanges: Exchange[], ids: string[]): Promise<Record<string, string | undefined>> {
  const { results } = await judgeRecording(exchanges, { surfaces: ['v1'], patterns: ids, profile, env: {} });
  return Object.fromEntries(ids.map((id) => [id, results.find((r) => r.rule.id === id)?.verdict]));
}

describe('F2: the code of the fail-closed 503 is open', () => {
  it('a 503 with code rate_limited, retryable:true, on the limiter-down key fails neither rule', async () => {
    const v = await verdicts(usageReads([{ token: DOWN, status: 503, body: problem(503, 'rate_limited', true) }]), ['v1.errors.limiter-unavailable-503', 'v1.errors.rate-limited']);
    expect(v['v1.errors.limiter-unavailable-503']).toBe('pass');
    expect(v['v1.errors.rate-limited']).not.toBe('fail');
  });

  it('a 503 that says retryable:false still fails; an over-limit 429 without rate_limited or retryable:true, or another 4xx saying rate_limited, still fails', async () => {
    expect((await verdicts(usageReads([{ token: DOWN, status: 503, body: problem(503, 'rate_limited', false) }]), ['v1.errors.limiter-unavailable-503']))['v1.errors.limiter-unavailable-503']).toBe('fail');
    for (const body of [problem(429, 'internal_failed', true), problem(429, 'rate_limited', false)]) {
      expect((await verdicts(usageReads([{ token: KEY, status: 429, body }]), ['v1.errors.rate-limited']))['v1.errors.rate-limited']).toBe('fail');
    }
    expect((await verdicts(usageReads([{ token: KEY, status: 403, body: problem(403, 'rate_limited', true) }]), ['v1.errors.rate-limited']))['v1.errors.rate-limited']).toBe('fail');
  });

  it('variant v1.errors/unavailable-rate-limited-code: the /v1 error rules pass', async () => {
    const { results } = await certify({ variants: ['v1.errors/unavailable-rate-limited-code'], patterns: ['v1.errors.*'], seed: 7 });
    const failing = results.filter((r) => r.verdict === 'fail').map((r) => `${r.rule.id}: ${r.reason ?? ''}`);
    expect(failing).toEqual([]);
    expect(results.find((r) => r.rule.id === 'v1.errors.limiter-unavailable-503')?.verdict).toBe('pass');
  });
});

describe("F6: a turn body's idempotencyKey keys requests only where the deployment shows it does", () => {
  const ids = ['v1.execute.idempotency.body-key', 'v1.execute.idempotency.replay', 'v1.execute.idempotency.conflict'];
  const verdictsOf = async (options: Parameters<typeof certify>[0]) => {
    const { results } = await certify({ ...options, patterns: ids, seed: 11 });
    return Object.fromEntries(results.map((r) => [r.rule.id, `${r.verdict}${r.verdict === 'fail' ? `: ${r.reason ?? ''}` : ''}`]));
  };

  it('variant v1.execute/body-key-ignored (the header alone keys): body-key does not apply, replay and conflict pass', async () => {
    const v = await verdictsOf({ variants: ['v1.execute/body-key-ignored'] });
    expect(v['v1.execute.idempotency.body-key']).toBe('not-applicable');
    expect(v['v1.execute.idempotency.replay']).toBe('pass');
    expect(v['v1.execute.idempotency.conflict']).toBe('pass');
  });

  it('the default fake keys by the body field: body-key passes; a body key that replays another body fails it', async () => {
    expect((await verdictsOf({}))['v1.execute.idempotency.body-key']).toBe('pass');
    expect((await verdictsOf({ faults: ['v1.execute.idempotency.body-key/conflict-replays'] }))['v1.execute.idempotency.body-key']).toMatch(/^fail: .*expected a 409 conflict/);
  });
});
