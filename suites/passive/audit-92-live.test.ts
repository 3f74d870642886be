/**
 * The proxy's live findings against its report on the same traffic (audit 92, D2 and D5), with the
 * live judge fed as the judging thread is, one batch per exchange (a client at human pace):
 * - D2: a failure a later exchange decides, on an earlier exchange of another batch, is said live
 *   once, naming that earlier exchange as the report does (a replayed signal the read after it
 *   decides, a terminal delivery a later higher sequence decides, an answer echoing a key accepted
 *   only later); a failure the history's own start causes (a conflict whose first use left the
 *   window) is not.
 * - D5: a rule whose failure a later exchange may excuse (DECIDED_AT_THE_STOP) is never said live:
 *   a trace read 404 past the index bound, then 200, passes in the report and says nothing live.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { startFake } from '../../src/fake/server.ts';
import type { TrafficExchange } from '../../src/passive/exchange.ts';
import { judgeRecording } from '../../src/passive/judge.ts';
import { DECIDED_AT_THE_STOP, HISTORY, LiveJudge, type LiveFinding } from '../../src/passive/live.ts';
import { exchangeOfBytes, startProxy } from '../../src/passive/proxy.ts';
import { keyedLabels } from '../../src/passive/secrets.ts';
import type { Profile } from '../../src/profile/schema.ts';
import { RULES } from '../../src/registry.ts';
import type { Exchange } from '../../src/rule/index.ts';

const LABEL_KEY = 'a92'.repeat(20);

/** The live judge over `exchanges`, `per` exchanges to a batch (1: each its own batch). */
function live(exchanges: readonly Exchange[], patterns: readonly string[], per: number, profile?: Profile): LiveFinding[] {
  const found: LiveFinding[] = [];
  const judge = new LiveJudge({ rules: RULES.filter((r) => patterns.some((p) => r.id === p)), ...(profile ? { profile } : {}), webhookSecretVariable: 'APICERT_WEBHOOK_SECRET', labelKey: LABEL_KEY, onFinding: (f) => found.push(f) });
  exchanges.forEach((ex, i) => {
    judge.add(ex);
    if ((i + 1) % per === 0) judge.flush();
  });
  judge.flush();
  return found;
}

/** The report's failing cases of `rule`: the exchange each names. */
async function reportFails(exchanges: readonly TrafficExchange[], rule: string, profile?: Profile): Promise<{ verdict: string; indices: number[] }> {
  const report = await judgeRecording(exchanges, { patterns: [rule], labels: keyedLabels(LABEL_KEY), env: {}, ...(profile ? { profile } : {}) });
  const result = report.results.find((r) => r.rule.id === rule)!;
  const indices = result.verdict === 'fail' ? [...(result.reason ?? '').matchAll(/recorded exchange #(\d+)/g)].map((m) => Number(m[1])) : [];
  return { verdict: result.verdict, indices };
}

/** Records what `client` sends through a proxy in front of the fake (with `faults`). */
async function recorded(faults: string[], client: (url: string, profile: Profile) => Promise<void>): Promise<{ exchanges: TrafficExchange[]; profile: Profile }> {
  const fake = await startFake({ faults: faults as never });
  const profile = embeddedProfile(fake);
  const done: TrafficExchange[] = [];
  const proxy = await startProxy({ upstream: fake.baseUrl, bodyLimit: 256 * 1024, maxExchanges: 1000, onExchange: (rec, index) => done.push(exchangeOfBytes(rec, index, 256 * 1024)) });
  try {
    await client(proxy.url, profile);
  } finally {
    await proxy.close();
    await fake.close();
  }
  return { exchanges: done.sort((a, b) => a.index - b.index), profile };
}

function sent(index: number, method: string, path: string, status: number, requestHeaders: Record<string, string>, requestBody?: string, responseBody = '{}'): TrafficExchange {
  return {
    index,
    method,
    url: `http://127.0.0.1:1${path}`,
    path,
    requestHeaders,
    ...(requestBody !== undefined ? { requestBody } : {}),
    status,
    responseHeaders: { 'content-type': status >= 400 ? 'application/problem+json' : 'application/json' },
    responseBody,
  };
}

describe('live findings a later exchange decides (audit 92 D2)', () => {
  it('says a replayed signal refused 409 once the read after it arrives, naming the replay as the report does', async () => {
    const { exchanges, profile } = await recorded(['v8.missions.signals.replay/replay-409'], async (url, p) => {
      const token = p.credentials.find((c) => c.name === 'full')!.token;
      const headers = (key?: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) });
      const go = async (method: string, path: string, body?: unknown, key?: string) => (await fetch(new URL(path, url), { method, headers: headers(key), ...(body !== undefined ? { body: JSON.stringify(body) } : {}) })).text();
      const { runId } = JSON.parse(await go('POST', '/v8/missions', p.fixtures.v8.missions.waits, 'a92-live-create-0001')) as { runId: string };
      const signal = { signal: 'apicert.approve', payload: { ok: true } };
      await go('POST', `/v8/missions/${runId}/signals`, signal, 'a92-live-signal-0001');
      await go('POST', `/v8/missions/${runId}/signals`, signal, 'a92-live-signal-0001');
      // As the rule's provocation does: the 409 fails only against a read that surely began after the replay ended (a
      // clock grain apart); sent at once, on a busy machine (CI of e4c1fe2) it did not, and the rule judged nothing.
      await new Promise((resolve) => setTimeout(resolve, 20));
      await go('GET', `/v8/missions/${runId}`);
    });
    const rule = 'v8.missions.signals.replay';
    const report = await reportFails(exchanges, rule, profile);
    expect(report.verdict).toBe('fail');
    const said = live(exchanges, [rule], 1, profile);
    // Old code: nothing was said (the replay's batch had no read after it; the read's batch said only the read's own cases).
    expect(said.map((f) => f.exchange.index)).toEqual(report.indices);
    expect(said).toHaveLength(1);
    // Batching changes no finding: one batch of everything says the same.
    expect(live(exchanges, [rule], exchanges.length, profile).map((f) => [f.exchange.index, f.reason])).toEqual(said.map((f) => [f.exchange.index, f.reason]));
  }, 60_000);

  it('says a terminal delivery below a sequence delivered in a later batch, on the terminal delivery', async () => {
    const secret = 'whsec_a92-live-endpoint-secret-0001';
    const delivery = (index: number, type: string, sequence: number) => {
      const id = `evt_a92live${index}`;
      const ts = '1798000000';
      const body = JSON.stringify({ event_id: id, type, apiVersion: 'v1', run_id: 'run_a92live', sequence });
      const signature = `v1=${createHmac('sha256', secret).update(`${id}.${ts}.${body}`).digest('hex')}`;
      return { ...sent(index, 'POST', '/hooks/apicert', 200, { 'content-type': 'application/json', 'service-webhook-id': id, 'service-webhook-timestamp': ts, 'service-webhook-signature': signature }, body, ''), responseHeaders: {} };
    };
    const exchanges = [delivery(0, 'run.started', 1), delivery(1, 'run.completed', 2), delivery(2, 'run.progress', 5)];
    const rule = 'v1.webhooks.delivery.sequence-order';
    const report = await reportFails(exchanges, rule);
    expect(report).toEqual({ verdict: 'fail', indices: [1] });
    // Old code: nothing (the terminal delivery's batch saw no higher sequence).
    const said = live(exchanges, [rule], 1);
    expect(said.map((f) => [f.rule, f.exchange.index, f.exchange.method, f.exchange.path])).toEqual([[rule, 1, 'POST', '/hooks/apicert']]);
    expect(said[0]!.reason).toContain('below the run\'s highest 5');
  });

  it('says an answer that echoed a key once a later answer shows the key a credential, hidden as the report hides it', async () => {
    const key = 'service_sk_a92live0123456789abcdefABCDEF';
    const auth = { authorization: `Bearer ${key}` };
    const exchanges = [
      sent(0, 'GET', '/v1/runs/bad', 400, auth, undefined, JSON.stringify({ type: 'about:blank', title: 'Bad Request', status: 400, detail: `request from ${key} is malformed`, code: 'invalid_request' })),
      sent(1, 'GET', '/v1/runs/good', 200, auth, undefined, '{"ok":true}'),
    ];
    const rule = 'v1.auth.run-secrets';
    const report = await reportFails(exchanges, rule);
    expect(report).toEqual({ verdict: 'fail', indices: [0] });
    // Old code: nothing (the key was judged a secret only in #1's batch, and #0 was not in it).
    const said = live(exchanges, [rule], 1);
    expect(said.map((f) => [f.rule, f.exchange.index])).toEqual([[rule, 0]]);
    expect(JSON.stringify(said)).not.toContain(key);
    // A later batch judging #0 again (its failure still in the window) says nothing more.
    const more = [...exchanges, ...Array.from({ length: 5 }, (_, i) => sent(2 + i, 'GET', '/v1/runs/good', 200, auth, undefined, '{"ok":true}'))];
    expect(live(more, [rule], 1).map((f) => f.exchange.index)).toEqual([0]);
  });

  it('says nothing of a conflict whose first use left the window: the history alone fails it too', async () => {
    const fake = await startFake();
    const profile = embeddedProfile(fake);
    await fake.close();
    const token = profile.credentials.find((c) => c.name === 'v1-full')!.token;
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const task = (fixture: 'completes' | 'fails') => JSON.stringify(profile.fixtures.v1.tasks[fixture]);
    const key = { 'idempotency-key': 'apicert-a92-live-0001' };
    const conflict = JSON.stringify({ type: 'about:blank', title: 'conflict', status: 409, code: 'idempotency_conflict' });
    const reads = (from: number, n: number) => Array.from({ length: n }, (_, i) => sent(from + i, 'GET', '/v1/runs/run-1', 200, { authorization: `Bearer ${token}` }, undefined, '{"run_id":"run-1"}'));
    const first = [sent(0, 'POST', '/v1/execute', 200, { ...auth, ...key }, task('completes'), '{"run_id":"run-1"}'), sent(1, 'POST', '/v1/execute', 409, { ...auth, ...key }, task('fails'), conflict)];
    const rule = 'v1.execute.task.run-id';
    const found: LiveFinding[] = [];
    const judge = new LiveJudge({ rules: RULES.filter((r) => r.id === rule), profile, webhookSecretVariable: 'APICERT_WEBHOOK_SECRET', onFinding: (f) => found.push(f) });
    const batch = (exchanges: readonly Exchange[]) => {
      for (const ex of exchanges) judge.add(ex);
      judge.flush();
    };
    batch(first);
    batch(reads(2, HISTORY / 2));
    // The first use leaves the window; the conflict is now the history's first exchange.
    batch(reads(2 + HISTORY / 2, HISTORY / 2 - 1));
    batch(reads(1 + HISTORY, 3));
    expect(judge.cases).toBeGreaterThan(0);
    expect(found).toEqual([]);
  });
});

describe('rules a later exchange may excuse are left to the report (audit 92 D5)', () => {
  it('says nothing of a trace read 404 past the index bound that a later read finds, which the report passes', async () => {
    const { exchanges, profile } = await recorded([], async (url, p) => {
      const token = p.credentials.find((c) => c.name === 'full')!.token;
      const h = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const created = (await (await fetch(new URL('/v8/missions', url), { method: 'POST', headers: { ...h, 'idempotency-key': 'a92-live-trace-0001' }, body: JSON.stringify(p.fixtures.v8.missions.succeeds) })).json()) as { runId: string };
      const events = await (await fetch(new URL(`/v8/missions/${created.runId}/events`, url), { headers: { ...h, accept: 'text/event-stream' } })).text();
      const traceId = /"traceId":"([^"]+)"/.exec(events)![1]!;
      await (await fetch(new URL(`/v8/traces/${encodeURIComponent(traceId)}`, url), { headers: h })).text();
    });
    // The trace store lagged (legal: no sentence says when a trace becomes readable): a first read 6 s
    // after the step event answered 404, the read 20 s after it 200.
    const stream = exchanges.find((ex) => ex.path.endsWith('/events'))!;
    const read = exchanges.find((ex) => ex.path.startsWith('/v8/traces/'))!;
    expect(read.status).toBe(200);
    const after = (ms: number) => new Date(Date.parse(stream.startedAt!) + (stream.durationMs ?? 0) + ms).toISOString();
    const notYet: TrafficExchange = {
      ...read,
      index: read.index,
      startedAt: after(6000),
      status: 404,
      responseHeaders: { ...read.responseHeaders, 'content-type': 'application/problem+json' },
      responseBody: JSON.stringify({ type: 'about:blank', title: 'Not Found', status: 404, code: 'not_found' }),
    };
    const traffic = [...exchanges.filter((ex) => ex !== read), notYet, { ...read, index: read.index + 1, startedAt: after(20_000) }];
    const rule = 'v8.traces.get.resolves';
    expect(DECIDED_AT_THE_STOP.has(rule)).toBe(true);
    expect((await reportFails(traffic, rule, profile)).verdict).toBe('pass');
    // Old code: FAIL v8.traces.get.resolves on the 404 read, judged before the read that found the trace.
    expect(live(traffic, [rule], 1, profile)).toEqual([]);
    // The report still fails a trace no read ever found.
    expect((await reportFails(traffic.slice(0, -1), rule, profile)).verdict).toBe('fail');
  }, 60_000);
});
