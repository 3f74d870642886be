/**
 * The run's judgement (src/runner/run-judgement.ts): once every rule has run, each rule that found no
 * failure in its own check's exchanges is judged again over every exchange of the run, so a break only
 * another check's traffic shows fails `certify` as it fails `judge-traffic` of certify's recording.
 *
 * Each fault is on only while the other rule's check runs (one rule at a time), so the judged rule's
 * own provocation sees a clean fake.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { FaultSet, type FaultId } from '../../src/fake/faults/index.ts';
import { startFake, type RunningFake } from '../../src/fake/server.ts';
import type { RuleResult } from '../../src/rule/index.ts';
import { certify } from '../../src/runner/certify.ts';
import { modelProxy, type ModelProxy } from './model-proxy.ts';

let fake: RunningFake | undefined;
let proxy: ModelProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await fake?.close();
  fake = undefined;
  proxy = undefined;
});

/**
 * [fault, the rule whose check sends the traffic that shows it, the rule the fault breaks, its reason]. The
 * judged rules judge their own check's exchanges first (v8.contract.version-header, a rule of the whole run,
 * judges every exchange in its own check: the last test).
 */
const CASES: ReadonlyArray<readonly [FaultId, string, string, RegExp]> = [
  ['v8.errors.problem-shape/plain-json-on-read-surfaces', 'v8.memory.query.bounds', 'v8.errors.problem-shape', /problem/i],
];

async function runWithFaultDuring(fault: FaultId, other: string, judged: string) {
  const running = (fake = await startFake({}));
  const embedded = embeddedProfile(running);
  const profile = { ...embedded, safety: { ...embedded.safety, concurrency: 1 } };
  const revised: RuleResult[] = [];
  const told: RuleResult[] = [];
  const { results } = await certify({
    profile,
    patterns: [other, judged],
    seed: 7,
    onStart: (rule) => {
      if (rule.id === other) running.context.faults = new FaultSet([fault]);
    },
    onResult: (r) => {
      told.push(r);
      if (r.rule.id === other) running.context.faults = new FaultSet();
    },
    onRevised: (r) => revised.push(r),
  });
  return { results, revised, told };
}

describe("the run's judgement", () => {
  it.each(CASES)("%s: %s's exchanges fail %s", async (fault, other, judged, reason) => {
    const { results, revised, told } = await runWithFaultDuring(fault, other, judged);
    const byId = Object.fromEntries(results.map((r) => [r.rule.id, r]));
    // The judged rule's own check saw a clean fake: it was told passed first, then revised.
    expect(told.find((r) => r.rule.id === judged)?.verdict).toBe('pass');
    const result = byId[judged]!;
    expect(result.verdict, result.reason).toBe('fail');
    expect(result.reason).toMatch(/^judged over every exchange of the run \(its own check’s exchanges passed\): /);
    expect(result.reason).toMatch(reason);
    expect(revised.map((r) => r.rule.id)).toEqual([judged]);
    // The deciding exchange is the other check's, shown from the run's journal.
    const at = result.cases[0]!.exchange!;
    expect(result.evidence[at]!.label).toMatch(/exchange of another rule's check/);
    expect(result.requests).toBeGreaterThan(0);
  }, 120_000);

  it('changes nothing when no other exchange breaks the rule', async () => {
    const running = (fake = await startFake({}));
    const revised: RuleResult[] = [];
    const { results } = await certify({ profile: embeddedProfile(running), patterns: CASES.flatMap(([, other, judged]) => [other, judged]), seed: 7, onRevised: (r) => revised.push(r) });
    expect(results.map((r) => [r.rule.id, r.verdict])).toEqual(results.map((r) => [r.rule.id, 'pass']));
    expect(results.every((r) => !r.reason?.startsWith('judged over every exchange'))).toBe(true);
    expect(revised).toEqual([]);
  }, 120_000);

  it('judges a rule whose own check met the limiter (every request of it refused 429) over the run too: a failing case still fails', async () => {
    const [fault, other, judged] = CASES[0]!;
    const running = (fake = await startFake({}));
    let limited = false;
    // A refusal the rule itself passes (a whole v8 problem), so only the other check's exchanges can fail it.
    const refused = { status: 429, headers: { 'content-type': 'application/problem+json', 'retry-after': '0', 'x-service-contract-version': 'service-integration-gateway-v8.1' }, json: { type: 'about:blank', title: 'rate limited', status: 429, detail: 'too many requests', code: 'rate_limited', requestId: '0190a8f0-1c2d-7e3f-8a4b-5c6d7e8f9a0b' } };
    proxy = await modelProxy(running.baseUrl, () => (limited ? { answer: refused } : undefined));
    const embedded = embeddedProfile(running);
    const { results } = await certify({
      profile: { ...embedded, target: proxy.url, safety: { ...embedded.safety, concurrency: 1 } },
      patterns: [other, judged],
      seed: 7,
      onStart: (rule) => {
        if (rule.id === other) running.context.faults = new FaultSet([fault]);
        if (rule.id === judged) limited = true;
      },
      onResult: (r) => {
        if (r.rule.id === other) running.context.faults = new FaultSet();
        if (r.rule.id === judged) limited = false;
      },
    });
    const result = results.find((r) => r.rule.id === judged)!;
    expect(result.verdict, result.reason).toBe('fail');
    // problem-shape judges the limiter's 429 problems themselves (its own check passes on them); a rule of the whole
    // run whose setup the limiter stopped is suites/v8/limited-provocations.test.ts's.
    expect(result.reason).toMatch(/^judged over every exchange of the run \(its own check/);
    expect(result.reason).toMatch(/problem/i);
  }, 120_000);

  it('a rule of the whole run (v8.contract.version-header) judges the other checks\' exchanges in its own check, its own requests shown as its check recorded them', async () => {
    const { results, revised, told } = await runWithFaultDuring('v8.contract.version-header/missing-on-read-surfaces', 'v8.coverage.shape', 'v8.contract.version-header');
    const result = results.find((r) => r.rule.id === 'v8.contract.version-header')!;
    // Failed at once, by its own judgement over the run: never told passed, never revised.
    expect(told.find((r) => r.rule.id === result.rule.id)?.verdict).toBe('fail');
    expect(revised).toEqual([]);
    expect(result.reason).toMatch(/x-service-contract-version/i);
    const at = result.cases[0]!.exchange!;
    expect(result.evidence[at]!.label).toMatch(/exchange of another rule's check/);
    // Its own check's exchanges keep the labels that check gave them.
    expect(result.evidence.some((e) => !/exchange of another rule's check/.test(e.label ?? ''))).toBe(true);
  }, 120_000);
});
