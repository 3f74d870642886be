import { describe, expect, it } from 'vitest';
import type { CheckContext, EvidenceEntry, Rule } from '../../src/rule/index.ts';
import { RequestBudget } from '../../src/probe/budget.ts';
import { createDispatcher, ProbeClient } from '../../src/probe/client.ts';
import { profileSchema } from '../../src/profile/schema.ts';
import { Redactor } from '../../src/redact/redactor.ts';
import { renderHtml } from '../../src/reports/html.ts';
import { renderJunit } from '../../src/reports/junit.ts';
import { renderMarkdown } from '../../src/reports/markdown.ts';
import { buildReport } from '../../src/reports/model.ts';
import { MAX_FAILING_CASES } from '../../src/runner/check-context.ts';
import { runRule } from '../../src/runner/run.ts';
import { certify } from '../../src/runner/certify.ts';

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

function rule(check: (ctx: CheckContext) => Promise<void>): Rule {
  return {
    id: 'v1.test.cases',
    surface: 'v1',
    title: 'test rule',
    level: 'required',
    destructive: 'read',
    spec: { document: 'v1-execution-fabric.md', section: 'Test', quote: 'test' },
    needs: {},
    check,
  };
}

/** An exchange the check did not send: no network needed, and `subject` links it for `on`. */
function exchange(ctx: CheckContext, label: string, subject?: object): number {
  const entry: EvidenceEntry = { label, request: { method: 'POST', url: 'http://127.0.0.1:9/hook', headers: {} }, durationMs: 0, curl: '#', direction: 'received' };
  return ctx.http.record(entry, subject);
}

const run = (check: (ctx: CheckContext) => Promise<void>) => runRule(rule(check), { target: { baseUrl: profile.target, kind: 'remote' }, profile, seed: 1, probe });

describe('every failing case of a rule', () => {
  it('records each soft failure with the exchange that decided it, not the last one sent', async () => {
    const result = await run(async (ctx) => {
      const deliveries = [{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }];
      for (const d of deliveries) exchange(ctx, `delivery ${d.n}`, d);
      exchange(ctx, 'cleanup');
      for (const d of deliveries) ctx.check(d.n % 2 === 0, `delivery ${d.n} is odd`, d);
    });
    expect(result.verdict).toBe('fail');
    expect(result.cases.map((c) => c.reason)).toEqual(['delivery 1 is odd', 'delivery 3 is odd']);
    expect(result.cases.map((c) => result.evidence[c.exchange!]!.label)).toEqual(['delivery 1', 'delivery 3']);
    expect(result.reason).toBe('delivery 1 is odd (and 1 more failing case)');
  });

  it('blames the exchange current when expect failed, not a cleanup sent afterwards', async () => {
    const result = await run(async (ctx) => {
      exchange(ctx, 'the decisive request');
      try {
        ctx.expect(false, 'the decisive request was answered wrongly');
      } finally {
        exchange(ctx, 'cleanup DELETE');
      }
    });
    expect(result.verdict).toBe('fail');
    expect(result.cases).toHaveLength(1);
    expect(result.evidence[result.cases[0]!.exchange!]!.label).toBe('the decisive request');
  });

  it(`keeps the soft cases when a later expect stops the check, and caps them at ${MAX_FAILING_CASES}`, async () => {
    const soft = MAX_FAILING_CASES + 5;
    const result = await run(async (ctx) => {
      for (let i = 0; i < soft; i++) ctx.check(false, `case ${i}`);
      ctx.expect(false, 'the stopping case');
    });
    expect(result.verdict).toBe('fail');
    // The soft cases and the stopping one failed; the first is named, the others counted.
    expect(result.cases).toHaveLength(MAX_FAILING_CASES);
    expect(result.casesOmitted).toBe(soft + 1 - MAX_FAILING_CASES);
    expect(result.reason).toBe(`case 0 (and ${soft} more failing cases)`);
  });

  it('stays fail when a check that already found failing cases then lacks a fixture', async () => {
    const result = await run(async (ctx) => {
      ctx.check(false, 'first case broken');
      ctx.untestable({ need: 'credential', role: 'v1:other-principal', remedy: 'add a second key' });
    });
    expect(result.verdict).toBe('fail');
    expect(result.reason).toMatch(/^first case broken; the check then stopped: credential v1:other-principal: add a second key/);
  });

  it('passes only when every case held, and never on a check that judged nothing', async () => {
    const answered = await run(async (ctx) => {
      ctx.http.record({ label: 'answered', request: { method: 'GET', url: 'http://127.0.0.1:9/', headers: {} }, response: { status: 200, headers: {} }, durationMs: 0, curl: '#' });
      ctx.check(true, 'fine');
    });
    expect(answered.verdict).toBe('pass');
    const empty = await run(async () => undefined);
    expect(empty.verdict).toBe('inconclusive');
    expect(empty.cases).toEqual([]);
  });

  it('keeps every deciding exchange when long evidence is trimmed', async () => {
    const result = await run(async (ctx) => {
      const subjects = Array.from({ length: 100 }, (_, i) => ({ i }));
      for (const s of subjects) exchange(ctx, `exchange ${s.i}`, s);
      ctx.check(false, 'exchange 50 is wrong', subjects[50]);
    });
    expect(result.evidenceOmitted).toBe(100 - 10 - 30 - 1);
    expect(result.evidence[result.cases[0]!.exchange!]!.label).toBe('exchange 50');
  });

  it('keeps the shrunk counterexample and seed of a property-based rule', async () => {
    const { results } = await certify({ faults: ['v8.memory.query.bounds/limit-51'], patterns: ['v8.memory.query.bounds'], seed: 99 });
    const failed = results[0]!;
    expect(failed.verdict).toBe('fail');
    const c = failed.cases[0]!;
    expect(c.counterexample?.seed).toBe(99);
    expect(c.counterexample?.value).toBeDefined();
    expect(c.exchange).toBeDefined();
  });

  it('reports every broken error body of /v1, each with its own request', async () => {
    const { results } = await certify({ faults: ['v1.errors.problem-shape/extra-member'], patterns: ['v1.errors.problem-shape'], seed: 3 });
    const failed = results[0]!;
    expect(failed.verdict).toBe('fail');
    expect(failed.cases.length).toBeGreaterThan(3);
    const labels = failed.cases.map((c) => failed.evidence[c.exchange!]!.label);
    expect(new Set(labels).size).toBe(labels.length);
    expect(labels).toContain('execute with malformed JSON');
  });
});

describe('the reports show every failing case up to the cap and count the rest', () => {
  const broken = MAX_FAILING_CASES + 5;
  it(`HTML, Markdown and JUnit list cases 1-${MAX_FAILING_CASES}, each with its own request, and say ${broken - MAX_FAILING_CASES} more were cut`, async () => {
    const result = await run(async (ctx) => {
      // Broken cases past the cap, each decided by an exchange of its own (recorded, not sent: no network needed).
      for (let i = 1; i <= broken; i += 1) {
        const subject = { i };
        const url = `http://127.0.0.1:9/item/${i}`;
        ctx.http.record({ label: `probe ${i}`, request: { method: 'GET', url, headers: {} }, response: { status: 500, headers: {} }, durationMs: 0, curl: `curl ${url}` }, subject);
        ctx.check(false, `item ${i} answered 500`, subject);
      }
    });
    expect(result.cases).toHaveLength(MAX_FAILING_CASES);
    expect(result.casesOmitted).toBe(broken - MAX_FAILING_CASES);
    const now = new Date();
    const report = buildReport({ results: [result], version: 'test', target: { baseUrl: profile.target, kind: 'remote' }, startedAt: now, finishedAt: now, seed: 1, requests: broken });
    const [html, markdown, junit] = [renderHtml(report), renderMarkdown(report), renderJunit(report)];
    for (let i = 1; i <= MAX_FAILING_CASES; i += 1) {
      expect(html).toContain(`<b>Case ${i}.</b> item ${i} answered 500`);
      expect(html).toContain(`curl http://127.0.0.1:9/item/${i}</pre>`);
      expect(markdown).toContain(`${i}. item ${i} answered 500`);
      expect(markdown).toContain(`   curl http://127.0.0.1:9/item/${i}\n`);
      expect(junit).toContain(`case ${i}: item ${i} answered 500`);
      expect(junit).toContain(`  curl http://127.0.0.1:9/item/${i}\n`);
    }
    for (const text of [html, markdown, junit]) expect(text).not.toContain(`item ${MAX_FAILING_CASES + 1} answered 500`);
    const cut = broken - MAX_FAILING_CASES;
    expect(html).toContain(`… and ${cut} more failing cases`);
    expect(markdown).toContain(`… and ${cut} more failing cases`);
    expect(junit).toContain(`... and ${cut} more failing cases`);
  });
});
