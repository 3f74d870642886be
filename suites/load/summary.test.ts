import { afterEach, describe, expect, it } from 'vitest';
import { credentialOf } from '../../src/load/config.ts';
import { metricOf } from '../../src/load/rules.ts';
import { v8IdempotencyStorm } from '../../src/load/scenarios/idempotency-storm.ts';
import { figureMetric, JUDGED_METRIC, mergeSummaries, type K6SummaryData, parseSummaries, SUMMARY_LINE_PREFIX, SummaryError, summaryFromK6, verdictsOf, type LoadSummary } from '../../src/load/summary.ts';
import { fakeTarget, newKey, summarise, verdictOf, type Target } from './support.ts';

describe('summary from k6 end-of-test data', () => {
  // The shape handleSummary receives: Rates carry passes/fails, Trends the summaryTrendStats, checks nest in groups.
  const data: K6SummaryData = {
    metrics: {
      [metricOf('load.v8.rate-limit.429-problem')]: { type: 'rate', values: { rate: 0.5, passes: 3, fails: 3 } },
      [metricOf('load.v8.rate-limit.limit-observed')]: { type: 'rate', values: { rate: 1, passes: 6, fails: 0 } },
      [JUDGED_METRIC]: { type: 'rate', values: { rate: 0.1, passes: 6, fails: 54 } },
      [figureMetric('v8_rate_429_at_ms')]: { type: 'trend', values: { avg: 1500, min: 1200, med: 1400, max: 2000, 'p(95)': 1990, count: 6 } },
      http_reqs: { type: 'counter', values: { count: 66, rate: 3.3 } },
    },
    root_group: {
      checks: [
        { name: 'load.v8.rate-limit.429-problem: a 429 is labelled application/problem+json', passes: 3, fails: 3 },
        { name: 'load.v8.rate-limit.limit-observed: a 429 was seen', passes: 6, fails: 0 },
      ],
      groups: [{ checks: [{ name: 'load.v8.rate-limit.429-problem: a 429 problem carries status 429', passes: 6, fails: 0 }], groups: [] }],
    },
    state: { testRunDurationMs: 20_012.4 },
  };
  const summary = summaryFromK6(data, { script: 'v8-rate-limit', target: 'http://127.0.0.1:8080', segment: '0:1', figures: ['v8_rate_429_at_ms'], untestable: { 'load.v8.rate-limit.per-principal': 'no other principal' } });

  it('keeps tallies per rule and check, figures, iterations and the untestable reasons', () => {
    expect(summary.rules['load.v8.rate-limit.429-problem']).toEqual({
      passes: 3,
      fails: 3,
      checks: { 'a 429 is labelled application/problem+json': { passes: 3, fails: 3 }, 'a 429 problem carries status 429': { passes: 6, fails: 0 } },
    });
    expect(summary.iterations).toEqual({ judged: 6, unjudged: 54 });
    expect(summary.figures).toEqual({ v8_rate_429_at_ms: { count: 6, min: 1200, max: 2000, avg: 1500 } });
    expect(summary.durationMs).toBe(20_012);
  });

  it('gives each rule a verdict, naming the failing check', () => {
    expect(verdictsOf(summary).map((r) => [r.id, r.verdict])).toEqual([
      ['load.v8.rate-limit.limit-observed', 'pass'],
      ['load.v8.rate-limit.429-problem', 'fail'],
      ['load.v8.rate-limit.per-principal', 'untestable'],
    ]);
    expect(verdictsOf(summary)[1]!.reason).toBe('3 of 6 judgments failed: a 429 is labelled application/problem+json (3 of 6)');
    expect(verdictsOf(summary)[0]!.figures.v8_rate_429_at_ms!.min).toBe(1200);
  });

  it('reads summaries from a JSON file or from the stdout lines of many instances', () => {
    const line = (s: LoadSummary) => `INFO some k6 text\n${SUMMARY_LINE_PREFIX}${JSON.stringify(s)}\n`;
    expect(parseSummaries(JSON.stringify(summary), 'a.json')).toEqual([summary]);
    expect(parseSummaries(line(summary) + line({ ...summary, segments: ['1/2:1'] }), 'pods.log')).toHaveLength(2);
    expect(() => parseSummaries('k6 output without a summary', 'x.log')).toThrow(SummaryError);
    expect(() => parseSummaries('{"format":"other"}', 'y.json')).toThrow(/not an apicert.load-summary\/1 summary/);
  });
});

describe('merging the summaries of execution segments', () => {
  let target: Target | undefined;
  afterEach(async () => {
    await target?.fake.close();
    target = undefined;
  });

  /** One k6-operator instance: its own share of the iterations against the same target. */
  async function segment(t: Target, seg: string): Promise<LoadSummary> {
    const summary = await summarise('v8-idempotency-storm', t.config.baseUrl, () => v8IdempotencyStorm(t.transport, { ...t.config, token: credentialOf('v8-idempotency-storm', t.config), storm: 6, key: newKey }), 2);
    return { ...summary, segments: [seg] };
  }

  it('adds up two segments into one passing verdict', async () => {
    target = await fakeTarget();
    const { summary, missing } = mergeSummaries([await segment(target, '1/2:1'), await segment(target, '0:1/2')]);
    expect(missing).toBeUndefined();
    expect(summary.segments).toEqual(['0:1/2', '1/2:1']);
    expect(summary.iterations).toEqual({ judged: 4, unjudged: 0 });
    expect(summary.rules['load.v8.idempotency.storm-conflict']).toMatchObject({ passes: 24, fails: 0 });
    expect(verdictsOf(summary).every((r) => r.verdict === 'pass')).toBe(true);
  });

  it('fails the merged verdict when one segment saw the fault', async () => {
    target = await fakeTarget();
    const good = await segment(target, '0:1/2');
    await target.fake.close();
    target = await fakeTarget(['load.v8.idempotency.storm-one-mission/race']);
    // Two fakes stand for one target whose second instance met the race; merging needs one target name.
    const bad = { ...(await segment(target, '1/2:1')), target: good.target };
    const { summary } = mergeSummaries([good, bad]);
    expect(verdictOf(summary, 'load.v8.idempotency.storm-one-mission').verdict).toBe('fail');
  });

  it('refuses overlapping segments and calls a partial cover inconclusive', async () => {
    target = await fakeTarget();
    const half = await segment(target, '0:1/2');
    expect(() => mergeSummaries([half, half])).toThrow(/overlaps/);
    expect(() => mergeSummaries([half, { ...half, script: 'v1-rate-limit', segments: ['1/2:1'] }])).toThrow(/one script's segments at a time/);
    const { summary, missing } = mergeSummaries([half]);
    expect(missing).toBe('the summaries cover 50.0 % of the run (segments 0:1/2)');
    expect(verdictsOf(summary, missing).every((r) => r.verdict === 'inconclusive')).toBe(true);
  });
});
