/**
 * The client rules over hand-made logs: legal choices the seed leaves open are not failed, what it
 * forbids is, and a log the record had to cut short never passes on what it lacks.
 */
import { describe, expect, it } from 'vitest';
import { recorded, sessionJudge } from './client-sessions.ts';
import type { RuleResult } from '../../src/rule/index.ts';
import { RECORDED_BODY_LIMIT } from '../../src/client-judge/session.ts';

const ex = recorded;
const judge = sessionJudge();

const json = { 'content-type': 'application/json' };
const keyed = (key: string) => ({ ...json, 'idempotency-key': key });
const task = (n: number) => JSON.stringify({ mode: 'task', task: { n } });
/** A legal turn body (a text part may hold 200000 characters) whose key is its `idempotencyKey` field. */
const bigTurn = (tail = '') => JSON.stringify({ apiVersion: 'v1', requestId: 'req-1', idempotencyKey: 'key-big-0123456789', client: { kind: 'cli', name: 'c', version: '1' }, messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'x'.repeat(100_000) + tail }] }] });
const turn = JSON.stringify({ apiVersion: 'v1', requestId: 'req-1', client: { kind: 'cli', name: 'c', version: '1' }, messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'hi' }] }] });
const RESET = 'connection reset after the request was accepted upstream (HTTP 200)';
const CUT = 'stream cut after 1 event(s)';
const verdict = (results: Map<string, RuleResult>, id: string) => [results.get(id)?.verdict, results.get(id)?.reason];

describe('bodies beyond the 64 KiB the record keeps', () => {
  it('a turn body whose idempotencyKey lies past the kept text keeps its key, and an identical retry passes', async () => {
    const body = bigTurn();
    expect(body.indexOf('idempotencyKey')).toBeLessThan(RECORDED_BODY_LIMIT);
    expect(body.length).toBeGreaterThan(RECORDED_BODY_LIMIT);
    const results = await judge({
      scenario: 'rate-limited',
      exchanges: [
        ex({ index: 0, at: 0, method: 'POST', path: '/v1/execute', headers: json, body, status: 429, respondedAt: 1, adversity: 'answered 429', responseHeaders: { 'retry-after': '30' } }),
        ex({ index: 1, at: 31_000, method: 'POST', path: '/v1/execute', headers: json, body, status: 200 }),
      ],
    });
    expect(verdict(results, 'client.v1.errors.retry-429-same-key')).toEqual(['pass', undefined]);
  });

  it('a retry whose body differs only after the kept text is another body', async () => {
    const results = await judge({
      scenario: 'rate-limited',
      exchanges: [
        ex({ index: 0, at: 0, method: 'POST', path: '/v1/execute', headers: keyed('key-big-0123456789'), body: bigTurn('A'), status: 429, respondedAt: 1, adversity: 'answered 429', responseHeaders: { 'retry-after': '30' } }),
        ex({ index: 1, at: 31_000, method: 'POST', path: '/v1/execute', headers: keyed('key-big-0123456789'), body: bigTurn('B'), status: 200 }),
      ],
    });
    expect(results.get('client.v1.errors.retry-429-same-key')?.verdict).toBe('fail');
    expect(results.get('client.v1.errors.retry-429-same-key')?.reason).toMatch(/changed the request body/);
  });

  it('an identical replay of a large turn body after a reset reconciles it', async () => {
    const results = await judge({
      scenario: 'ambiguous-failure',
      exchanges: [ex({ index: 0, method: 'POST', path: '/v1/execute', body: bigTurn(), status: 200, adversity: RESET }), ex({ index: 1, method: 'POST', path: '/v1/execute', body: bigTurn(), status: 200 })],
    });
    expect(verdict(results, 'client.v1.errors.ambiguous-reconcile')).toEqual(['pass', undefined]);
  });
});

describe('a refused request that carried no Idempotency-Key', () => {
  it.each([
    ['rate-limited', 429, 'client.v1.errors.retry-429-same-key'],
    ['limiter-unavailable', 503, 'client.v1.errors.retry-503-same-key'],
  ] as const)('%s: the identical retry without a key is not-applicable, not a failure', async (scenario, status, id) => {
    const results = await judge({
      scenario,
      exchanges: [
        ex({ index: 0, at: 0, method: 'POST', path: '/v1/execute', headers: json, body: task(1), status, respondedAt: 1, adversity: `answered ${status}`, responseHeaders: { 'retry-after': '1' } }),
        ex({ index: 1, at: 2_000, method: 'POST', path: '/v1/execute', headers: json, body: task(1), status: 200 }),
      ],
    });
    expect(results.get(id)?.verdict).toBe('not-applicable');
    expect(results.get(id)?.reason).toMatch(/carried no Idempotency-Key/);
  });
});

describe('after an ambiguous failure (reset of an accepted POST)', () => {
  const reset = ex({ index: 0, method: 'POST', path: '/v1/execute', headers: keyed('key-aaaaaaaaaaaaaaaa'), body: task(1), status: 200, runId: 'run_reset', adversity: RESET });

  it('other work posted before any reconciliation fails, though a GET under /v1/runs follows', async () => {
    const results = await judge({
      scenario: 'ambiguous-failure',
      exchanges: [reset, ex({ index: 1, method: 'POST', path: '/v1/execute', headers: keyed('key-bbbbbbbbbbbbbbbb'), body: task(2), status: 200 }), ex({ index: 2, method: 'GET', path: '/v1/runs/run_other', status: 404 })],
    });
    expect(results.get('client.v1.errors.ambiguous-reconcile')?.verdict).toBe('fail');
    expect(results.get('client.v1.errors.ambiguous-reconcile')?.reason).toMatch(/#1 POST \/v1\/execute started new work \(another Idempotency-Key\)/);
  });

  it('a readback of another run is no reconciliation, and with no new work the rule is not judged: a client may reconcile later', async () => {
    const results = await judge({ scenario: 'ambiguous-failure', exchanges: [reset, ex({ index: 1, method: 'GET', path: '/v1/runs/run_other', status: 404 })] });
    expect(results.get('client.v1.errors.ambiguous-reconcile')?.verdict).toBe('not-applicable');
    expect(results.get('client.v1.errors.ambiguous-reconcile')?.reason).toMatch(/neither reconciled the reset request .* nor started new work/);
    // A client that crashed instead is no choice to wait: inconclusive.
    const crashed = await judge({ scenario: 'ambiguous-failure', exchanges: [reset], ended: 'exit', exitCode: 1 });
    expect(crashed.get('client.v1.errors.ambiguous-reconcile')?.verdict).toBe('inconclusive');
  });

  it('reconciling first (delivery listing, then the reset run read back) and posting new work afterwards passes', async () => {
    const results = await judge({
      scenario: 'ambiguous-failure',
      exchanges: [
        reset,
        ex({ index: 1, method: 'GET', path: '/v1/webhook-deliveries?limit=10', status: 200 }),
        ex({ index: 2, method: 'GET', path: '/v1/runs/run_reset', status: 200 }),
        ex({ index: 3, method: 'POST', path: '/v1/execute', headers: keyed('key-bbbbbbbbbbbbbbbb'), body: task(2), status: 200 }),
      ],
    });
    expect(verdict(results, 'client.v1.errors.ambiguous-reconcile')).toEqual(['pass', undefined]);
  });
});

describe('after a dropped stream', () => {
  const cut = ex({ index: 0, method: 'POST', path: '/v1/execute', headers: keyed('k-1234567890123456'), body: turn, status: 200, eventIds: ['1'], runId: 'run_1', adversity: CUT });

  it('a client that never posts again is not-applicable on both repost rules', async () => {
    const results = await judge({ scenario: 'dropped-stream', exchanges: [cut] });
    expect(results.get('client.v1.endpoints.dropped-readback')?.verdict).toBe('not-applicable');
    expect(results.get('client.v1.endpoints.streamed-retry')?.verdict).toBe('not-applicable');
    // It read nothing back, so the reason does not say it did.
    expect(results.get('client.v1.endpoints.streamed-retry')?.reason).not.toMatch(/read the run back/);
  });

  it('a repost before any readback fails; a readback before it passes', async () => {
    const repost = (index: number) => ex({ index, method: 'POST', path: '/v1/execute', headers: keyed('k-1234567890123456'), body: turn, status: 200 });
    const early = await judge({ scenario: 'dropped-stream', exchanges: [cut, repost(1), ex({ index: 2, method: 'GET', path: '/v1/runs/run_1', status: 200 })] });
    expect(early.get('client.v1.endpoints.dropped-readback')?.verdict).toBe('fail');
    const late = await judge({ scenario: 'dropped-stream', exchanges: [cut, ex({ index: 1, method: 'GET', path: '/v1/runs/run_1', status: 200 }), repost(2)] });
    expect(verdict(late, 'client.v1.endpoints.dropped-readback')).toEqual(['pass', undefined]);
  });
});

describe('a log the record cut short', () => {
  it('gives no pass or not-applicable that rests on requests it did not keep', async () => {
    const conflict = ex({ index: 0, method: 'POST', path: '/v1/execute', headers: keyed('key-aaaaaaaaaaaaaaaa'), body: task(1), status: 409, adversity: 'answered 409 conflict without Retry-After' });
    // Nothing after the 409 is no pass (audit 58, item 3): the client neither retried nor used a new key.
    const complete = await judge({ scenario: 'idempotency-conflict', exchanges: [conflict] });
    expect(complete.get('client.v1.errors.conflict-new-key')?.verdict).toBe('not-applicable');
    const cut = await judge({ scenario: 'idempotency-conflict', exchanges: [conflict], dropped: 3 });
    expect(cut.get('client.v1.errors.conflict-new-key')?.verdict).toBe('inconclusive');
    expect(cut.get('client.v1.errors.conflict-new-key')?.reason).toMatch(/3 later request\(s\) were not kept/);
    const reset = ex({ index: 0, method: 'POST', path: '/v1/execute', headers: keyed('key-aaaaaaaaaaaaaaaa'), body: task(1), status: 200, adversity: RESET });
    expect((await judge({ scenario: 'ambiguous-failure', exchanges: [reset], dropped: 1 })).get('client.v1.errors.ambiguous-reconcile')?.verdict).toBe('inconclusive');
  });
});
