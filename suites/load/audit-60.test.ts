/**
 * Audit 60 of the load scripts: each finding's fix, shown where a test can show it (the real-k6
 * runs of findings 2-4 are in the lead's report: `apicert load` on k6 v0.48.0 and v1.3.0).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/load/config.ts';
import { envFromProfile } from '../../src/load/profile-env.ts';
import { v1IdempotencyStorm, v8IdempotencyStorm } from '../../src/load/scenarios/idempotency-storm.ts';
import { emptySummary, record, verdictsOf } from '../../src/load/summary.ts';
import type { LoadRequest, LoadResponse, Transport } from '../../src/load/transport.ts';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import type { FaultId } from '../../src/fake/faults/index.ts';
import { startFake, type RunningFake } from '../../src/fake/server.ts';
import type { VariantId } from '../../src/fake/variants/index.ts';
import { overMemory, runK6 } from '../../src/cli/load.ts';
import { textSummary } from '../../load/lib/text-summary.ts';
import { FetchTransport, newKey, summarise, verdictOf } from './support.ts';

let fake: RunningFake | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/** A /v8 target that admits the first create of a key and refuses the duplicates met meanwhile with 409; the create sent after the storm gets `after`. */
class InFlight409 implements Transport {
  private readonly after: string;
  constructor(after = 'm-1') {
    this.after = after;
  }
  batch(requests: readonly LoadRequest[]): Promise<LoadResponse[]> {
    return Promise.resolve(
      requests.map((r, i): LoadResponse =>
        r.name.includes('other-body') || i > 0
          ? { status: 409, headers: { 'content-type': 'application/problem+json', 'retry-after': '1' }, body: JSON.stringify({ type: 'about:blank', title: 'In progress', status: 409, code: 'idempotency_in_progress' }) }
          : { status: 202, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ runId: r.name.includes('after the storm') ? this.after : 'm-1', status: 'pending' }) },
      ),
    );
  }
  sleep(): Promise<void> {
    return Promise.resolve();
  }
}

// Helper 101 reverses finding 1: "Replay with the same key and the same body returns the original response" speaks of an
// original that was answered, and says nothing of a duplicate met while it is in flight; /v8 now reads it as /v1 does.
describe('finding 1, reversed: a /v8 duplicate refused 409 in flight admits nothing', () => {
  const storm = (transport: Transport) => summarise('v8-idempotency-storm', 'http://127.0.0.1:1', () => v8IdempotencyStorm(transport, { baseUrl: 'http://127.0.0.1:1', token: 't', storm: 5, key: newKey, missionBody: {} }));

  it('passes, judging the create sent once the storm is over, and counts the refusals', async () => {
    const summary = await storm(new InFlight409());
    expect(verdictOf(summary, 'load.v8.idempotency.storm-one-mission').verdict).toBe('pass');
    expect(summary.figures.v8_storm_refused_in_flight!.count).toBe(4);
  });

  it('fails when the create sent after the storm starts another mission', async () => {
    const verdict = verdictOf(await storm(new InFlight409('m-2')), 'load.v8.idempotency.storm-one-mission');
    expect(verdict.verdict).toBe('fail');
    expect(verdict.reason).toContain('a replay answers the original status and body');
  });
});

async function v1Storm(variants: VariantId[], faults: FaultId[] = []) {
  fake = await startFake({ variants, faults });
  const config = loadConfig(envFromProfile(embeddedProfile(fake)));
  const transport = new FetchTransport();
  const summary = await summarise('v1-idempotency-storm', config.baseUrl, () => v1IdempotencyStorm(transport, { ...config, token: config.v1Key!, storm: 6, key: newKey }), 2);
  return { summary, transport };
}

/** A /v1 target that admits the first request of a storm and refuses the rest 409 idempotency_replay; what it answers afterwards replays it or not. */
class V1InFlight409 implements Transport {
  after = 0;
  private runs = 0;
  private readonly replays: boolean;
  constructor(replays: boolean) {
    this.replays = replays;
  }
  batch(requests: readonly LoadRequest[]): Promise<LoadResponse[]> {
    return Promise.resolve(requests.map((r, i) => this.answer(r, i)));
  }
  private answer(r: LoadRequest, i: number): LoadResponse {
    const problem = (code: string): LoadResponse => ({ status: 409, headers: { 'content-type': 'application/problem+json' }, body: JSON.stringify({ code, retryable: code !== 'conflict' }) });
    if (r.name.includes('other-body')) return problem('conflict');
    const after = r.name.includes('after the storm');
    if (after) this.after += 1;
    if (!after && i > 0) return problem('idempotency_replay');
    if (r.headers.Accept === 'text/event-stream') {
      const replayed = after && this.replays;
      return { status: 200, headers: { 'content-type': 'text/event-stream' }, body: `id: 1\nevent: request.accepted\ndata: ${JSON.stringify({ replayed })}\n\n` };
    }
    if (!after || !this.replays) this.runs += 1;
    return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ run_id: `r-${this.runs}` }) };
  }
  sleep(): Promise<void> {
    return Promise.resolve();
  }
}

describe('finding 2: a /v1 storm refused in flight is judged by one request sent after it', () => {
  it('passes the legal in-flight 409 on the fake (v1.execute/in-flight-409)', async () => {
    const { summary } = await v1Storm(['v1.execute/in-flight-409']);
    for (const rule of ['load.v1.idempotency.storm-one-run', 'load.v1.idempotency.storm-replayed', 'load.v1.idempotency.storm-conflict']) expect(verdictOf(summary, rule), rule).toMatchObject({ verdict: 'pass' });
    expect(summary.figures.v1_storm_refused_in_flight!.count).toBeGreaterThan(0);
  });

  it.each([
    ['replays', true, 'pass', /judgments passed/],
    ['executes again', false, 'fail', /a task replay answers the original run_id \(2 of 2\)/],
  ] as const)('judges the request sent after a storm that admitted one: a target that %s gets %s', async (_name, replays, verdict, reason) => {
    const transport = new V1InFlight409(replays);
    const summary = await summarise('v1-idempotency-storm', 'http://127.0.0.1:1', () => v1IdempotencyStorm(transport, { baseUrl: 'http://127.0.0.1:1', token: 't', storm: 5, key: newKey, taskBody: { a: 1 }, otherTaskBody: { a: 2 }, turnBody: {} }), 2);
    expect(verdictOf(summary, 'load.v1.idempotency.storm-one-run')).toMatchObject({ verdict, reason: expect.stringMatching(reason) });
    expect(verdictOf(summary, 'load.v1.idempotency.storm-replayed')).toMatchObject({ verdict, reason: expect.stringMatching(replays ? /judgments passed/ : /at most one admission of one key and body is not a replay \(2 of 2\)/) });
    expect(transport.after).toBe(4);
  });

  it.each<[FaultId, string, RegExp]>([
    ['v1.execute.idempotency.replay/re-executes', 'load.v1.idempotency.storm-one-run', /a task replay answers the original run_id/],
    ['v1.execute.idempotency.replay/re-executes', 'load.v1.idempotency.storm-replayed', /at most one admission of one key and body is not a replay/],
  ])('still fails a replay fault under it: %s fails %s', async (fault, rule, reason) => {
    const verdict = verdictOf((await v1Storm(['v1.execute/in-flight-409'], [fault])).summary, rule);
    expect(verdict.verdict).toBe('fail');
    expect(verdict.reason).toMatch(reason);
  });

  it('sends nothing after a storm that admitted two requests or more', async () => {
    const { transport } = await v1Storm([]);
    expect([...transport.sent.keys()].filter((name) => name.includes('after the storm'))).toEqual([]);
  });
});

describe('finding 3: k6 is held to a memory cap', () => {
  it('stops a process past the cap and reports the most it held', async () => {
    // A stand-in for k6 that grows by 16 MiB every 50 ms, up to 400 MiB, then idles for 20 s.
    const grow = 'const held = []; const t = setInterval(() => { held.push(Buffer.alloc(16 << 20, 1)); if (held.length >= 25) clearInterval(t); }, 50); setTimeout(() => {}, 20000);';
    const started = Date.now();
    const run = await runK6(process.execPath, ['-e', grow], {}, 30_000, new AbortController().signal, [], 128);
    expect(run.memoryMiB).toBeGreaterThan(128);
    expect(run.code).not.toBe(0);
    expect(Date.now() - started).toBeLessThan(15_000);
  }, 20_000);

  it('makes every verdict but a fail or untestable inconclusive, naming the cap', () => {
    const results = overMemory([
      { id: 'a', verdict: 'pass', reason: '3 judgments passed', figures: {} },
      { id: 'b', verdict: 'fail', reason: 'x', figures: {} },
      { id: 'c', verdict: 'inconclusive', reason: 'nothing was judged', figures: {} },
    ], 512, 700);
    expect(results.map((r) => r.verdict)).toEqual(['inconclusive', 'fail', 'inconclusive']);
    expect(results[0]!.reason).toMatch(/^k6 reached 700 MiB, past the 512 MiB cap \(APICERT_K6_MAX_MEMORY, --k6-max-memory\), and was stopped/);
  });
});

describe('finding 6: k6 text marks a SHOULD not followed WARN', () => {
  it('prints WARN for a failed check of a should rule, FAIL for a required one', () => {
    const text = textSummary({
      metrics: {},
      root_group: {
        checks: [
          { name: 'load.v1.rate-limit.retry-after: a 429 carries a numeric Retry-After header', passes: 0, fails: 140 },
          { name: 'load.v1.rate-limit.429-shape: a 429 carries code rate_limited', passes: 0, fails: 3 },
        ],
      },
    });
    expect(text).toContain('WARN load.v1.rate-limit.retry-after: a 429 carries a numeric Retry-After header (0 passed, 140 failed)');
    expect(text).toContain('FAIL load.v1.rate-limit.429-shape: a 429 carries code rate_limited (0 passed, 3 failed)');
  });
});

describe('finding 7: a segment with no VU for a scenario says so', () => {
  it('names the segment and APICERT_VUS in the reason of a rule it did not judge', () => {
    const summary = emptySummary('v1-rate-limit', 'http://127.0.0.1:1', ['1/2:1']);
    record(summary, { judgments: [{ rule: 'load.v1.rate-limit.refusals-are-429', ok: true, check: 'every answer is a success, 429 or 503' }], figures: [] });
    const reason = verdictsOf(summary).find((r) => r.id === 'load.v1.rate-limit.unavailable-503')!.reason;
    expect(reason).toMatch(/execution segment 1\/2:1 only, and a segment may get no VU for a scenario when APICERT_VUS is below the number of segments/);
    const whole = emptySummary('v1-rate-limit', 'http://127.0.0.1:1');
    record(whole, { judgments: [{ rule: 'load.v1.rate-limit.refusals-are-429', ok: true, check: 'every answer is a success, 429 or 503' }], figures: [] });
    expect(verdictsOf(whole).find((r) => r.id === 'load.v1.rate-limit.unavailable-503')!.reason).not.toMatch(/segment/);
  });
});
