/**
 * The run controls users bring from Schemathesis and pytest: --exclude (deselect), --max-failures
 * (stop early) and --rerun (what an earlier report did not pass, with its seed), alone and together
 * with --surface, --rules, baselines and the request budget.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadRerun } from '../../src/cli/rerun.ts';
import { RULES } from '../../src/registry.ts';
import { renderHtml } from '../../src/reports/html.ts';
import { renderJunit } from '../../src/reports/junit.ts';
import { renderMarkdown } from '../../src/reports/markdown.ts';
import type { Report } from '../../src/reports/model.ts';
import { certify } from '../../src/runner/certify.ts';
import { EmptySelection } from '../../src/runner/run.ts';
import { selectForRun } from '../../src/runner/selection.ts';

const BIN = fileURLToPath(new URL('../../bin/apicert.js', import.meta.url));
const ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => !['FORCE_COLOR', 'NO_COLOR', 'GITHUB_STEP_SUMMARY', 'CI'].includes(k)));
// What each breaks, quickly: SEQUENCE v8.missions.get.ok (and v8.missions.cancel.cancelled), SERVER_ERROR
// v8.missions.get.unknown-404 and v8.missions.get.other-principal-404, LEAKS v8.missions.get.other-principal-404 (slowly).
const SEQUENCE = 'v8.missions.get.ok/sequence-as-string';
const SERVER_ERROR = 'v8.missions.get.unknown-404/server-error';
const LEAKS = 'v8.missions.get.other-principal-404/leaks';

function apicert(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000, env: ENV }, (error, out, err) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, out, err });
    });
  });
}

const tmp = () => mkdtempSync(join(tmpdir(), 'apicert-selection-'));
const readReport = (dir: string): Report => JSON.parse(readFileSync(join(dir, 'latest', 'report.json'), 'utf8')) as Report;

describe('selecting for a run', () => {
  it('--exclude sets rules aside with the pattern that matched, after --surface and --rules', () => {
    const { rules, excluded } = selectForRun(RULES, { surfaces: ['v8'], patterns: ['v8.missions.get.*'], exclude: ['v8.missions.get.ok', 'v8.memory.*'] });
    expect(rules.map((r) => r.id)).not.toContain('v8.missions.get.ok');
    const rest = RULES.filter((r) => r.id.startsWith('v8.missions.get.') && r.id !== 'v8.missions.get.ok').map((r) => r.id);
    expect(rest.length, 'v8.missions.get.* holds rules beside get.ok').toBeGreaterThan(0);
    expect(rules.map((r) => r.id).sort()).toEqual(rest.sort());
    expect(excluded.map((e) => [e.rule.id, e.pattern])).toEqual([['v8.missions.get.ok', 'v8.missions.get.ok']]);
  });

  it('an exclusion that matches no rule on the surfaces is a usage error with the closest ids; excluding everything too', () => {
    expect(() => selectForRun(RULES, { exclude: ['v8.mision.*'] })).toThrow(EmptySelection);
    expect(() => selectForRun(RULES, { exclude: ['v8.mision.*'] })).toThrow(/--exclude "v8\.mision\.\*" matches no rule; closest: v8\.missions\.\*/);
    expect(() => selectForRun(RULES, { surfaces: ['mcp'], exclude: ['v8.memory.*'] })).toThrow(/on --surface mcp/);
    expect(() => selectForRun(RULES, { patterns: ['v8.missions.get.*'], exclude: ['v8.missions.*'] })).toThrow(/sets aside every selected rule/);
  });

  it('--rerun keeps exactly the ids it names, within --rules; none left is a usage error naming the report', () => {
    const only = { ids: ['v8.missions.get.ok', 'v1.runs.get.ok', 'gone.rule.id'], from: 'old/report.json' };
    expect(selectForRun(RULES, { only }).rules.map((r) => r.id).sort()).toEqual(['v1.runs.get.ok', 'v8.missions.get.ok'].filter((id) => RULES.some((r) => r.id === id)).sort());
    expect(() => selectForRun(RULES, { only, surfaces: ['mcp'] })).toThrow(/--rerun old\/report\.json: none of the 3 rule\(s\)/);
    // An exclusion a CI line keeps matches the catalog, not what the rerun left.
    expect(selectForRun(RULES, { only, exclude: ['v8.memory.*'] }).excluded).toEqual([]);
  });
});

describe('--exclude in every report', () => {
  it('lists excluded rules apart, never as passed and never counted', async () => {
    const { report } = await certify({ patterns: ['v8.missions.get.*'], exclude: ['v8.missions.get.other-principal-404'], faults: [LEAKS], seed: 1 });
    expect(report.summary.gate).toBe('pass');
    expect(report.rules.map((r) => r.id)).not.toContain('v8.missions.get.other-principal-404');
    expect(report.excluded).toEqual([expect.objectContaining({ id: 'v8.missions.get.other-principal-404', level: 'required', excludedBy: 'v8.missions.get.other-principal-404' })]);
    expect(report.summary.selected).toBe(report.rules.length);
    expect(renderMarkdown(report)).toContain('| `v8.missions.get.other-principal-404` | required |');
    expect(renderMarkdown(report)).toContain('excluded by --exclude "v8.missions.get.other-principal-404": not run, not counted, not a pass');
    expect(renderHtml(report)).toMatch(/<code>v8\.missions\.get\.other-principal-404<\/code> <span class="meta">required: excluded by --exclude/);
    expect(renderJunit(report)).toMatch(/name="v8\.missions\.get\.other-principal-404" time="0\.000">\s*<skipped>excluded by --exclude/);
  }, 30_000);
});

describe('--max-failures', () => {
  it('starts no rule after N required failures: the rest are not run, the gate fails and the report says why', async () => {
    // One rule at a time, so which rules ran is certain: those up to the first failure.
    const { report } = await certify({ patterns: ['v8.missions.*'], faults: [SEQUENCE], maxFailures: 1, seed: 1, adjustEmbeddedProfile: (p) => ({ ...p, safety: { ...p.safety, concurrency: 1 } }) });
    expect(report.summary.gate).toBe('fail');
    expect(report.summary.required.fail).toBe(1);
    expect(report.run.stopped).toBe('--max-failures 1: 1 required rule failed (v8.missions.get.ok); the rules not yet started were not run');
    const at = report.rules.findIndex((r) => r.id === 'v8.missions.get.ok');
    expect(report.rules[at]!.verdict).toBe('fail');
    const after = report.rules.slice(at + 1);
    expect(after.length).toBeGreaterThan(10);
    for (const r of after) {
      expect(r.verdict).toBe('inconclusive');
      expect(r.reason).toMatch(/^not run: --max-failures 1: /);
      expect(r.evidence).toEqual([]);
    }
    expect(report.rules.slice(0, at).every((r) => !r.reason?.startsWith('not run'))).toBe(true);
  }, 60_000);

  it('does not count a failure the baseline expects, nor stop a run that stays under the limit', async () => {
    const baseline = { file: 'baseline.yaml', entries: [{ rule: 'v8.missions.get.unknown-404', reason: 'known' }, { rule: 'v8.missions.get.other-principal-404', reason: 'known' }] };
    const { report } = await certify({ patterns: ['v8.missions.get.*'], faults: [SERVER_ERROR], maxFailures: 1, baseline, seed: 1 });
    expect(report.run.stopped).toBeUndefined();
    expect(report.summary.expectedFailures.sort()).toEqual(['v8.missions.get.other-principal-404', 'v8.missions.get.unknown-404']);
    const { report: under } = await certify({ patterns: ['v8.missions.get.*'], faults: [SERVER_ERROR], maxFailures: 3, seed: 1 });
    expect(under.run.stopped).toBeUndefined();
    expect(under.rules.some((r) => r.reason?.startsWith('not run'))).toBe(false);
  }, 60_000);
});

describe('together with --surface, --rules and the request budget', () => {
  it('excludes, stops at the limit and leaves budget-starved rules inconclusive, which a rerun then takes again', async () => {
    // One rule at a time, so which rules the budget reaches is the catalogue's order, not a race between
    // concurrent rules (a concurrent budget-hungry rule drained it before the failing ones on a busy machine).
    const patterns = ['v8.missions.get.*', 'v8.missions.signals.*', 'v8.missions.cancel.*'];
    const { report } = await certify({
      surfaces: ['v8'],
      patterns,
      exclude: ['v8.missions.cancel.*'],
      maxFailures: 5,
      faults: [SEQUENCE, SERVER_ERROR],
      seed: 3,
      adjustEmbeddedProfile: (p) => ({ ...p, safety: { ...p.safety, requestBudget: 15, concurrency: 1 } }),
    });
    expect(report.excluded?.map((e) => e.id).sort()).toEqual(RULES.filter((r) => r.id.startsWith('v8.missions.cancel.')).map((r) => r.id).sort());
    // Every rule of the selection is reported, those the limit stopped too, and no other.
    const selected = selectForRun(RULES, { surfaces: ['v8'], patterns, exclude: ['v8.missions.cancel.*'] }).rules.map((r) => r.id);
    expect(selected.length).toBeGreaterThan(0);
    expect(selected.every((id) => id.startsWith('v8.missions.get.') || id.startsWith('v8.missions.signals.'))).toBe(true);
    expect(report.rules.map((r) => r.id).sort()).toEqual(selected.sort());
    expect(report.run.requests).toBeLessThanOrEqual(15);
    expect(report.summary.gate).toBe('fail');
    const starved = report.rules.filter((r) => r.verdict === 'inconclusive' || r.verdict === 'untestable');
    expect(starved.length).toBeGreaterThan(0);
    const dir = tmp();
    writeFileSync(join(dir, 'report.json'), JSON.stringify(report));
    const rerun = await loadRerun(dir);
    expect(rerun.seed).toBe(3);
    expect(rerun.ids.sort()).toEqual(report.rules.filter((r) => ['fail', 'inconclusive', 'untestable'].includes(r.verdict)).map((r) => r.id).sort());
    expect(rerun.ids).toEqual(expect.arrayContaining(starved.map((r) => r.id)));
  }, 60_000);
});

describe('the rerun loop on the command line: fix, rerun the failures, run everything once more', () => {
  it('reruns exactly what failed with its seed, says where it took them from, and combines with --rules and --exclude', async () => {
    const first = tmp();
    const run1 = await apicert(['certify', '--rules', 'v8.missions.get.*,v8.missions.auth.*', '--faults', SERVER_ERROR, '--seed', '77', '--out', first, '--format', 'json', '--quiet']);
    expect(run1.code, run1.err).toBe(1);
    const failed = readReport(first).rules.filter((r) => r.verdict !== 'pass' && r.verdict !== 'not-applicable').map((r) => r.id).sort();
    expect(failed).toEqual(['v8.missions.get.other-principal-404', 'v8.missions.get.unknown-404']);
    const second = tmp();
    // Still broken: the same failures, the same seed, nothing else run.
    const run2 = await apicert(['certify', '--rerun', join(first, 'latest'), '--faults', SERVER_ERROR, '--out', second, '--format', 'json', '--quiet']);
    expect(run2.code, run2.err).toBe(1);
    expect(run2.out).toContain(`rerunning 2 rule(s) that were fail, inconclusive, untestable in ${join(first, 'latest', 'report.json')}, with its seed 77`);
    const rerun = readReport(second);
    expect(rerun.run.seed).toBe(77);
    expect(rerun.rules.map((r) => r.id).sort()).toEqual(failed);
    // Fixed (no faults): the rerun passes; --exclude and --rules narrow it further.
    const third = tmp();
    const run3 = await apicert(['certify', '--rerun', join(first, 'latest', 'report.json'), '--rules', 'v8.missions.get.*', '--exclude', 'v8.missions.get.other-principal-404', '--out', third, '--format', 'json', '--quiet']);
    expect(run3.code, run3.err).toBe(0);
    const fixed = readReport(third);
    expect(fixed.rules.map((r) => r.id)).toEqual(['v8.missions.get.unknown-404']);
    expect(fixed.excluded?.map((e) => e.id)).toEqual(['v8.missions.get.other-principal-404']);
  }, 120_000);

  it('misuse is exit 2 with a message, before anything runs', async () => {
    const dir = tmp();
    writeFileSync(join(dir, 'not-a-report.json'), '{"rules": "no"}');
    writeFileSync(join(dir, 'all-passed.json'), JSON.stringify({ run: { seed: 1 }, rules: [{ id: 'v8.missions.get.ok', verdict: 'pass' }] }));
    await expect(loadRerun(join(dir, 'not-a-report.json'))).rejects.toThrow(/is not an apicert report\.json/);
    // A report with nothing to rerun is good news, not a misuse: the command says so and exits 0.
    expect((await loadRerun(join(dir, 'all-passed.json'))).ids).toEqual([]);
    const nothing = await apicert(['certify', '--rerun', join(dir, 'all-passed.json'), '--out', dir]);
    expect(nothing.code, nothing.err).toBe(0);
    expect(nothing.out).toMatch(/nothing to rerun: no rule in .*all-passed\.json was fail, inconclusive, untestable; run everything once more without --rerun/);
    // On the command line (a few only: each start costs a second or more on a busy machine).
    const cases: Array<[string[], RegExp]> = [
      [['--rerun', join(dir, 'missing.json')], /--rerun .*missing\.json: cannot read .*\(ENOENT\): give the report\.json of an earlier run/],
      [['--rerun', join(dir, 'all-passed.json'), '--seed', '3'], /--rerun takes the seed of the report it reruns: drop --seed/],
      [['--max-failures', '0'], /--max-failures.*give a whole number of failures from 1/],
    ];
    const runs = await Promise.all(cases.map(([args]) => apicert(['certify', ...args, '--out', dir])));
    for (const [i, run] of runs.entries()) {
      expect(run.code, `${cases[i]![0].join(' ')}: ${run.err}`).toBe(2);
      expect(run.err).toMatch(cases[i]![1]);
      expect(run.err).not.toMatch(/\n\s+at .+:\d+:\d+/);
    }
  }, 120_000);
});
