import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RULES } from '../../src/registry.ts';
import { LOAD_FAULTS, ruleOfFault, type FaultId } from '../../src/fake/faults/index.ts';
import { ENV_VARS } from '../../src/load/config.ts';
import { LOAD_RULES, LOAD_SCRIPTS, metricOf } from '../../src/load/rules.ts';
import { certify } from '../../src/runner/certify.ts';
import { selectRules } from '../../src/runner/run.ts';
import { normalizedSpec } from '../support/spec.ts';
import { CATCHES } from './catches.ts';

describe('load rules', () => {
  it.each(LOAD_RULES.map((r) => [r.id, r] as const))('%s quotes its spec verbatim', (_id, rule) => {
    // Sentences from several places are joined by " … ", as certify's quotes are: each stands verbatim.
    for (const part of rule.spec.quote.split(' … ')) expect(normalizedSpec(rule.spec.document)).toContain(part.replace(/\s+/g, ' '));
  });

  it('have load.<surface>. ids unlike any certify rule, and distinct k6 metric names', () => {
    for (const r of LOAD_RULES) expect(r.id.startsWith(`load.${r.surface}.`), r.id).toBe(true);
    expect(new Set(LOAD_RULES.map((r) => r.id)).size).toBe(LOAD_RULES.length);
    const metrics = LOAD_RULES.map((r) => metricOf(r.id));
    expect(new Set(metrics).size).toBe(metrics.length);
    for (const m of metrics) expect(m).toMatch(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/);
    const certifyIds = new Set(RULES.map((r) => r.id));
    for (const r of LOAD_RULES) expect(certifyIds.has(r.id)).toBe(false);
    for (const s of LOAD_SCRIPTS) expect(LOAD_RULES.some((r) => r.script === s), s).toBe(true);
  });

  it('each required rule has a fault its verdict is shown to catch, and each load fault is used', () => {
    const rows = Object.values(CATCHES).flat();
    for (const rule of LOAD_RULES.filter((r) => r.level === 'required')) expect(rows.some((c) => c.rule === rule.id), rule.id).toBe(true);
    for (const fault of LOAD_FAULTS) expect(rows.some((c) => c.fault === fault.id && c.rule === ruleOfFault(fault.id)), fault.id).toBe(true);
    for (const row of rows) expect(LOAD_RULES.find((r) => r.id === row.rule)?.script, row.rule).toBeDefined();
  });

  it('are documented: every script, setting and load fault appears in docs/load.md', () => {
    const readme = readFileSync(new URL('../../docs/load.md', import.meta.url), 'utf8');
    for (const name of [...LOAD_SCRIPTS, ...ENV_VARS.map((v) => v.name), ...LOAD_FAULTS.map((f) => f.id)]) expect(readme, name).toContain(`\`${name}\``);
  });
});

// A load fault bites only under concurrency or a burst: certification of the areas it touches
// must give the same verdicts with it on as without.
const AREAS: Record<string, string[]> = {
  'load.v8': ['v8.missions.*'],
  'load.v1.idempotency': ['v1.execute.*'],
  'load.v1.events': ['v1.runs.*'],
  'load.v1.rate-limit': ['v1.errors.*', 'v1.execute.idempotency.*'],
};
const areasOf = (fault: string) => AREAS[Object.keys(AREAS).find((prefix) => fault.startsWith(prefix))!]!;

/**
 * A load fault whose effect other rules' bursts may reach within one run, and the rule whose sentence
 * it then breaks: certify's judgement over the whole run (src/runner/run-judgement.ts) may fail that
 * rule, and nothing else. Whether a burst of the run trips it is timing, so it may also pass.
 */
const MAY_SHOW_IN_THE_RUN: Record<string, string> = {
  // "After three refusals in one window": the rate-limit rules' bursts refuse more than three.
  'load.v1.rate-limit.429-shape/retryable-false-under-burst': 'v1.errors.rate-limited',
};

describe.concurrent('load faults leave certification alone', () => {
  it.each(LOAD_FAULTS.map((f) => [f.id] as const))('%s', async (fault) => {
    const patterns = areasOf(fault);
    // The model-based rules read one mission or run from the start many times in a row, which the
    // fake's crowd proxy (the fifth reader from the start) cannot tell from a crowd: they catch these faults.
    const rules = selectRules(RULES, { patterns }).filter((r) => !r.id.endsWith('.lifecycle.model'));
    const verdicts = async (faults: FaultId[]) => Object.fromEntries((await certify({ faults, rules, seed: 7 })).results.map((r) => [r.rule.id, r.verdict]));
    const clean = await verdicts([]);
    expect(Object.keys(clean).length).toBeGreaterThan(3);
    const faulty = await verdicts([fault]);
    const shows = MAY_SHOW_IN_THE_RUN[fault];
    if (shows !== undefined && faulty[shows] === 'fail') faulty[shows] = clean[shows]!;
    expect(faulty).toEqual(clean);
  });
});
