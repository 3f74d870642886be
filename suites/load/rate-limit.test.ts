import { RATE_PROBE_PRINCIPAL } from '../../scenarios/v8/principal.ts';
import { afterEach, describe, expect, it } from 'vitest';
import { credentialOf, loadConfig, rampRate, untestableRules } from '../../src/load/config.ts';
import { v1LimiterDownStep, v1RateLimitStep, v8RateLimitStep } from '../../src/load/scenarios/rate-limit.ts';
import type { FakeConfigInput } from '../../src/fake/context.ts';
import type { FaultId } from '../../src/fake/faults/index.ts';
import { withLoadResults } from '../../src/load/report.ts';
import { emptySummary, verdictsOf } from '../../src/load/summary.ts';
import type { VariantId } from '../../src/fake/variants/index.ts';
import type { LoadRequest } from '../../src/load/transport.ts';
import { summarize } from '../../src/reports/model.ts';
import { catchRows } from './catches.ts';
import { fakeTarget, V1_PROBE_LIMIT, newKey, summarise, verdictOf, type Target } from './support.ts';

const V8_LIMIT: FakeConfigInput = { rateLimits: { v8: { default: { requests: 10, windowSeconds: 60 } } } };

let target: Target | undefined;
afterEach(async () => {
  await target?.fake.close();
  target = undefined;
});

/** The ramp's clock as the k6 scripts read it: time into it, and the arrival rate reached. */
const clock = () => {
  const started = Date.now();
  const elapsedMs = () => Date.now() - started;
  return { elapsedMs, arrivalRate: () => 5 + Math.round(elapsedMs() / 100) };
};

async function v1Ramp(faults: FaultId[] = [], withLimiterDown = true) {
  target = await fakeTarget(faults, V1_PROBE_LIMIT);
  const t = target;
  const config = withLimiterDown ? t.config : { ...t.config, v1LimiterDownKey: undefined };
  const ramp = clock();
  // One runner, as one k6 VU: it remembers whether it saw the key served.
  const keyServed = { seen: false };
  const summary = await summarise('v1-rate-limit', config.baseUrl, () => v1RateLimitStep(t.transport, { baseUrl: config.baseUrl, token: credentialOf('v1-rate-limit', config), keyServed, ...ramp }), 24, 4);
  if (config.v1LimiterDownKey) {
    const down = await summarise('v1-rate-limit', config.baseUrl, () => v1LimiterDownStep(t.transport, { baseUrl: config.baseUrl, token: config.v1LimiterDownKey!, ...ramp }), 3);
    Object.assign(summary.rules, down.rules);
  }
  summary.untestable = untestableRules('v1-rate-limit', config);
  return summary;
}

async function v8Ramp(faults: FaultId[] = [], fakeConfig: FakeConfigInput = V8_LIMIT, variants: VariantId[] = [], maxProbes = 3) {
  target = await fakeTarget(faults, fakeConfig, {}, variants);
  const t = target;
  let probes = 0;
  const ramp = clock();
  const step = () => v8RateLimitStep(t.transport, { baseUrl: t.config.baseUrl, token: credentialOf('v8-rate-limit', t.config), otherToken: t.config.v8OtherToken, mayProbeOther: () => ++probes <= maxProbes, missionBody: t.config.missionBody, key: newKey, ...ramp });
  return summarise('v8-rate-limit', t.config.baseUrl, step, 24, 4);
}

describe('v1 rate limit under a ramp', () => {
  it('passes on the fake and records where the first 429 came', async () => {
    const summary = await v1Ramp();
    for (const rule of ['load.v1.rate-limit.429-shape', 'load.v1.rate-limit.retry-after', 'load.v1.rate-limit.refusals-are-429', 'load.v1.rate-limit.unavailable-503']) {
      expect(verdictOf(summary, rule), rule).toMatchObject({ verdict: 'pass' });
    }
    const limit = verdictOf(summary, 'load.v1.rate-limit.limit-reached');
    expect(limit.verdict).toBe('pass');
    expect(limit.figures.v1_rate_429_at_ms).toMatchObject({ count: 14 });
    expect(limit.figures.v1_rate_429_at_rps!.min).toBeGreaterThanOrEqual(5);
    expect(summary.rules['load.v1.rate-limit.refusals-are-429']).toMatchObject({ passes: 24, fails: 0 });
  });

  it('a 429 without Retry-After departs from a SHOULD ("is expected"): a warning that gates only a strict run', async () => {
    const results = verdictsOf(await v1Ramp(['v1.errors.rate-limited-retry-after/no-retry-after']));
    const context = { version: 'test', target: { baseUrl: target!.config.baseUrl, kind: 'remote' as const }, startedAt: new Date(), finishedAt: new Date() };
    const report = withLoadResults(undefined, results, context);
    expect(report.rules.find((r) => r.id === 'load.v1.rate-limit.retry-after')).toMatchObject({ level: 'should', verdict: 'fail' });
    expect(report.summary).toMatchObject({ gate: 'pass', warnings: ['load.v1.rate-limit.retry-after'] });
    expect(summarize(report.rules, true).gate).toBe('fail');
  });

  it.each(catchRows('v1-rate-limit'))('%s fails %s', async (fault, rule, reason) => {
    const verdict = verdictOf(await v1Ramp([fault]), rule);
    expect(verdict.verdict).toBe('fail');
    expect(verdict.reason).toMatch(reason);
  });

  it('is untestable on the 503 rule without a limiter-down key, inconclusive when no 429 came', async () => {
    const summary = await v1Ramp([], false);
    expect(verdictOf(summary, 'load.v1.rate-limit.unavailable-503')).toMatchObject({ verdict: 'untestable', reason: expect.stringMatching(/APICERT_V1_LIMITER_DOWN_KEY/) });
    await target!.fake.close();
    target = await fakeTarget();
    const t = target;
    const calm = await summarise('v1-rate-limit', t.config.baseUrl, () => v1RateLimitStep(t.transport, { baseUrl: t.config.baseUrl, token: t.config.v1Key!, elapsedMs: () => 0, arrivalRate: () => 5 }), 5);
    expect(verdictOf(calm, 'load.v1.rate-limit.429-shape')).toMatchObject({ verdict: 'inconclusive', reason: expect.stringMatching(/not judged in 5 judged iterations: no 429 came within the ramp/) });
    expect(verdictOf(calm, 'load.v1.rate-limit.limit-reached').verdict).toBe('not-applicable');
  });
});

describe('v8 per-principal rate limit', () => {
  it('passes on the fake with its limiter on', async () => {
    const summary = await v8Ramp();
    for (const rule of ['load.v8.rate-limit.429-problem', 'load.v8.rate-limit.per-principal', 'load.v8.rate-limit.limit-observed']) {
      expect(verdictOf(summary, rule), rule).toMatchObject({ verdict: 'pass' });
    }
    expect(summary.rules['load.v8.rate-limit.per-principal']!.passes).toBe(3);
  });

  it.each(catchRows('v8-rate-limit'))('%s fails %s', async (fault, rule, reason) => {
    const verdict = verdictOf(await v8Ramp([fault]), rule);
    expect(verdict.verdict).toBe('fail');
    expect(verdict.reason).toMatch(reason);
  });

  // "A per-principal rate limit exists (`429`)." says nothing against another limit besides it.
  it('passes a gateway-wide limit besides the per-principal one, which refuses the other principal later in the ramp (v8.rate-limit/global-limit)', async () => {
    const summary = await v8Ramp([], V8_LIMIT, ['v8.rate-limit/global-limit'], 24);
    expect(target!.fake.context.variants.taken()).toContain('v8.rate-limit/global-limit');
    const verdict = verdictOf(summary, 'load.v8.rate-limit.per-principal');
    expect(verdict.verdict).toBe('pass');
    // The other principal was served at the first 429s, then refused once the sum passed the gateway-wide bucket.
    expect(verdict.reason).toMatch(/answered 429 too, by a limit besides the per-principal one/);
    expect(summary.figures.v8_other_principal_served_at_ms!.count).toBeGreaterThan(0);
    expect(summary.figures.v8_other_principal_429_at_ms!.count).toBeGreaterThan(0);
    for (const rule of ['load.v8.rate-limit.429-problem', 'load.v8.rate-limit.limit-observed']) expect(verdictOf(summary, rule), rule).toMatchObject({ verdict: 'pass' });
  });

  it('fails when the first limit the ramp met refused the other principal too, even if a later probe was served', () => {
    const summary = emptySummary('v8-rate-limit', 'http://t');
    summary.iterations = { judged: 3, unjudged: 0 };
    summary.rules['load.v8.rate-limit.per-principal'] = { passes: 1, fails: 0, checks: {} };
    summary.figures.v8_other_principal_429_at_ms = { count: 2, min: 1200, max: 1300, avg: 1250 };
    summary.figures.v8_other_principal_served_at_ms = { count: 1, min: 2000, max: 2000, avg: 2000 };
    expect(verdictsOf(summary).find((r) => r.id === 'load.v8.rate-limit.per-principal')).toMatchObject({ verdict: 'fail', reason: expect.stringMatching(/^another principal is not limited while the first is: the first request .* \(1200 ms into the ramp\) was answered 429 too, before any was served/) });
    delete summary.figures.v8_other_principal_served_at_ms;
    delete summary.rules['load.v8.rate-limit.per-principal'];
    expect(verdictsOf(summary).find((r) => r.id === 'load.v8.rate-limit.per-principal')).toMatchObject({ verdict: 'fail', reason: expect.stringMatching(/\(2 of 2\)/) });
  });

  it('judges a served probe only when the first principal is refused again right after it (a limit window may have ended between them)', async () => {
    const judged = async (recheck: number) => {
      const answers: Record<string, number> = { 'ramp POST /v8/missions': 429, 'other-principal POST /v8/missions': 202, 'ramp recheck POST /v8/missions': recheck };
      const transport = { batch: async (requests: readonly LoadRequest[]) => requests.map((r) => ({ status: answers[r.name]!, headers: { 'content-type': 'application/problem+json' }, body: JSON.stringify({ status: answers[r.name] }) })), sleep: async () => {} };
      const step = await v8RateLimitStep(transport, { baseUrl: 'http://t', token: 'a', otherToken: 'b', mayProbeOther: () => true, missionBody: {}, key: newKey, elapsedMs: () => 1000, arrivalRate: () => 10 });
      return step.judgments.filter((j) => j.rule === 'load.v8.rate-limit.per-principal');
    };
    expect(await judged(429)).toEqual([expect.objectContaining({ ok: true })]);
    expect(await judged(202)).toEqual([]);
  });

  it('finds no limit on a fake whose rate-probe principal is never limited, and judges nothing then', async () => {
    const summary = await v8Ramp([], { rateLimits: { v8: { principals: { [RATE_PROBE_PRINCIPAL]: { requests: 1_000_000, windowSeconds: 1 } } } } });
    expect(summary.iterations).toEqual({ judged: 0, unjudged: 24 });
    expect(verdictOf(summary, 'load.v8.rate-limit.limit-observed').verdict).toBe('not-applicable');
    expect(verdictOf(summary, 'load.v8.rate-limit.per-principal').verdict).toBe('inconclusive');
  });
});

describe('the ramp clock', () => {
  it('gives the arrival rate a linear ramp has reached, then holds its end', () => {
    const config = loadConfig({ APICERT_RATE_START: '10', APICERT_RATE_MAX: '110', APICERT_RAMP: '10s' });
    expect([0, 2_500, 10_000, 60_000].map((ms) => rampRate(config, ms))).toEqual([10, 35, 110, 110]);
  });
});
