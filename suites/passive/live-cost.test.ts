/**
 * Live judging costs per exchange, not per window: a batch re-reads the history before it only when
 * it is at least as large (or when its oldest exchange waited WAIT_MS, at most once per WAIT_MS), and
 * batching changes no finding. Asserted on the judge's own counts, never on which timer fires first.
 */
import { describe, expect, it } from 'vitest';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { startFake } from '../../src/fake/server.ts';
import { HISTORY, LiveJudge, MAX_PENDING, WAIT_MS, type LiveFinding } from '../../src/passive/live.ts';
import type { TrafficExchange } from '../../src/passive/exchange.ts';
import { exchangeOfBytes, startProxy } from '../../src/passive/proxy.ts';
import type { Exchange } from '../../src/rule/index.ts';
import { RULES } from '../../src/registry.ts';

const MISSING = '/v8/missions/00000000-0000-7000-8000-000000000000';
const REQUESTS = 700;

const key = (f: LiveFinding) => `${f.rule} #${f.exchange.index}: ${f.reason}`;

describe('live judging cost', () => {
  it('reads each exchange about twice, whatever the batches, and finds what one batch of everything finds', async () => {
    const fake = await startFake({ faults: ['v8.contract.version-header/missing-on-errors'] });
    const profile = embeddedProfile(fake);
    const found: LiveFinding[] = [];
    const seen: Exchange[] = [];
    const live = new LiveJudge({ rules: RULES, profile, webhookSecretVariable: 'APICERT_WEBHOOK_SECRET', onFinding: (f) => found.push(f) });
    const proxy = await startProxy({
      upstream: fake.baseUrl,
      bodyLimit: 64 * 1024,
      maxExchanges: 1000,
      onExchange: (rec, index) => {
        const ex = exchangeOfBytes(rec, index, 64 * 1024);
        seen.push(ex);
        live.add(ex);
      },
    });
    const started = performance.now();
    try {
      const token = profile.credentials.find((c) => c.surfaces.includes('v8') && !c.expired)!.token;
      for (let i = 0; i < REQUESTS; i++) await (await fetch(new URL(MISSING, proxy.url), { headers: { authorization: `Bearer ${token}` } })).text();
      const deadline = Date.now() + 30_000;
      while (seen.length < REQUESTS && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(seen).toHaveLength(REQUESTS);
      live.flush();
    } finally {
      await proxy.close();
      await fake.close();
    }
    const elapsed = performance.now() - started;
    // Each 404 without the version header is said once, for its own exchange.
    const version = found.filter((f) => f.rule === 'v8.contract.version-header');
    expect(new Set(version.map((f) => f.exchange.index)).size).toBe(REQUESTS);
    expect(version).toHaveLength(REQUESTS);
    // Only a batch smaller than its history reads more history than new exchanges; those come at most once per WAIT_MS (and the final flush).
    expect(live.smallBatches).toBeLessThanOrEqual(2 + Math.floor(elapsed / WAIT_MS));
    expect(live.read).toBeLessThanOrEqual(2 * REQUESTS + HISTORY * live.smallBatches);

    // The same exchanges judged in one batch: the same findings.
    const once: LiveFinding[] = [];
    const all = new LiveJudge({ rules: RULES, profile, webhookSecretVariable: 'APICERT_WEBHOOK_SECRET', onFinding: (f) => once.push(f) });
    for (const ex of seen) all.add(ex);
    all.flush();
    expect(found.map(key).sort()).toEqual(once.map(key).sort());
    expect(all.read).toBe(REQUESTS);
  }, 60_000);

  it('keeps what traffic outran it with as history, and says nothing just after a gap: a conflict whose first use it never judged is no finding', async () => {
    const fake = await startFake();
    const profile = embeddedProfile(fake);
    await fake.close();
    const token = profile.credentials.find((c) => c.name === 'v1-full')!.token;
    const sent = (index: number, method: string, path: string, status: number, body?: string, answer = '{}', headers: Record<string, string> = {}): TrafficExchange => ({
      index,
      method,
      url: `http://127.0.0.1:1${path}`,
      path,
      requestHeaders: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(body !== undefined ? { requestBody: body } : {}),
      status,
      responseHeaders: { 'content-type': status === 409 ? 'application/problem+json' : 'application/json' },
      responseBody: answer,
    });
    // The profile's task fixtures: the work this deployment says it takes (any other task may be refused).
    const tasks = profile.fixtures.v1.tasks;
    const task = (fixture: 'completes' | 'fails' | 'parks' | 'long') => JSON.stringify(tasks[fixture]);
    const key = { 'idempotency-key': 'apicert-live-history-0001' };
    const exchanges = [
      sent(0, 'POST', '/v1/execute', 200, task('completes'), '{"run_id":"run-1"}', key),
      ...Array.from({ length: MAX_PENDING }, (_, i) => sent(i + 1, 'GET', '/v1/runs/run-1', 200, undefined, '{"run_id":"run-1"}')),
      // The same key with another body: a conflict, answered 409 (the idempotency rules judge it, not this one).
      sent(MAX_PENDING + 1, 'POST', '/v1/execute', 409, task('fails'), JSON.stringify({ type: 'about:blank', title: 'conflict', status: 409, code: 'idempotency_conflict' }), key),
      // A first use in the batch: judged live, and passing.
      sent(MAX_PENDING + 2, 'POST', '/v1/execute', 200, task('parks'), '{"run_id":"run-3"}', { 'idempotency-key': 'apicert-live-history-0003' }),
    ];
    const found: LiveFinding[] = [];
    const live = new LiveJudge({ rules: RULES.filter((r) => r.id === 'v1.execute.task.run-id'), profile, webhookSecretVariable: 'APICERT_WEBHOOK_SECRET', onFinding: (f) => found.push(f) });
    for (const ex of exchanges) live.add(ex);
    live.flush();
    // The first requests waited past MAX_PENDING: not judged live, but the conflict's batch still sees them.
    expect(live.skipped).toBe(exchanges.length - MAX_PENDING);
    expect(found).toEqual([]);
    expect(live.cases).toBeGreaterThan(0);

    // Exchanges the forwarding thread never handed over (a gap): the conflict after it is not said, a failure HISTORY exchanges later is.
    const after: LiveFinding[] = [];
    const gapped = new LiveJudge({ rules: RULES.filter((r) => r.id === 'v1.execute.task.run-id'), profile, webhookSecretVariable: 'APICERT_WEBHOOK_SECRET', onFinding: (f) => after.push(f) });
    gapped.gap(1);
    gapped.add(exchanges.at(-2)!);
    for (let i = 0; i < HISTORY; i++) gapped.add(sent(MAX_PENDING + 3 + i, 'GET', '/v1/runs/run-1', 200, undefined, '{"run_id":"run-1"}'));
    gapped.add(sent(MAX_PENDING + 3 + HISTORY, 'POST', '/v1/execute', 500, task('long'), '{}', { 'idempotency-key': 'apicert-live-history-0004' }));
    gapped.flush();
    expect(after.map((f) => [f.exchange.index, f.reason])).toEqual([[MAX_PENDING + 3 + HISTORY, 'a valid task request answered 500, expected 200']]);
    expect(gapped.skipped).toBe(HISTORY);
  });
});
