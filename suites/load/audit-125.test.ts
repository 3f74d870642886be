/**
 * helper-125's audit of `apicert load` on real k6 (F1-F4, F7, F8, F11): the verdicts and reasons
 * the v1 rate-limit script gives a scope refusal, a limit answered 403 and a 5xx that is not the
 * limit; `--strict`; what k6 sent and dropped.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { credentialOf, untestableRules } from '../../src/load/config.ts';
import { withLoadResults } from '../../src/load/report.ts';
import { V1_RATE_FIGURES, v1LimiterDownStep, v1RateLimitStep } from '../../src/load/scenarios/rate-limit.ts';
import { emptySummary, mergeSummaries, record, summaryFromK6, verdictsOf, type K6SummaryData, type LoadSummary } from '../../src/load/summary.ts';
import type { LoadResponse, Transport } from '../../src/load/transport.ts';
import type { FaultId } from '../../src/fake/faults/index.ts';
import type { VariantId } from '../../src/fake/variants/index.ts';
import { fakeTarget, V1_PROBE_LIMIT, summarise, verdictOf, type Target } from './support.ts';


let target: Target | undefined;
afterEach(async () => {
  await target?.fake.close();
  target = undefined;
});

const clock = () => {
  const started = Date.now();
  return { elapsedMs: () => Date.now() - started, arrivalRate: () => 5 };
};

/** The ramp and the limiter-down scenario of the script, folded into one summary as k6 folds them. */
async function v1Script(faults: FaultId[], variants: VariantId[]): Promise<LoadSummary> {
  target = await fakeTarget(faults, V1_PROBE_LIMIT, {}, variants);
  const t = target;
  const ramp = clock();
  const keyServed = { seen: false };
  const summary = await summarise('v1-rate-limit', t.config.baseUrl, () => v1RateLimitStep(t.transport, { baseUrl: t.config.baseUrl, token: credentialOf('v1-rate-limit', t.config), keyServed, ...ramp }), 24, 4);
  const downServed = { seen: false };
  const down = await summarise('v1-rate-limit', t.config.baseUrl, () => v1LimiterDownStep(t.transport, { baseUrl: t.config.baseUrl, token: t.config.v1LimiterDownKey!, keyServed: downServed, ...ramp }), 3);
  Object.assign(summary.rules, down.rules);
  Object.assign(summary.figures, down.figures);
  summary.untestable = untestableRules('v1-rate-limit', t.config);
  return summary;
}

/** A transport answering every request with one answer. */
function answering(res: LoadResponse): Transport {
  return { batch: (requests) => Promise.resolve(requests.map(() => res)), sleep: () => Promise.resolve() };
}

describe('F1, F2: a /v1 deployment whose GET /v1/usage needs a scope the rate-limit keys lack (variant v1.usage/scope-needed)', () => {
  it('leaves unavailable-503 and the ramp rules untestable, naming the scope refusal, as certify does', async () => {
    const summary = await v1Script([], ['v1.usage/scope-needed']);
    const down = verdictOf(summary, 'load.v1.rate-limit.unavailable-503');
    expect(down.verdict).toBe('untestable');
    expect(down.reason).toMatch(/refused APICERT_V1_LIMITER_DOWN_KEY for a scope \(3 answered 403 authorization_failed\) before its limiter was asked/);
    expect(down.reason).toMatch(/Scopes required by the other `\/v1` endpoints: not shown/);
    for (const rule of ['load.v1.rate-limit.429-shape', 'load.v1.rate-limit.retry-after', 'load.v1.rate-limit.refusals-are-429', 'load.v1.rate-limit.limit-reached']) {
      const v = verdictOf(summary, rule);
      expect(v.verdict, rule).toBe('untestable');
      expect(v.reason, rule).toMatch(/refused APICERT_V1_RATE_LIMIT_KEY .*for a scope \(24 answered 403 authorization_failed\)/);
      expect(v.reason, rule).not.toMatch(/APICERT_RATE_MAX/);
    }
  });

  it('still judges the limiter-down key once it was served (a fail-open limiter holds the scope): a later refusal is no scope reading', async () => {
    const served = { seen: true };
    const res: LoadResponse = { status: 403, headers: {}, body: JSON.stringify({ code: 'authorization_failed' }) };
    const step = await v1LimiterDownStep(answering(res), { baseUrl: 'http://x', token: 't', keyServed: served, elapsedMs: () => 0, arrivalRate: () => 5 });
    expect(step.judgments.filter((j) => j.rule === 'load.v1.rate-limit.unavailable-503').map((j) => j.ok)).toEqual([false]);
  });
});

describe('F3: a limit answered 403 (fault v1.errors.rate-limited/limit-as-403)', () => {
  it('fails 429-shape, records where the limit answered under limit-reached, and says why retry-after had no 429', async () => {
    const summary = await v1Script(['v1.errors.rate-limited/limit-as-403'], []);
    expect(verdictOf(summary, 'load.v1.rate-limit.429-shape').verdict).toBe('fail');
    const reached = verdictOf(summary, 'load.v1.rate-limit.limit-reached');
    expect(reached.verdict).toBe('pass');
    expect(reached.figures[V1_RATE_FIGURES.limitOtherStatus]).toMatchObject({ min: 403, max: 403 });
    const retry = verdictOf(summary, 'load.v1.rate-limit.retry-after');
    expect(retry.verdict).toBe('inconclusive');
    expect(retry.reason).toMatch(/the limit answered \d+ requests of a key served before with 403 instead \(judged under load.v1.rate-limit.429-shape\)/);
    expect(retry.reason).not.toMatch(/APICERT_RATE_MAX/);
  });
});

describe('F4: refusals-are-429 judges the limiter, not every 5xx', () => {
  const step = (status: number, code: string) => v1RateLimitStep(answering({ status, headers: {}, body: JSON.stringify({ code }) }), { baseUrl: 'http://x', token: 't', keyServed: { seen: true }, elapsedMs: () => 0, arrivalRate: () => 5 });

  it('records a 5xx that does not say rate_limited (an overloaded backend, a proxy) without judging it', async () => {
    for (const status of [500, 502, 504]) {
      const s = await step(status, 'internal_failed');
      expect(s.judgments, String(status)).toEqual([]);
      expect(s.figures).toEqual([{ name: V1_RATE_FIGURES.other5xx, value: status }]);
    }
  });

  it('passes a deployment whose backend answers 500 internal_failed once a key is well past its limit (variant v1.errors/overloaded-500-under-burst), recording the 5xx', async () => {
    const summary = await v1Script([], ['v1.errors/overloaded-500-under-burst']);
    for (const rule of ['load.v1.rate-limit.429-shape', 'load.v1.rate-limit.refusals-are-429', 'load.v1.rate-limit.unavailable-503', 'load.v1.rate-limit.limit-reached']) expect(verdictOf(summary, rule).verdict, rule).toBe('pass');
    expect(verdictOf(summary, 'load.v1.rate-limit.limit-reached').figures[V1_RATE_FIGURES.other5xx]).toMatchObject({ min: 500, max: 500 });
  });

  it('fails a 5xx other than 503 that says rate_limited', async () => {
    const s = await step(500, 'rate_limited');
    expect(s.judgments).toEqual([{ rule: 'load.v1.rate-limit.refusals-are-429', ok: false, check: expect.stringMatching(/no answer saying rate_limited has another 5xx/) }]);
  });
});

describe('F7: --strict', () => {
  it('makes the SHOULD rule gate in a load report', () => {
    const results = [
      { id: 'load.v1.rate-limit.429-shape', verdict: 'pass' as const, reason: 'x', figures: {} },
      { id: 'load.v1.rate-limit.retry-after', verdict: 'fail' as const, reason: 'x', figures: {} },
    ];
    const context = { version: 'test', target: { baseUrl: 'http://x', kind: 'remote' as const }, startedAt: new Date(), finishedAt: new Date() };
    expect(withLoadResults(undefined, results, context).summary).toMatchObject({ strict: false, gate: 'pass' });
    expect(withLoadResults(undefined, results, { ...context, strict: true }).summary).toMatchObject({ strict: true, gate: 'fail' });
  });

  it('is an option of apicert load and apicert load merge', () => {
    const bin = new URL('../../bin/apicert.js', import.meta.url).pathname;
    const help = spawnSync(process.execPath, [bin, 'load', '--help'], { encoding: 'utf8', timeout: 60_000 });
    expect(help.stdout).toMatch(/--strict +SHOULD rules gate too/);
    const dry = spawnSync(process.execPath, [bin, 'load', '--strict', '--dry-run', '--script', 'v1-rate-limit', '--target', 'http://127.0.0.1:9', '--out', mkdtempSync(join(tmpdir(), 'h131-strict-'))], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, APICERT_V1_KEY: 'k-h131' } });
    expect(dry.stderr).not.toMatch(/unknown option/);
    expect(dry.status).toBe(0);
  });
});

describe("F8, F11: what k6 sent, and iterations it dropped", () => {
  const data = (reqs: number, dropped?: number): K6SummaryData => ({
    metrics: { http_reqs: { type: 'counter', values: { count: reqs, rate: 10 } }, ...(dropped === undefined ? {} : { dropped_iterations: { type: 'counter', values: { count: dropped, rate: 1 } } }) },
    root_group: { checks: [], groups: [] },
  });

  it('carries http_reqs into the summary, adds it up over segments, and reports it', () => {
    const a = summaryFromK6(data(120), { script: 'v1-rate-limit', target: 'http://x', segment: '0:1/2', figures: [], untestable: {} });
    const b = summaryFromK6(data(85), { script: 'v1-rate-limit', target: 'http://x', segment: '1/2:1', figures: [], untestable: {} });
    expect(a.requests).toBe(120);
    expect(mergeSummaries([a, b]).summary.requests).toBe(205);
    const report = withLoadResults(undefined, [], { version: 'test', target: { baseUrl: 'http://x', kind: 'remote' }, startedAt: new Date(), finishedAt: new Date(), requests: 205 });
    expect(report.run.requests).toBe(205);
  });

  it('says the ramp fell short when k6 dropped iterations', () => {
    const summary = summaryFromK6(data(145, 186), { script: 'v1-rate-limit', target: 'http://x', segment: '0:1', figures: [], untestable: {} });
    expect(summary.droppedIterations).toBe(186);
    record(summary, { judgments: [{ rule: 'load.v1.rate-limit.limit-reached', ok: true, check: 'a 429 was seen' }, { rule: 'load.v1.rate-limit.refusals-are-429', ok: true, check: 'c' }], figures: [] });
    const reached = verdictsOf(summary).find((r) => r.id === 'load.v1.rate-limit.limit-reached')!;
    expect(reached.reason).toMatch(/k6 dropped 186 iterations \(no VU was free\), so the ramp fell short of its planned rate: raise --vus/);
    expect(reached.figures.k6_dropped_iterations).toMatchObject({ min: 186 });
    expect(verdictsOf(summary).find((r) => r.id === 'load.v1.rate-limit.429-shape')!.reason).toMatch(/no 429 came within the ramp.*k6 dropped 186 iterations/);
    const calm = emptySummary('v1-rate-limit', 'http://x');
    expect(verdictsOf(calm).find((r) => r.id === 'load.v1.rate-limit.429-shape')!.reason).not.toMatch(/dropped/);
    // A few dropped on a busy machine (3 of 330 in a clean run on 2 cores) are no shortfall worth a word.
    const busy = { ...emptySummary('v1-rate-limit', 'http://x'), iterations: { judged: 327, unjudged: 0 }, droppedIterations: 3 };
    expect(verdictsOf(busy).find((r) => r.id === 'load.v1.rate-limit.429-shape')!.reason).not.toMatch(/dropped/);
  });
});
