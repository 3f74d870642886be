import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exitCodeFor, EXIT } from '../../src/cli/exit.ts';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { startFake } from '../../src/fake/server.ts';
import { RULES } from '../../src/registry.ts';
import { CheckFailure, defineRule, type CheckContext } from '../../src/rule/index.ts';
import { emptyCounts, gateOf } from '../../src/reports/model.ts';
import { certify } from '../../src/runner/certify.ts';
import { closestRuleIds, EmptySelection, selectRules } from '../../src/runner/run.ts';

const BIN = new URL('../../bin/apicert.js', import.meta.url).pathname;

function apicert(...args: string[]) {
  const result = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { code: result.status, out: result.stdout, err: result.stderr };
}

/** A rule of the harness's own, to see what the runner makes of how a check ends. */
function probeRule(id: string, check: (ctx: CheckContext) => Promise<void>) {
  return defineRule({ id: `v8.gate.${id}`, surface: 'v8', title: id, level: 'required', destructive: 'read', spec: { document: 'v8-integration-gateway.md', section: 'test', quote: 'test' }, check });
}

describe('no empty runs', () => {
  it('a --rules pattern that selects nothing is a usage error naming the closest rule ids', () => {
    expect(() => selectRules(RULES, { patterns: ['v8.mission.*'] })).toThrow(EmptySelection);
    expect(closestRuleIds('v8.mission.*', RULES)[0]).toBe('v8.missions.*');
    expect(closestRuleIds('v1.auth', RULES)).toContain('v1.auth.*');
    // One good pattern does not hide a typo in another.
    expect(() => selectRules(RULES, { patterns: ['v8.missions.*', 'v1.atuh.*'] })).toThrow(/v1\.atuh\.\*.*closest: v1\.auth\.\*/);
    expect(() => selectRules(RULES, { surfaces: ['mcp'], patterns: ['v8.missions.*'] })).toThrow(/on --surface mcp/);
  });

  it('exits 2 for an empty selection and for an empty format list, before touching a target', () => {
    // Never the checkout's reports/: a test leaves nothing there.
    const out = mkdtempSync(join(tmpdir(), 'apicert-gate-'));
    const typo = apicert('certify', '--rules', 'v8.mission.*', '--quiet', '--out', out);
    expect(typo.code).toBe(EXIT.usage);
    expect(typo.err).toMatch(/--rules "v8.mission.\*" selects no rule; closest: v8\.missions\.\*/);
    const bare = apicert('certify', '--rules', 'v1.auth', '--quiet', '--out', out);
    expect(bare.code).toBe(EXIT.usage);
    expect(bare.err).toMatch(/closest: v1\.auth\.\*/);
    for (const format of [',', '', 'pdf']) {
      const run = apicert('certify', '--format', format, '--rules', 'v8.missions.get.ok', '--quiet', '--out', mkdtempSync(join(tmpdir(), 'apicert-gate-')));
      expect(run.code, format).toBe(EXIT.usage);
    }
  });

  it('the summary line and every report say how many rules were judged of those selected', () => {
    const out = mkdtempSync(join(tmpdir(), 'apicert-gate-'));
    const run = apicert('certify', '--rules', 'v8.missions.get.*', '--out', out, '--seed', '5', '--quiet');
    expect(run.code, run.err).toBe(0);
    expect(run.out).toMatch(/judged 3 of 3 selected rules/);
    const report = JSON.parse(readFileSync(join(out, 'latest', 'report.json'), 'utf8')) as { summary: { judged: number; selected: number } };
    expect(report.summary).toMatchObject({ judged: 3, selected: 3 });
    for (const file of ['junit.xml', 'summary.md', 'report.html']) expect(readFileSync(join(out, 'latest', file), 'utf8'), file).toMatch(/judged 3 of 3 selected rules/);
  });
});

describe('--variant', () => {
  it('takes a legal alternative on the embedded fake; an unknown or conflicting variant is a usage error', () => {
    const out = mkdtempSync(join(tmpdir(), 'apicert-gate-'));
    // A SHOULD rule alone gates only with --strict (without it the run judged nothing that gates: inconclusive).
    const run = apicert('certify', '--variant', 'mcp.session/never-issued-400', '--rules', 'mcp.session.never-issued', '--strict', '--out', out, '--quiet');
    expect(run.code, run.err).toBe(EXIT.pass);
    const report = JSON.parse(readFileSync(join(out, 'latest', 'report.json'), 'utf8')) as { target: { variants: string[] }; observations: Array<{ subject: string; value: unknown }> };
    expect(report.target.variants).toEqual(['mcp.session/never-issued-400']);
    expect(report.observations.find((o) => o.subject === 'a never-issued Mcp-Session-Id answered')?.value).toBe(400);
    expect(apicert('certify', '--variant', 'no.such/variant').code).toBe(EXIT.usage);
    const conflict = apicert('certify', '--variant', 'mcp.transport/json-only,mcp.sse/every-answer-streamed');
    expect(conflict.code).toBe(EXIT.usage);
    expect(conflict.err).toMatch(/same point/);
  });
});

describe('untestable only for a named missing prerequisite', () => {
  it('a run in which no rule judged anything is inconclusive, never a pass: certify, a client or a receiver alike', async () => {
    const fake = await startFake();
    try {
      const nothing = probeRule('nothing-to-judge', async (ctx) => ctx.notApplicable('the target offers nothing this rule judges'));
      const { report } = await certify({ profile: embeddedProfile(fake), rules: [nothing], seed: 1 });
      expect(report.summary).toMatchObject({ judged: 0, gate: 'inconclusive' });
      expect(exitCodeFor(report.summary, true)).toBe(EXIT.inconclusive);
      const judged = probeRule('judged', async (ctx) => {
        const res = await ctx.http.send({ method: 'GET', path: '/v8/missions/00000000-0000-7000-8000-000000000000', credential: null });
        ctx.check(res.status === 401, `answered ${res.status}`);
      });
      expect((await certify({ profile: embeddedProfile(fake), rules: [nothing, judged], seed: 1 })).report.summary).toMatchObject({ judged: 1, gate: 'pass' });
    } finally {
      await fake.close();
    }
  });

  it('an exhausted request budget is inconclusive and gates with exit 3', async () => {
    const fake = await startFake();
    try {
      const profile = embeddedProfile(fake);
      profile.safety.requestBudget = 3;
      const { report, results } = await certify({ profile, patterns: ['v8.missions.get.*', 'v8.errors.*'], seed: 1 });
      const starved = results.filter((r) => /request budget/.test(r.reason ?? ''));
      expect(starved.length).toBeGreaterThan(0);
      for (const r of starved) expect(r.verdict, r.rule.id).toBe('inconclusive');
      expect(report.summary.gate).toBe('inconclusive');
      expect(exitCodeFor(report.summary, true)).toBe(EXIT.inconclusive);
    } finally {
      await fake.close();
    }
  });

  it('a request budget that runs out inside a property is inconclusive, with no counterexample', async () => {
    const fake = await startFake();
    try {
      const profile = embeddedProfile(fake);
      profile.safety.requestBudget = 50;
      const patterns = ['v8.missions.create.budget-bounds', 'v8.missions.idempotency.key-format', 'v8.memory.query.bounds', 'v8.capabilities.search.validation', 'v1.execute.turn.bodies'];
      const { results } = await certify({ profile, patterns, seed: 1 });
      expect(results).toHaveLength(5);
      for (const r of results) {
        expect(r.verdict, `${r.rule.id}: ${r.reason}`).not.toBe('fail');
        if (r.verdict === 'inconclusive') expect(r.reason, r.rule.id).toMatch(/request budget/);
        expect(r.reason ?? '', r.rule.id).not.toMatch(/counterexample|property failed/);
      }
      expect(results.filter((r) => r.verdict === 'inconclusive').length).toBeGreaterThan(0);
    } finally {
      await fake.close();
    }
  });

  it('a property that truly fails keeps its counterexample even when shrinking runs out of budget', async () => {
    const fake = await startFake();
    try {
      const profile = embeddedProfile(fake);
      profile.safety.requestBudget = 12;
      const rule = probeRule('shrinks', async (ctx) => {
        const fc = (await import('fast-check')).default;
        await ctx.property(fc.integer({ min: 0, max: 1000 }), async (n) => {
          await ctx.http.send({ method: 'GET', path: '/v8/health', credential: null, label: 'health' });
          if (n > 10) throw new CheckFailure(`n = ${n} is too large`);
        }, { numRuns: 20 });
      });
      const { results } = await certify({ profile, rules: [rule], seed: 3 });
      expect(results[0]!.verdict, results[0]!.reason).toBe('fail');
      expect(results[0]!.reason).toMatch(/too large/);
    } finally {
      await fake.close();
    }
  });

  it('untestable comes only from a missing prerequisite as a value; the reason is written from it', async () => {
    const rules = [
      probeRule('setup', async (ctx) => ctx.inconclusive('setup failed: the create answered 500')),
      probeRule('named', async (ctx) => ctx.untestable({ need: 'fixture', path: 'v8.skillId', remedy: 'give one' })),
      probeRule('role', async (ctx) => ctx.untestable({ need: 'credential', role: 'v8:expired', remedy: 'add an expired token' })),
    ];
    const { results } = await certify({ rules, seed: 1 });
    expect(results.map((r) => r.verdict)).toEqual(['inconclusive', 'untestable', 'untestable']);
    expect(results.slice(1).map((r) => r.reason)).toEqual(['fixture fixtures.v8.skillId is not set: give one', 'credential v8:expired: add an expired token']);
  });

  it('--allow-untestable never turns a run in which no required rule passed into exit 0', () => {
    const required = { ...emptyCounts(), untestable: 5 };
    expect(exitCodeFor({ gate: gateOf(required), required }, true)).toBe(EXIT.fail);
    const some = { ...emptyCounts(), untestable: 5, pass: 1 };
    expect(exitCodeFor({ gate: gateOf(some), required: some }, true)).toBe(EXIT.pass);
    expect(exitCodeFor({ gate: gateOf(some), required: some }, false)).toBe(EXIT.fail);
  });
});

describe('no vacuous pass', () => {
  it('the runner refuses a pass from a check that judged no answer of the target', async () => {
    const rules = [
      // Judges only its own input: an expectation, but no exchange.
      probeRule('own-input', async (ctx) => ctx.expect([].length === 0, 'an empty list is empty')),
      // Judges nothing at all.
      probeRule('nothing', async () => undefined),
      // Judges an answer: passes.
      probeRule('answered', async (ctx) => {
        const res = await ctx.http.send({ method: 'GET', path: '/v8/missions/00000000-0000-7000-8000-000000000000', credential: null });
        ctx.expect(res.status >= 400, 'refused');
      }),
    ];
    const { results } = await certify({ rules, seed: 1 });
    expect(results.map((r) => r.verdict)).toEqual(['inconclusive', 'inconclusive', 'pass']);
    expect(results[0]!.reason).toMatch(/judged no answer of the target/);
  });
});

describe('SHOULD rules', () => {
  it('a failed SHOULD is a warning, and gates only in a strict run', () => {
    const required = { ...emptyCounts(), pass: 3 };
    const should = { ...emptyCounts(), fail: 1 };
    expect(gateOf(required, should, false)).toBe('pass');
    expect(gateOf(required, should, true)).toBe('fail');
  });
});
