/**
 * A rule with several broken cases reports each of them, with the exchange that decided it: the
 * fake is certified with faults that break two or more cases of one rule at once, and the reports
 * show every case up to the cap and say how many more were cut.
 */
import { describe, expect, it } from 'vitest';
import type { FaultId } from '../../src/fake/faults/index.ts';
import { RequestBudget } from '../../src/probe/budget.ts';
import { createDispatcher, ProbeClient } from '../../src/probe/client.ts';
import { profileSchema } from '../../src/profile/schema.ts';
import { Redactor } from '../../src/redact/redactor.ts';
import { renderHtml } from '../../src/reports/html.ts';
import { renderJunit } from '../../src/reports/junit.ts';
import { renderMarkdown } from '../../src/reports/markdown.ts';
import { buildReport } from '../../src/reports/model.ts';
import type { EvidenceEntry, Rule, RuleResult } from '../../src/rule/index.ts';
import { certify } from '../../src/runner/certify.ts';
import { MAX_FAILING_CASES } from '../../src/runner/check-context.ts';
import { runRule } from '../../src/runner/run.ts';

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
    const endpoints = ['execute', 'get run', 'run events', 'approve', 'cancel', 'usage'];
    expect(cases.map((c) => c.label).sort()).toEqual(endpoints.map((e) => `${e} without an API key`).sort());
    for (const c of cases) {
      expect(c.reason.startsWith(c.label), `"${c.reason}" is judged on "${c.label}"`).toBe(true);
    }
    expect(result.reason).toMatch(/\(and 5 more failing cases\)$/);
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
    for (const c of cases) expect(c.reason).toContain(`an Idempotency-Key of ${why(c)}`);
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
    const result = await failingResult(['v8.missions.idempotency.key-format/accepts-15-chars'], 'v8.missions.idempotency.key-format', 99);
    const c = result.cases[0]!;
    expect(result.reason).toMatch(/^property failed after \d+ runs \(seed 99, path [\d:]+\): /);
    expect(c.counterexample).toMatchObject({ seed: 99 });
    expect((c.counterexample!.value as { key: string }).key).toHaveLength(15);
    expect(result.evidence[c.exchange!]?.label).toContain('15 characters');
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

describe('the reports show every case up to the cap and count the rest', () => {
  const profile = profileSchema.parse({ target: 'http://127.0.0.1:9' });
  const probe = new ProbeClient({
    baseUrl: profile.target,
    redactor: new Redactor(),
    budget: new RequestBudget(10),
    timeoutMs: 1000,
    streamTimeoutMs: 1000,
    streamCloseGraceMs: 100,
    dispatcher: createDispatcher(),
  });
  const rule: Rule = {
    id: 'v1.test.many-cases',
    surface: 'v1',
    title: 'a rule with many broken cases',
    level: 'required',
    destructive: 'read',
    spec: { document: 'v1-execution-fabric.md', section: 'Test', quote: 'test' },
    needs: {},
    async check(ctx) {
      // 25 broken cases, each decided by its own exchange (not sent: no network needed).
      for (let i = 1; i <= 25; i += 1) {
        const subject = { i };
        ctx.http.record({ label: `probe ${i}`, request: { method: 'GET', url: `http://127.0.0.1:9/item/${i}`, headers: {} }, response: { status: 500, headers: {} }, durationMs: 0, curl: `curl http://127.0.0.1:9/item/${i}` }, subject);
        ctx.check(false, `item ${i} answered 500`, subject);
      }
    },
  };

  it('HTML, Markdown and JUnit list cases 1-20 with their own request and say 5 more were cut', async () => {
    const result = await runRule(rule, { target: { baseUrl: profile.target, kind: 'remote' }, profile, seed: 1, probe });
    expect(result.cases).toHaveLength(MAX_FAILING_CASES);
    expect(result.casesOmitted).toBe(5);
    const now = new Date();
    const report = buildReport({ results: [result], version: 'test', target: { baseUrl: profile.target, kind: 'remote' }, startedAt: now, finishedAt: now, seed: 1, requests: 25 });
    const html = renderHtml(report);
    const markdown = renderMarkdown(report);
    const junit = renderJunit(report);
    for (let i = 1; i <= MAX_FAILING_CASES; i += 1) {
      expect(html).toContain(`<b>Case ${i}.</b> item ${i} answered 500`);
      expect(html).toContain(`curl http://127.0.0.1:9/item/${i}</pre>`);
      expect(markdown).toContain(`${i}. item ${i} answered 500`);
      expect(markdown).toContain(`   curl http://127.0.0.1:9/item/${i}\n`);
      expect(junit).toContain(`case ${i}: item ${i} answered 500`);
      expect(junit).toContain(`  curl http://127.0.0.1:9/item/${i}\n`);
    }
    for (const text of [html, markdown, junit]) expect(text).not.toContain('item 21 answered 500');
    expect(html).toContain('… and 5 more failing cases');
    expect(markdown).toContain('… and 5 more failing cases');
    expect(junit).toContain('... and 5 more failing cases');
  });
});
