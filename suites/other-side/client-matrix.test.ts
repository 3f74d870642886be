import { describe, expect, it } from 'vitest';
import { CLIENT_FAULTS, ruleOfSampleFault } from '../../samples/faults.ts';
import { judgeClient } from '../../src/client-judge/judge-client.ts';
import { clientRules } from '../../src/client-judge/rules.ts';
import { SCENARIO_NAMES } from '../../src/client-judge/scenarios.ts';
import { sampleClient } from './support.ts';

// 0.02 turns the seed's 60 s retry hint into 1.2 s and Retry-After into 1 s.
const TIME_SCALE = 0.02;

describe('judge-client with the well-behaved sample client', () => {
  it('passes every required client rule in every scenario; secrets stay out of the report', async () => {
    const { report, results, sessions } = await judgeClient({ scenarios: SCENARIO_NAMES, timeScale: TIME_SCALE, command: sampleClient(), maxSecondsPerScenario: 30, quietMs: 1_000, seed: 7 });
    const verdicts = Object.fromEntries(results.map((r) => [r.rule.id, r.verdict]));
    expect(Object.keys(verdicts).sort()).toEqual(clientRules.map((c) => c.rule.id).sort());
    for (const [id, verdict] of Object.entries(verdicts)) expect(['pass', 'not-applicable'], `${id}: ${results.find((r) => r.rule.id === id)?.reason}`).toContain(verdict);
    // It reads a cut run back (turn or task mode) and never re-posts it: the three rules about a repost have nothing to judge
    // (suites/other-side/client-task-drop.test.ts has a client that reads back, then re-posts, and passes).
    expect(Object.entries(verdicts).filter(([, v]) => v === 'not-applicable').map(([id]) => id).sort()).toEqual(['client.v1.endpoints.dropped-readback', 'client.v1.endpoints.streamed-retry', 'client.v1.endpoints.task-readback']);
    expect(report.summary.gate).toBe('pass');
    expect(sessions.every((s) => s.ended === 'exit' && s.exitCode === 0)).toBe(true);
    expect(JSON.stringify(report)).not.toMatch(/service_sk_|v8at_/);
  });
});

/** Faults that break a second rule by their nature: re-posting at once is both too soon and under another key. */
const ALSO_BROKEN: Record<string, readonly string[]> = { 'fresh-request-after-429': ['client.v1.limits.retry-after'] };

describe.concurrent('client fault matrix', () => {
  it.each(Object.entries(CLIENT_FAULTS))('%s: %s', async (fault, description) => {
    const ruleId = ruleOfSampleFault(description);
    const also = ALSO_BROKEN[fault] ?? [];
    const scenario = clientRules.find((c) => c.rule.id === ruleId)!.scenario;
    const { results } = await judgeClient({ scenarios: [scenario], timeScale: TIME_SCALE, command: sampleClient(fault), maxSecondsPerScenario: 30, quietMs: 1_000, seed: 7 });
    const byId = new Map(results.map((r) => [r.rule.id, r]));
    for (const id of [ruleId, ...also]) expect(byId.get(id)?.verdict, byId.get(id)?.reason).toBe('fail');
    const otherFailures = results.filter((r) => r.rule.id !== ruleId && !also.includes(r.rule.id) && r.verdict === 'fail').map((r) => r.rule.id);
    expect(otherFailures).toEqual([]);
  });
});
