/**
 * /v1's limiter met by a setup step: "Over the rate limit: HTTP `429`" and "`429` and `503` are safe
 * to retry with the same idempotency key, because nothing was accepted". Its numbers are not shown,
 * so a tight limit may refuse a fixture run, the original of a replay pair, or a registration: the
 * setup is sent again once after the wait the refusal asks for, and, refused again, the rule is
 * inconclusive naming the limiter (it said "setup failed: ... answered 429" before).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { startFake, type RunningFake } from '../../src/fake/server.ts';
import { certify } from '../../src/runner/certify.ts';
import { modelProxy, type ModelProxy } from '../harness/model-proxy.ts';

let running: Array<RunningFake | ModelProxy> = [];
afterEach(async () => {
  await Promise.all(running.map((r) => r.close()));
  running = [];
});

const LIMITED = { status: 429, headers: { 'retry-after': '0' }, json: { code: 'rate_limited', message: 'slow down', retryable: true } };

describe('a /v1 setup request the limiter refuses twice', () => {
  it('leaves its rule inconclusive naming the limiter, and sends the setup again once after the wait', { timeout: 120_000 }, async () => {
    const fake = await startFake();
    // Every task-mode execute is refused: the scope and normalization pairs' originals, the dropped-connection rule's "long" run.
    const proxy = await modelProxy(fake.baseUrl, (req) => (req.method === 'POST' && req.path === '/v1/execute' && req.body.toString().includes('"task"') ? { answer: LIMITED } : undefined));
    running.push(proxy, fake);
    const rules = ['v1.execute.idempotency.scope', 'v1.execute.idempotency.normalized', 'v1.runs.events.dropped-connection'];
    const { results } = await certify({ profile: { ...embeddedProfile(fake), target: proxy.url }, patterns: rules, seed: 7 });
    for (const r of results) {
      expect([r.rule.id, r.verdict]).toEqual([r.rule.id, 'inconclusive']);
      expect(r.reason).toMatch(/was answered 429, then 429 after the wait it asked for: the rate limiter refused it/);
      expect(r.reason).not.toMatch(/setup failed/);
    }
    expect(proxy.answered.get(429)).toBeGreaterThanOrEqual(2 * rules.length);
  });
});
