/**
 * Legal choices and honest limits of the load rules (an audit's findings, /tmp/helper-45): each case
 * is a deployment the descriptions allow, as a fake variant, a fake setting, a loopback proxy or a
 * small server, and the verdict the rule owes it. A rule that fails a legal choice, or passes on
 * nothing, is the defect.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { credentialOf, loadConfig } from '../../src/load/config.ts';
import { v1IdempotencyStorm, v8IdempotencyStorm } from '../../src/load/scenarios/idempotency-storm.ts';
import { v8RateLimitStep } from '../../src/load/scenarios/rate-limit.ts';
import { v1EventsFanout, v8StreamFanout } from '../../src/load/scenarios/stream-fanout.ts';
import { cutShort, emptySummary, mergeSummaries, verdictsOf } from '../../src/load/summary.ts';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import type { FakeConfigInput } from '../../src/fake/context.ts';
import type { FaultId } from '../../src/fake/faults/index.ts';
import { startFake } from '../../src/fake/server.ts';
import type { VariantId } from '../../src/fake/variants/index.ts';
import { envFromProfile } from '../../src/load/profile-env.ts';
import { missionScenarios } from '../../scenarios/v8/missions.ts';
import { loopbackProxy } from './loopback-proxy.ts';
import { FetchTransport, newKey, summarise, verdictOf, type Target } from './support.ts';

let target: Target | undefined;
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  await target?.fake.close();
  target = undefined;
});

async function fakeWith(variants: VariantId[] = [], faults: FaultId[] = [], config: FakeConfigInput = {}, env: Record<string, string> = {}): Promise<Target> {
  const fake = await startFake({ variants, faults, config });
  target = { fake, config: loadConfig({ ...envFromProfile(embeddedProfile(fake)), ...env }), transport: new FetchTransport() };
  return target;
}

const v8Storm = (t: Target, baseUrl = t.config.baseUrl) => summarise('v8-idempotency-storm', baseUrl, () => v8IdempotencyStorm(t.transport, { ...t.config, baseUrl, token: credentialOf('v8-idempotency-storm', t.config), storm: 8, key: newKey }), 2);
const v1Storm = (t: Target, baseUrl = t.config.baseUrl) => summarise('v1-idempotency-storm', baseUrl, () => v1IdempotencyStorm(t.transport, { ...t.config, baseUrl, token: credentialOf('v1-idempotency-storm', t.config), storm: 8, key: newKey }), 2);
const passes = (summary: Parameters<typeof verdictOf>[0], rule: string) => expect(verdictOf(summary, rule), rule).toMatchObject({ verdict: 'pass' });

describe('idempotency storms', () => {
  // "Never a pass that judged nothing": one create a window admits, the rest 429, compares no replay.
  it('judge no replay when a low limit admits one request of a storm: inconclusive, even with the race fault on (item 1)', async () => {
    const low: FakeConfigInput = { rateLimits: { v8: { default: { requests: 1, windowSeconds: 60 } }, v1: { default: { requests: 1, windowSeconds: 60 } } } };
    for (const faults of [[], ['load.v8.idempotency.storm-one-mission/race', 'load.v1.idempotency.storm-one-run/race']] as FaultId[][]) {
      const t = await fakeWith([], faults, low);
      const v8 = await v8Storm(t);
      expect(verdictOf(v8, 'load.v8.idempotency.storm-one-mission')).toMatchObject({ verdict: 'inconclusive', reason: expect.stringMatching(/fewer than two same-key same-body requests of a storm were admitted/) });
      expect(v8.rules['load.v8.idempotency.storm-one-mission']).toBeUndefined();
      expect(verdictOf(v8, 'load.v8.idempotency.storm-conflict').reason).toMatch(/every other-body request was refused/);
      const v1 = await v1Storm(t);
      for (const rule of ['load.v1.idempotency.storm-one-run', 'load.v1.idempotency.storm-replayed']) expect(verdictOf(v1, rule), rule).toMatchObject({ verdict: 'inconclusive', reason: expect.stringMatching(/fewer than two same-key/) });
      await t.fake.close();
      target = undefined;
    }
  });

  // "Event kinds beyond … and the payload fields of events: not shown": the kind may be in the data.
  it.each(['v1.runs/kind-in-data-only', 'v1.runs/kind-in-event-type'] as const)('read the admission event wherever it names its kind, as certify does (%s, item 2)', async (variant) => {
    const t = await fakeWith([variant]);
    const summary = await v1Storm(t);
    passes(summary, 'load.v1.idempotency.storm-replayed');
    expect(summary.rules['load.v1.idempotency.storm-replayed']!.passes).toBeGreaterThanOrEqual(4);
    expect(t.fake.context.variants.taken()).toContain(variant);
  });

  // "Mapping of each `code` to an HTTP status: not shown": a 409 to a duplicate still in flight admits nothing.
  it('skip a 409 idempotency_replay to a duplicate still in flight and compare the admitted answers (v1.execute/in-flight-409, item 4)', async () => {
    const t = await fakeWith(['v1.execute/in-flight-409']);
    // Arrivals spread over 140 ms, as a network spreads them: those within the fake's 50 ms in flight get 409, the later ones replays.
    const spread = new FetchTransport();
    const batch = spread.batch.bind(spread);
    spread.batch = (requests) => Promise.all(requests.map((r, i) => new Promise<void>((resolve) => setTimeout(resolve, i * 20)).then(async () => (await batch([r]))[0]!)));
    t.transport = spread;
    const summary = await v1Storm(t);
    expect(summary.rules['load.v1.idempotency.storm-one-run']!.passes).toBeGreaterThan(4);
    for (const rule of ['load.v1.idempotency.storm-one-run', 'load.v1.idempotency.storm-replayed', 'load.v1.idempotency.storm-conflict']) passes(summary, rule);
    expect(summary.rules['load.v1.idempotency.storm-one-run']!.checks['every accepted answer carries run_id']!.passes).toBeGreaterThan(0);
    expect(t.fake.context.variants.taken()).toContain('v1.execute/in-flight-409');
  });

  // Audit 60, finding 2: a storm that admitted one request and refused the rest in flight is judged by the same request sent after it.
  it('judge the in-flight variant by one request sent after a storm that admitted one: pass', async () => {
    const t = await fakeWith(['v1.execute/in-flight-409']);
    const summary = await v1Storm(t);
    expect(summary.figures.v1_storm_refused_in_flight?.count).toBeGreaterThan(0);
    for (const rule of ['load.v1.idempotency.storm-one-run', 'load.v1.idempotency.storm-replayed']) passes(summary, rule);
  });

  it('say that duplicates were refused in flight when the request sent after the storm is refused too', async () => {
    const t = await fakeWith();
    // A deployment that keeps answering 409 (idempotency_replay) to every request of a key after its first.
    const seen = new Set<string>();
    const refused = { status: 409, headers: { 'content-type': 'application/problem+json' }, body: JSON.stringify({ code: 'idempotency_replay', retryable: true }) };
    const proxy = await loopbackProxy(t.config.baseUrl, (req) => {
      const key = req.headers['idempotency-key'];
      if (req.method !== 'POST' || typeof key !== 'string') return undefined;
      if (!seen.has(key)) {
        seen.add(key);
        return undefined;
      }
      return { answer: refused };
    });
    closers.push(proxy.close);
    const summary = await v1Storm(t, proxy.url);
    expect(t.transport.sent.get('storm task same-body POST /v1/execute (after the storm)')).toBe(2);
    for (const rule of ['load.v1.idempotency.storm-one-run', 'load.v1.idempotency.storm-replayed']) {
      expect(verdictOf(summary, rule), rule).toMatchObject({ verdict: 'inconclusive', reason: expect.stringMatching(/refused a storm's same-key duplicates with 409 while the first was in flight.*sent once the storm was over was refused too.*v1\.execute\.idempotency\.replay/) });
    }
  });

  it('still fail a 409 conflict to the same body under the in-flight variant (a conflict is no in-flight answer)', async () => {
    const t = await fakeWith(['v1.execute/in-flight-409']);
    const proxy = await loopbackProxy(t.config.baseUrl, (req) => (req.method === 'POST' && req.headers['idempotency-key'] !== undefined && Math.random() < 0.5 ? { answer: { status: 409, headers: { 'content-type': 'application/problem+json' }, body: JSON.stringify({ code: 'conflict', retryable: false }) } } : undefined));
    closers.push(proxy.close);
    const summary = await v1Storm(t, proxy.url);
    expect(verdictOf(summary, 'load.v1.idempotency.storm-one-run')).toMatchObject({ verdict: 'fail', reason: expect.stringMatching(/answered 200 \(or refused 429\/503, or 409 other than conflict\)/) });
  });

  // "a normalized digest of the request", "extra properties allowed": an unknown member may not be digested.
  it('send another fixture under the used key, not an extra member (v1.execute/digest-known-members, item 5)', async () => {
    const t = await fakeWith(['v1.execute/digest-known-members']);
    const summary = await v1Storm(t);
    passes(summary, 'load.v1.idempotency.storm-conflict');
    expect(summary.rules['load.v1.idempotency.storm-conflict']!.passes).toBeGreaterThanOrEqual(16);
    expect(t.transport.sent.get('storm task other-body POST /v1/execute')).toBe(16);
  });

  it('leave storm-conflict untestable when the other task body is the same request', async () => {
    const t = await fakeWith();
    const same = loadConfig({ ...envFromProfile(embeddedProfile(t.fake)), APICERT_V1_OTHER_TASK_BODY: JSON.stringify(t.config.taskBody) });
    const { untestableRules } = await import('../../src/load/config.ts');
    expect(untestableRules('v1-idempotency-storm', same)['load.v1.idempotency.storm-conflict']).toMatch(/APICERT_V1_OTHER_TASK_BODY/);
  });
});

describe('the /v8 ramp', () => {
  // The Errors table gives 429 "rate limit for the principal" to POST /v8/missions alone.
  it('ramps creates, so a limiter on creates alone is reached (v8.missions/limit-on-creates, item 3)', async () => {
    const t = await fakeWith(['v8.missions/limit-on-creates'], [], { rateLimits: { v8: { default: { requests: 10, windowSeconds: 60 } } } });
    let probes = 0;
    const started = Date.now();
    const step = () => v8RateLimitStep(t.transport, { baseUrl: t.config.baseUrl, token: credentialOf('v8-rate-limit', t.config), otherToken: t.config.v8OtherToken, mayProbeOther: () => ++probes <= 3, missionBody: t.config.missionBody, key: newKey, elapsedMs: () => Date.now() - started, arrivalRate: () => 5 });
    const summary = await summarise('v8-rate-limit', t.config.baseUrl, step, 24, 4);
    for (const rule of ['load.v8.rate-limit.429-problem', 'load.v8.rate-limit.per-principal', 'load.v8.rate-limit.limit-observed']) passes(summary, rule);
    expect(t.transport.sent.get('ramp POST /v8/missions')).toBe(24);
    // While creates are refused, reads are not: a ramp of reads would never have reached the limit.
    const [read] = await t.transport.batch([{ method: 'GET', url: `${t.config.baseUrl}/v8/missions/00000000-0000-7000-8000-000000000000`, headers: { Authorization: `Bearer ${credentialOf('v8-rate-limit', t.config)}` }, name: 'read', expect: [404] }]);
    expect(read!.status).toBe(404);
    expect(t.fake.context.variants.taken()).toContain('v8.missions/limit-on-creates');
  });
});

describe('stream fan-outs', () => {
  // No sentence limits concurrent streams; RFC 9110 §15.6.4: 503 is "temporarily overloaded".
  it('skip readers and resumers refused 503 for overload, as the storms do (item 7)', async () => {
    const t = await fakeWith();
    let open = 0;
    const proxy = await loopbackProxy(t.config.baseUrl, (req) => {
      if (req.method !== 'GET' || !/\/events$/.test(req.url ?? '')) return undefined;
      if (open >= 3) return { answer: { status: 503, headers: { 'content-type': 'application/problem+json', 'retry-after': '1' }, body: '{"status":503}' } };
      open += 1;
      setTimeout(() => (open -= 1), 400);
      return undefined;
    });
    closers.push(proxy.close);
    const v8 = await summarise('v8-stream-fanout', proxy.url, () => v8StreamFanout(t.transport, { ...t.config, baseUrl: proxy.url, token: credentialOf('v8-stream-fanout', t.config), readers: 6, resumers: 2, streamTimeoutMs: 5_000, key: newKey }));
    for (const rule of ['load.v8.events.fanout-same-events', 'load.v8.events.fanout-one-terminal']) passes(v8, rule);
    expect(v8.rules['load.v8.events.fanout-same-events']!.fails).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const v1 = await summarise('v1-events-fanout', proxy.url, () => v1EventsFanout(t.transport, { ...t.config, baseUrl: proxy.url, token: credentialOf('v1-events-fanout', t.config), readers: 6, resumers: 2, streamTimeoutMs: 5_000, key: newKey }));
    passes(v1, 'load.v1.events.fanout-same-events');
  });

  // "The stream closes after a terminal event": a reader that gave up before the mission ended never saw it.
  it('do not call a stream held open when its readers timed out before a slow mission ended (item 8)', async () => {
    // The mission ends once every reader has given up on its stream (not at a time: readers start late on a busy machine).
    const READERS = 5;
    const missions = new Map<string, number>();
    const done = (id: string) => missions.get(id)! >= READERS;
    const server = createServer((req, res) => {
      const m = /^\/v8\/missions(?:\/([^/]+)(\/events)?)?$/.exec(req.url ?? '');
      req.resume();
      if (req.method === 'POST' && m && !m[1]) {
        const id = randomUUID();
        missions.set(id, 0);
        res.writeHead(202, { 'content-type': 'application/json' }).end(JSON.stringify({ runId: id, status: 'running', sequence: 1, steps: [] }));
      } else if (m?.[1] && missions.has(m[1]) && !m[2]) {
        const id = m[1];
        // A reader's abort reaches this server a moment after the reader gave up: the read-back waits for it (bounded).
        const started = Date.now();
        const answer = () => {
          if (!done(id) && Date.now() - started < 3_000) return void setTimeout(answer, 20);
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ runId: id, status: done(id) ? 'succeeded' : 'running', sequence: done(id) ? 3 : 1, steps: [] }));
        };
        answer();
      } else if (m?.[1] && missions.has(m[1])) {
        const id = m[1];
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('id: 1\nevent: mission.started\ndata: {}\n\n');
        if (done(id)) res.end('id: 2\nevent: mission.completed\ndata: {}\n\n');
        else res.on('close', () => missions.set(id, missions.get(id)! + 1));
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    closers.push(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
    const baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const transport = new FetchTransport();
    const summary = await summarise('v8-stream-fanout', baseUrl, () => v8StreamFanout(transport, { baseUrl, token: 'v8at_any', missionBody: missionScenarios.succeeds.request, readers: READERS, resumers: 2, streamTimeoutMs: 1_500, key: newKey }));
    expect(verdictOf(summary, 'load.v8.events.fanout-one-terminal').verdict).not.toBe('fail');
    expect(summary.figures.v8_fanout_readers_timed_out).toMatchObject({ min: READERS });
    expect(transport.sent.get('fanout recheck GET /v8/missions/{runId}/events')).toBe(1);
  });

  // "The stream closes after a terminal event" (not only then); "The stream is resumable within a bounded replay window".
  it('resume a stream the server closed before the terminal event and judge the joined stream (v8.missions/stream-duration-cap, item 9)', async () => {
    const t = await fakeWith(['v8.missions/stream-duration-cap'], [], {}, { APICERT_MISSION_BODY: JSON.stringify(missionScenarios.cancellable.request) });
    const summary = await summarise('v8-stream-fanout', t.config.baseUrl, () => v8StreamFanout(t.transport, { ...t.config, token: credentialOf('v8-stream-fanout', t.config), readers: 5, resumers: 3, streamTimeoutMs: 10_000, key: newKey }));
    for (const rule of ['load.v8.events.fanout-same-events', 'load.v8.events.fanout-one-terminal', 'load.v8.events.fanout-resume', 'load.v8.events.fanout-after-terminal']) passes(summary, rule);
    expect(t.transport.sent.get('fanout rejoin GET /v8/missions/{runId}/events')).toBeGreaterThanOrEqual(3);
    expect(t.fake.context.variants.taken()).toContain('v8.missions/stream-duration-cap');
  }, 30_000);

  // "A `Last-Event-ID` outside the window gives `409`"; "Size or duration of the replay window: not shown."
  it('say that every resume met a replay window that held none of the cursors (v8.missions/replay-window-one)', async () => {
    const t = await fakeWith(['v8.missions/replay-window-one']);
    const summary = await summarise('v8-stream-fanout', t.config.baseUrl, () => v8StreamFanout(t.transport, { ...t.config, token: credentialOf('v8-stream-fanout', t.config), readers: 4, resumers: 3, streamTimeoutMs: 5_000, key: newKey }), 2);
    for (const rule of ['load.v8.events.fanout-same-events', 'load.v8.events.fanout-one-terminal', 'load.v8.events.fanout-after-terminal']) passes(summary, rule);
    const resume = verdictOf(summary, 'load.v8.events.fanout-resume');
    expect(resume.verdict).toBe('inconclusive');
    expect(resume.reason).toMatch(/^not judged: the resumes with Last-Event-ID were answered 409 \(6 of them, in 2 iterations\)/);
    expect(resume.reason).toContain('"Size or duration of the replay window: not shown."');
    expect(resume.reason).toContain("certify's v8.missions.events.resume");
    expect(t.fake.context.variants.taken()).toContain('v8.missions/replay-window-one');
  });

  it('still fail a stream that ends without its terminal event after the mission ended', async () => {
    const t = await fakeWith();
    // Every stream of the ended mission is cut before its terminal event: what a server that loses it does.
    const proxy = await loopbackProxy(t.config.baseUrl, () => undefined);
    closers.push(proxy.close);
    const { parseEventStreamText } = await import('../../src/sse/text.ts');
    const cutting = new FetchTransport();
    const batch = cutting.batch.bind(cutting);
    cutting.batch = async (requests) =>
      (await batch(requests)).map((res, i) => {
        if (!requests[i]!.url.endsWith('/events') || res.status !== 200) return res;
        const kept = parseEventStreamText(res.body).events.filter((e) => !/^mission\.(completed|failed|cancelled)$/.test(e.event ?? ''));
        return { ...res, body: kept.map((e) => `id: ${e.id}\nevent: ${e.event}\ndata: ${e.data}\n\n`).join('') };
      });
    const summary = await summarise('v8-stream-fanout', t.config.baseUrl, () => v8StreamFanout(cutting, { ...t.config, token: credentialOf('v8-stream-fanout', t.config), readers: 4, resumers: 1, streamTimeoutMs: 5_000, key: newKey }));
    expect(verdictOf(summary, 'load.v8.events.fanout-one-terminal')).toMatchObject({ verdict: 'fail', reason: expect.stringMatching(/ended without one after the mission read back terminal/) });
  });

  // k6 hands over a body only when the request ends; nothing asks GET /v1/runs/{id}/events to close.
  it('say why a /v1 run stream held open leaves nothing judged (item 10)', async () => {
    const t = await fakeWith();
    const proxy = await loopbackProxy(t.config.baseUrl, (req) => (req.method === 'GET' && /^\/v1\/runs\/[^/]+\/events$/.test(req.url ?? '') ? { holdOpen: true } : undefined));
    closers.push(proxy.close);
    const summary = await summarise('v1-events-fanout', proxy.url, () => v1EventsFanout(t.transport, { ...t.config, baseUrl: proxy.url, token: credentialOf('v1-events-fanout', t.config), readers: 3, resumers: 1, streamTimeoutMs: 1_000, key: newKey }));
    for (const rule of ['load.v1.events.fanout-same-events', 'load.v1.events.fanout-resume']) {
      expect(verdictOf(summary, rule), rule).toMatchObject({ verdict: 'inconclusive', reason: expect.stringMatching(/streams did not close within APICERT_STREAM_TIMEOUT, and no sentence asks them to/) });
    }
  });
});

describe('a run cut short (item 6)', () => {
  const whole = () => ({ ...emptySummary('v8-idempotency-storm', 'http://t'), iterations: { judged: 2, unjudged: 0 }, plannedIterations: 3, rules: { 'load.v8.idempotency.storm-one-mission': { passes: 4, fails: 0, checks: {} } } });

  it('turns passes into inconclusive when k6 was stopped or ran fewer iterations than planned', () => {
    const summary = whole();
    expect(cutShort(summary)).toBe('the run was cut short: 2 of 3 iterations ran (APICERT_MAX_DURATION ended the scenario first)');
    expect(cutShort(summary, 'k6 ran past 120 s and was stopped')).toBe('the run was cut short: k6 ran past 120 s and was stopped after 2 of 3 iterations');
    expect(verdictsOf(summary, cutShort(summary)).find((r) => r.id === 'load.v8.idempotency.storm-one-mission')).toMatchObject({ verdict: 'inconclusive' });
    expect(cutShort({ ...summary, plannedIterations: 2 })).toBeUndefined();
  });

  it('and a merge of segments that cover the run but ran fewer iterations says so too', () => {
    const a = { ...whole(), segments: ['0:1/2'], iterations: { judged: 1, unjudged: 0 } };
    const b = { ...whole(), segments: ['1/2:1'], iterations: { judged: 1, unjudged: 0 } };
    expect(mergeSummaries([a, b]).missing).toMatch(/2 of 3 iterations ran/);
    expect(mergeSummaries([a, { ...b, iterations: { judged: 2, unjudged: 0 } }]).missing).toBeUndefined();
  });
});
