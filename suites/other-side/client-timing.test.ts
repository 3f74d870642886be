/**
 * Audit 114 (F1, F2, F4): what a client sent while the refused or reset request was still under way
 * is no reaction to it, a request that may have crossed the answer is not judged either way, and a
 * client stopped at the deadline leaves the rules that waited on it inconclusive.
 */
import { describe, expect, it } from 'vitest';
import { recorded, sessionJudge } from './client-sessions.ts';
import type { RuleResult } from '../../src/rule/index.ts';

const judge = sessionJudge();
const verdict = (results: Map<string, RuleResult>, id: string) => [results.get(id)?.verdict, results.get(id)?.reason];

const keyed = (key: string) => ({ 'content-type': 'application/json', 'idempotency-key': key });
const task = (n: number) => JSON.stringify({ mode: 'task', task: { n } });
/** A POST /v1/execute of task `n` under `key`, on connection `connection` (opened at `connectedAt`, this its `onConnection`th request). */
const post = (index: number, at: number, key: string, n: number, connection: number, connectedAt: number, onConnection = 1, extra: Partial<Parameters<typeof recorded>[0]> = {}) =>
  recorded({ index, at, method: 'POST', path: '/v1/execute', headers: keyed(key), body: task(n), status: 200, connection, connectedAt, onConnection, ...extra });

describe.each([
  ['rate-limited', 'client.v1.limits.retry-after', { 'retry-after': '1' }, 1_000],
  ['rate-limited-no-hint', 'client.v1.limits.default-retry-hint', {}, 1_200],
] as const)('%s: the wait after the 429 (%s)', (scenario, id, responseHeaders, hintMs) => {
  // The 429 went out at 2 ms on connection 1; the scenario runs at time scale 0.02 (60 s become 1.2 s).
  const refused = post(0, 0, 'key-a-0123456789abcdef', 1, 1, -5, 1, { status: 429, respondedAt: 2, adversity: 'answered 429 rate_limited', responseHeaders });
  const retry = (index: number, at: number) => post(index, at, 'key-a-0123456789abcdef', 1, 1, -5, 2);
  const run = (exchanges: ReturnType<typeof recorded>[]) => judge({ scenario, timeScale: 0.02, exchanges });

  it('other work sent at the same time, on a connection opened before the 429, is not judged: the retry that waited passes', async () => {
    const results = await run([refused, post(1, 5, 'key-b-0123456789abcdef', 2, 2, -4), retry(2, hintMs + 50)]);
    expect(verdict(results, id)).toEqual(['pass', undefined]);
  });

  it('a POST on a connection opened just after the 429 may have crossed it: inconclusive, not a failure (the default hint judges only the retry)', async () => {
    const results = await run([refused, post(1, 9, 'key-b-0123456789abcdef', 2, 2, 4), retry(2, hintMs + 50)]);
    // Audit s26 F1: the seed's default is a "retry hint", so other work is observed, never judged, by default-retry-hint.
    if (id === 'client.v1.limits.default-retry-hint') return void expect(verdict(results, id)).toEqual(['pass', undefined]);
    expect(results.get(id)?.verdict).toBe('inconclusive');
    expect(results.get(id)?.reason).toMatch(/#1 POST \/v1\/execute arrived 7 ms after the 429 was sent on another connection \(opened at 4 ms\)/);
  });

  it('a POST surely sent after the 429 and too soon still fails, whatever crossed it', async () => {
    const results = await run([refused, post(1, 9, 'key-b-0123456789abcdef', 2, 2, 4), retry(2, 100)]);
    expect(results.get(id)?.verdict).toBe('fail');
    expect(results.get(id)?.reason).toMatch(/retried \(#2 POST \/v1\/execute\) 98 ms after the 429/);
    // An immediate retry on the 429's own connection came after the client read it.
    expect((await run([refused, retry(1, 3)])).get(id)?.verdict).toBe('fail');
  });

  it('a client stopped at --max-seconds while it waited is inconclusive, never not-applicable', async () => {
    const results = await judge({ scenario, timeScale: 0.02, exchanges: [refused], ended: 'deadline' });
    expect(results.get(id)?.verdict).toBe('inconclusive');
    expect(results.get(id)?.reason).toMatch(/stopped at the scenario's deadline \(--max-seconds\)/);
    // A client that exited of its own accord without posting again is not judged.
    expect((await run([refused])).get(id)?.verdict).toBe('not-applicable');
  });
});

describe('ambiguous-failure: new work is what the client sent after the reset', () => {
  const id = 'client.v1.errors.ambiguous-reconcile';
  // Accepted upstream, the connection was reset at 80 ms.
  const reset = post(0, 0, 'key-r-0123456789abcdef', 1, 1, -5, 1, { respondedAt: 80, runId: 'run_reset', adversity: 'connection reset after the request was accepted upstream (HTTP 200)' });

  it('a POST that arrived before the reset (recorded after it) is not new work; the replay then reconciles', async () => {
    const results = await judge({ scenario: 'ambiguous-failure', exchanges: [reset, post(1, 20, 'key-b-0123456789abcdef', 2, 2, -4), post(2, 90, 'key-r-0123456789abcdef', 1, 3, 85)] });
    expect(verdict(results, id)).toEqual(['pass', undefined]);
  });

  it('a POST that may have crossed the reset is inconclusive; one surely after it fails', async () => {
    const crossed = await judge({ scenario: 'ambiguous-failure', exchanges: [reset, post(1, 86, 'key-b-0123456789abcdef', 2, 2, 83)] });
    expect(crossed.get(id)?.verdict).toBe('inconclusive');
    expect(crossed.get(id)?.reason).toMatch(/#1 POST \/v1\/execute arrived 6 ms after the connection was reset/);
    const late = await judge({ scenario: 'ambiguous-failure', exchanges: [reset, post(1, 500, 'key-b-0123456789abcdef', 2, 2, 480)] });
    expect(late.get(id)?.verdict).toBe('fail');
  });

  it('a client stopped at the deadline before it reconciled or posted is inconclusive', async () => {
    const results = await judge({ scenario: 'ambiguous-failure', exchanges: [reset], ended: 'deadline' });
    expect(results.get(id)?.verdict).toBe('inconclusive');
  });
});
