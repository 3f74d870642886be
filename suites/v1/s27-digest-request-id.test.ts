/**
 * Audit s27 /v1 (Koa) F2: "`Idempotency-Key` is scoped to ... a normalized digest of the request" does
 * not show what the normalization leaves out, and a turn's requestId names the request rather than
 * saying what it asks. v1.execute.idempotency.body-key's "another body" changed the requestId alone, so
 * a deployment whose digest leaves it out (it replays such a turn) was failed. The other body now asks
 * for something else, and no idempotency judgement takes two bodies differing in requestId alone for
 * two requests (variant v1.execute/digest-without-request-id).
 */
import { describe, expect, it } from 'vitest';
import { minimalTurn } from '../../scenarios/v1/turns.ts';
import { certify } from '../../src/runner/certify.ts';
import { v1Recording } from '../passive/v1-recording.ts';

const VARIANT = 'v1.execute/digest-without-request-id';
const RULES = ['v1.execute.idempotency.body-key', 'v1.execute.idempotency.conflict', 'v1.execute.idempotency.replay'];

describe(`the idempotency rules under ${VARIANT}`, () => {
  it('pass, in certify', async () => {
    const { results } = await certify({ variants: [VARIANT], patterns: RULES, seed: 9 });
    expect(results).toHaveLength(RULES.length);
    for (const r of results) expect(r.verdict, `${r.rule.id}: ${r.reason}`).toBe('pass');
  }, 60_000);

  it("body-key still fails a deployment that replays another message under a turn's body key", async () => {
    const { results } = await certify({ faults: ['v1.execute.idempotency.body-key/conflict-replays'], patterns: ['v1.execute.idempotency.body-key'], seed: 9 });
    expect(results[0]!.verdict, results[0]!.reason).toBe('fail');
  }, 60_000);
});

describe('a recorded turn replayed under its Idempotency-Key with another requestId', () => {
  const TOKEN = 'service_sk_digestrequestid0123456789abcdef';
  const { journal, verdicts } = v1Recording('https://fabric.example.com', TOKEN, {});
  const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'idempotency-key': 'apicert-turn-key-0001', accept: 'text/event-stream' };
  const stream = (replayed: boolean) => `id: 1\nevent: request.accepted\ndata: ${JSON.stringify({ type: 'request.accepted', sequence: 1, replayed })}\n\nid: 2\nevent: run.completed\ndata: ${JSON.stringify({ type: 'run.completed', sequence: 2 })}\n\n`;
  const turn = (requestId: string, text = 'Reply with one short sentence.') => JSON.stringify({ ...minimalTurn, requestId, messages: [{ id: 'msg-1', role: 'user', parts: [{ type: 'text', text }] }] });
  const sent = (body: string, replayed: boolean) => ({ method: 'POST', path: '/v1/execute', credential: 'full', requestHeaders: headers, requestBody: body, status: 200, responseHeaders: { 'content-type': 'text/event-stream' }, responseBody: stream(replayed), streamEnd: 'server' as const });

  it('is no conflict to judge when only its requestId differs: a digest may leave it out', async () => {
    const got = await verdicts(journal([sent(turn('req-1'), false), sent(turn('req-2'), true)]), ['v1.execute.idempotency.conflict']);
    expect(got['v1.execute.idempotency.conflict']).toBe('not-applicable');
  });

  it('is a conflict when it asks for something else', async () => {
    const got = await verdicts(journal([sent(turn('req-1'), false), sent(turn('req-1', 'Say something else.'), true)]), ['v1.execute.idempotency.conflict']);
    expect(got['v1.execute.idempotency.conflict']).toBe('fail');
  });
});
