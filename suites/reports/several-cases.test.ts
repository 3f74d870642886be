/**
 * A rule with several broken cases reports each of them, with the exchange that decided it: the
 * fake is certified with faults that break two or more cases of one rule at once (the reports'
 * side, every case up to the cap, is in failing-cases.test.ts).
 */
import { describe, expect, it } from 'vitest';
import type { FaultId } from '../../src/fake/faults/index.ts';
import type { EvidenceEntry, RuleResult } from '../../src/rule/index.ts';
import { certify } from '../../src/runner/certify.ts';

/** Certifies the fake with `faults` on one rule and returns that rule's failing result. */
async function failingResult(faults: FaultId[], ruleId: string, seed = 5): Promise<RuleResult> {
  const { results } = await certify({ faults, patterns: [ruleId], seed });
  expect(results).toHaveLength(1);
  const result = results[0]!;
  expect(result.verdict, result.reason).toBe('fail');
  return result;
}

/** Each case with the label of its deciding exchange; every case must name one and, when `distinct`, no two the same. */
function casesWithExchanges(result: RuleResult, distinct = true): Array<{ reason: string; label: string; entry: EvidenceEntry }> {
  const out = result.cases.map((c) => {
    expect(c.exchange, `case "${c.reason}" names no exchange`).toBeDefined();
    const entry = result.evidence[c.exchange!]!;
    expect(entry, `case "${c.reason}" names exchange ${c.exchange}, which the evidence lacks`).toBeDefined();
    return { reason: c.reason, label: entry.label ?? '', entry };
  });
  if (distinct) expect(new Set(result.cases.map((c) => c.exchange)).size).toBe(result.cases.length);
  return out;
}

describe.concurrent('a fault that breaks several cases of one rule: each case is reported with its own exchange', () => {
  it('v1.auth.unauthenticated: every /v1 endpoint served without a key is a case of its own', async () => {
    const result = await failingResult(['v1.auth.unauthenticated/serves-without-key'], 'v1.auth.unauthenticated');
    const cases = casesWithExchanges(result);
    // The approve goes to a run that is not parked: served without a key, it is refused 409 for the run's
    // state, a cause no sentence orders after the credential's (src/checks/v1/errors/other-causes.ts).
    const endpoints = ['execute', 'get run', 'run events', 'cancel', 'usage'];
    expect(cases.map((c) => c.label).sort()).toEqual(endpoints.map((e) => `${e} without an API key`).sort());
    // A judgement names the request it judged first: each case is on the exchange it names.
    for (const c of cases) {
      const named = `${c.entry.request.method} ${new URL(c.entry.request.url).pathname}`;
      expect(c.reason.startsWith(`${named}:`), `"${c.reason}" is judged on "${named}" (${c.label})`).toBe(true);
    }
    expect(result.reason).toMatch(/\(and 4 more failing cases\)$/);
  }, 60_000);

  it('v8.contract.version-header with two faults: the errors and the read surfaces without the header, each on its response', async () => {
    const result = await failingResult(['v8.contract.version-header/missing-on-errors', 'v8.contract.version-header/missing-on-read-surfaces'], 'v8.contract.version-header');
    const cases = casesWithExchanges(result);
    for (const c of cases) {
      expect(c.reason).toContain('x-service-contract-version is missing');
      expect(c.entry.response?.headers['x-service-contract-version']).toBeUndefined();
    }
    const labels = cases.map((c) => c.label);
    // From the first fault: error answers; from the second: the read surfaces answered 200.
    expect(labels).toEqual(expect.arrayContaining(['get unknown mission', 'get without token', 'create with malformed JSON']));
    expect(labels).toEqual(expect.arrayContaining(['context goals (200)', 'world certificates (200)', 'coverage report (200)']));
  }, 60_000);

  it('v1.execute.idempotency.key-format with two faults: a valid key refused and invalid keys admitted, each on its request', async () => {
    const result = await failingResult(['v1.execute.idempotency.key-format/any-key', 'v1.execute.idempotency.key-format/min-16-chars'], 'v1.execute.idempotency.key-format');
    const cases = casesWithExchanges(result);
    const why = (c: { label: string }) => c.label.replace('execute (task) with an Idempotency-Key of ', '');
    expect(cases.map(why)).toEqual(expect.arrayContaining(['one character', '129 characters', 'a "/"']));
    // Each case names the key its own request carried.
    for (const c of cases) expect(c.reason).toContain(c.entry.request.headers['idempotency-key']!.slice(0, 20));
  }, 60_000);

  it('mcp.transport.accepted-202: each notification and response answered 200 is a case on its own POST', async () => {
    const result = await failingResult(['mcp.transport.accepted-202/notification-answered-200'], 'mcp.transport.accepted-202');
    const cases = casesWithExchanges(result);
    expect(cases.length).toBeGreaterThanOrEqual(2);
    expect(cases.map((c) => c.label)).toEqual(expect.arrayContaining(['notifications/initialized', 'notifications/cancelled for an unknown request']));
    for (const c of cases) expect(c.entry.response?.status).toBe(200);
  }, 60_000);

  it('v8.redaction.canaries with two faults: each echoed canary is a case on the response it came back in', async () => {
    const result = await failingResult(['v8.redaction.canaries/secret-named-field', 'v8.redaction.canaries/signal-payload'], 'v8.redaction.canaries');
    // Several canaries may come back in one response: a case per canary, each on the response that carried it.
    const cases = casesWithExchanges(result, false);
    for (const c of cases) expect(c.entry.request.method).toBe(/came back in (GET|POST) /.exec(c.reason)?.[1]);
    const from = (prefix: string) => cases.filter((c) => /canary from (.+?) came back/.exec(c.reason)?.[1]?.startsWith(prefix));
    expect(from('goalSpec.').length).toBeGreaterThan(0);
    expect(from('signal payload').length).toBeGreaterThan(0);
    expect(new Set(cases.map((c) => c.label)).size).toBeGreaterThanOrEqual(2);
  }, 60_000);
});

describe('property-based rules keep their counterexample', () => {
  it('ctx.property: the reason and the case carry the seed and the shrunk value', async () => {
    // The rule's judgement runs inside each property run (judgedRun), so its failure shrinks to a minimal query.
    const result = await failingResult(['v8.memory.query.bounds/limit-51'], 'v8.memory.query.bounds', 99);
    const c = result.cases[0]!;
    expect(result.reason).toMatch(/^property failed after \d+ runs \(seed 99, path [\d:]+\): /);
    expect(c.counterexample).toMatchObject({ seed: 99 });
    expect(JSON.stringify(c.counterexample!.value)).toContain('"limit":51');
    expect(result.evidence[c.exchange!]?.label).toMatch(/^memory query with /);
  }, 60_000);

  it('a model-based rule: the shrunk sequence, its seed and the exchange that broke the model', async () => {
    const result = await failingResult(['v8.missions.lifecycle.model/concurrent-cancels-two-terminal-events'], 'v8.missions.lifecycle.model', 11);
    const c = result.cases[0]!;
    expect(result.reason).toContain('seed 11');
    expect(result.reason).toContain('Reproduce: apicert certify --rules v8.missions.lifecycle.model --seed 11');
    expect(c.counterexample?.seed).toBe(11);
    expect(Array.isArray(c.counterexample?.value)).toBe(true);
    expect(c.exchange).toBeDefined();
    expect(result.evidence[c.exchange!]).toBeDefined();
  }, 120_000);
});
