/**
 * The readiness reports agree with the exit code and say what a signed gate covers (an audit's
 * findings, /tmp/a85/findings.md F1-F5, F7): JUnit is never green on a gate that is not, SHOULD
 * rules outside --strict certify nothing alone, verify names the run's scope, every file the
 * signature does not cover and the key id to compare, and a stale baseline entry says why it fails.
 */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exitCodeFor, EXIT } from '../../src/cli/exit.ts';
import { loadRerun } from '../../src/cli/rerun.ts';
import { RULES } from '../../src/registry.ts';
import { renderHtml } from '../../src/reports/html.ts';
import { renderJunit } from '../../src/reports/junit.ts';
import { renderMarkdown } from '../../src/reports/markdown.ts';
import { digestOf, gateWords, judgedLine, type Report } from '../../src/reports/model.ts';
import { keyIdOf, privateKeyFrom, signReport } from '../../src/reports/signature.ts';
import { certify } from '../../src/runner/certify.ts';
import { apicertWritten as apicert } from '../support/in-process-cli.ts';
import { validate, totals } from './junit-schema.ts';
import { certifyFake } from './support.ts';



const dir = mkdtempSync(join(tmpdir(), 'apicert-audit85-'));
const at = (name: string) => join(dir, name);
const SHOULD_RULE = 'mcp.session.missing-400';
const SHOULD_FAULT = 'mcp.session.missing-400/served-without-session';
const GET_FAULT = 'v8.missions.get.unknown-404/server-error';

describe('junit.xml on a gate that is not green (F1)', async () => {
  // Observation rules only: the gate is inconclusive since nothing that gates was judged.
  const observed = await certifyFake([], ['v8.goals.payload-form', 'v1.auth.scopes']);

  it('carries one <error> for the gate when no rule is red, valid against the Jenkins schema', async () => {
    const report = observed.report;
    expect(report.rules.every((r) => r.level === 'observation')).toBe(true);
    expect(report.summary.gate).toBe('inconclusive');
    expect(exitCodeFor(report.summary, false)).toBe(EXIT.inconclusive);
    const xml = renderJunit(report);
    expect(totals(xml)).toEqual({ tests: report.rules.length + 1, failures: 0, errors: 1 });
    expect(xml).toContain('<testcase classname="apicert" name="gate" time="0.000">');
    expect(xml).toContain(`<error message="gate INCONCLUSIVE: ${judgedLine(report.summary)}" type="inconclusive">`);
    expect(await validate(xml)).toEqual([]);
  });

  it('does the same when every rule was not applicable, and adds nothing where a rule is red already or the gate is green', async () => {
    const ids = observed.report.rules.map((r) => r.id);
    const nothing = observed.variant({ verdicts: Object.fromEntries(ids.map((id) => [id, 'not-applicable'])) });
    expect(nothing.summary.gate).toBe('inconclusive');
    const xml = renderJunit(nothing);
    expect(totals(xml).errors).toBe(1);
    expect(xml).toMatch(/<error message="gate INCONCLUSIVE: judged 0 of 2 selected rules \(pass or fail\)" type="inconclusive">no rule reached pass or fail/);
    expect(await validate(xml)).toEqual([]);
    // A run with a required rule judged: no gate testcase, whatever the gate.
    const required = await certifyFake([GET_FAULT], ['v8.missions.get.ok', 'v8.missions.get.unknown-404']);
    for (const report of [required.report, required.variant({ verdicts: { 'v8.missions.get.unknown-404': 'pass' } })]) {
      const rendered = renderJunit(report);
      expect(rendered).not.toContain('classname="apicert" name="gate"');
      expect(totals(rendered).failures + totals(rendered).errors > 0).toBe(exitCodeFor(report.summary, false) !== 0);
    }
  });
});

describe('SHOULD rules outside --strict gate nothing (F2)', async () => {
  const run = await certifyFake([SHOULD_FAULT], [SHOULD_RULE]);

  it('a run whose only judged rule is a failed SHOULD rule is INCONCLUSIVE in every format and the exit code', () => {
    const report = run.report;
    expect(report.rules.map((r) => [r.level, r.verdict])).toEqual([['should', 'fail']]);
    expect(report.summary.gate).toBe('inconclusive');
    expect(exitCodeFor(report.summary, false)).toBe(EXIT.inconclusive);
    expect(judgedLine(report.summary)).toBe('judged 1 of 1 selected rules (pass or fail), SHOULD and observation rules only: no rule that gates was judged (SHOULD rules gate only with --strict)');
    expect(renderMarkdown(report)).toContain('- Gate: **INCONCLUSIVE**');
    expect(renderHtml(report)).toMatch(/<span class="gate gate-inconclusive" id="gate">INCONCLUSIVE<\/span>/);
    const xml = renderJunit(report);
    expect(totals(xml).errors).toBe(1);
    expect(xml).toContain('gate INCONCLUSIVE; digest');
  });

  it('a passing SHOULD rule alone is inconclusive too; with --strict it gates (pass, or fail)', () => {
    const passed = run.variant({ verdicts: { [SHOULD_RULE]: 'pass' } });
    expect(passed.summary.gate).toBe('inconclusive');
    const strictPass = run.variant({ verdicts: { [SHOULD_RULE]: 'pass' }, strict: true });
    expect(strictPass.summary.gate).toBe('pass');
    expect(judgedLine(strictPass.summary)).toBe('judged 1 of 1 selected rules (pass or fail)');
    const strictFail = run.variant({ strict: true });
    expect(strictFail.summary.gate).toBe('fail');
    expect(gateWords(strictFail).words).toBe('FAIL');
  });

  it('on the command line the console line says INCONCLUSIVE and the exit code is 3', async () => {
    const cli = await apicert('certify', '--rules', SHOULD_RULE, '--faults', SHOULD_FAULT, '--seed', '4', '--out', at('should'), '--format', 'json,junit', '--quiet');
    expect(cli.code, cli.err).toBe(EXIT.inconclusive);
    expect(cli.out).toMatch(/gate INCONCLUSIVE - judged 1 of 1 selected rules \(pass or fail\), SHOULD and observation rules only/);
    expect(totals(readFileSync(join(at('should'), 'latest', 'junit.xml'), 'utf8')).errors).toBe(1);
  });

  it('--rerun takes only the rules that gated: a SHOULD warning is left out unless the run was strict', async () => {
    const folder = at('rerun-should');
    cpSync(join(at('should'), 'latest'), folder, { recursive: true, dereference: true });
    const loose = await loadRerun(folder);
    expect(loose.ids).toEqual([]);
    expect(loose.notGating).toBe(1);
    const strict = JSON.parse(readFileSync(join(folder, 'report.json'), 'utf8')) as Report;
    strict.summary.strict = true;
    writeFileSync(at('strict-report.json'), JSON.stringify(strict));
    expect((await loadRerun(at('strict-report.json'))).ids).toEqual([SHOULD_RULE]);
    const cli = await apicert('certify', '--rerun', folder, '--out', at('rerun-should-out'));
    expect(cli.code, cli.err).toBe(EXIT.pass);
    expect(cli.out).toMatch(/nothing to rerun: no rule that gates in .*report\.json was fail, inconclusive, untestable; 1 rule\(s\) that gate nothing there/);
  });
});

describe('verify says what a signed report covers (F3, F4, F5)', async () => {
  const keygen = await apicert('keygen', '--out', at('signer'));
  const keyId = /key id (sha256:[0-9a-f]{64})/.exec(keygen.out)![1]!;
  // The two rules the fault breaks are excluded: a signed PASS over one rule of the catalogue.
  const excluded = 'v8.missions.get.unknown-404,v8.missions.get.other-principal-404';
  const narrow = await apicert('certify', '--rules', 'v8.missions.get.*', '--exclude', excluded, '--faults', GET_FAULT, '--seed', '5', '--out', at('narrow'), '--sign', at('signer.key'), '--format', 'json,md', '--quiet');
  const narrowDir = join(at('narrow'), 'latest');

  it('report.json records the selection: the catalogue size and the filters given', () => {
    expect(narrow.code, narrow.err).toBe(EXIT.pass);
    const report = JSON.parse(readFileSync(join(narrowDir, 'report.json'), 'utf8')) as Report;
    expect(report.run.selection).toEqual({ catalogue: RULES.length, rules: ['v8.missions.get.*'], exclude: excluded.split(',') });
  });

  it('the vouches-for lines name the target kind with its faults, judged of selected of the catalogue, the exclusions and --strict', async () => {
    const report = JSON.parse(readFileSync(join(narrowDir, 'report.json'), 'utf8')) as Report;
    const ok = await apicert('verify', narrowDir, '--key', at('signer.pub'));
    expect(ok.code, ok.out + ok.err).toBe(0);
    expect(ok.out).toContain(`vouches for: target ${report.target.baseUrl} (embedded-fake; faults: ${GET_FAULT}), run started ${report.run.startedAt}, gate PASS`);
    expect(ok.out).toContain(`scope: judged ${report.summary.judged} of ${report.summary.selected} selected rules (of ${RULES.length} in the catalogue); --rules v8.missions.get.*; 2 excluded by --exclude (${excluded}); not strict (SHOULD rules only warn)`);
    expect(ok.out).toContain(`compare the key id ${keyId} with the one the certifier published`);
  });

  it('a --rerun records the report it reran, and verify says so', async () => {
    const first = await apicert('certify', '--rules', 'v8.missions.get.unknown-404', '--faults', GET_FAULT, '--seed', '6', '--out', at('failing'), '--format', 'json', '--quiet');
    expect(first.code, first.err).toBe(EXIT.fail);
    const from = join(at('failing'), 'latest', 'report.json');
    const firstDigest = (JSON.parse(readFileSync(from, 'utf8')) as Report).digest;
    const again = await apicert('certify', '--rerun', join(at('failing'), 'latest'), '--out', at('reran'), '--sign', at('signer.key'), '--format', 'json', '--quiet');
    expect(again.code, again.err).toBe(EXIT.pass);
    const rerun = JSON.parse(readFileSync(join(at('reran'), 'latest', 'report.json'), 'utf8')) as Report;
    expect(rerun.run.selection?.rerunOf).toEqual({ report: from, digest: firstDigest });
    const verified = await apicert('verify', join(at('reran'), 'latest'), '--key', at('signer.pub'));
    expect(verified.code, verified.out).toBe(0);
    expect(verified.out).toContain(`a rerun of ${from} (digest ${firstDigest}): only the rules that report did not pass`);
  });

  it('a report from before the selection was recorded still verifies and says so', async () => {
    const report = JSON.parse(readFileSync(join(narrowDir, 'report.json'), 'utf8')) as Report;
    delete report.run.selection;
    const { digest: _d, ...body } = report;
    const old = { ...body, digest: digestOf(body) };
    const folder = at('old-report');
    writeFileSync(join(folder + '.json'), JSON.stringify(old));
    writeFileSync(`${folder}.json.sig`, JSON.stringify(signReport(old, privateKeyFrom(readFileSync(at('signer.key'), 'utf8'), 'signer.key'))));
    const verified = await apicert('verify', `${folder}.json`, '--key', at('signer.pub'));
    expect(verified.code, verified.out).toBe(0);
    expect(verified.out).toMatch(/scope: judged \d+ of \d+ selected rules; 2 excluded by --exclude; not strict \(SHOULD rules only warn\); selection not recorded/);
  });

  it('names every file in the folder the signature does not cover, and stays intact', async () => {
    const folder = at('added');
    cpSync(narrowDir, folder, { recursive: true, dereference: true });
    writeFileSync(join(folder, 'summary-final.md'), '# Gate: **PASS**\n');
    writeFileSync(join(folder, 'report-signed.html'), '<p class="gate-pass">PASS</p>');
    writeFileSync(join(folder, 'container.log'), 'log\n');
    const verified = await apicert('verify', folder, '--key', at('signer.pub'));
    expect(verified.code, verified.out).toBe(0);
    expect(verified.out).toContain(': intact, signed by key');
    expect(verified.out).toContain('not covered by the signature: container.log, report-signed.html, summary-final.md:');
    // The covered files, report.json and its signature are not among them.
    expect(verified.out).not.toMatch(/not covered by the signature: [^\n]*(summary\.md|report\.json)/);
  });

  it('--key-id pins the certifier key: another key is exit 1, a malformed id exit 2', async () => {
    const pinned = await apicert('verify', narrowDir, '--key', at('signer.pub'), '--key-id', keyId);
    expect(pinned.code, pinned.out).toBe(0);
    expect(pinned.out).toContain(`signed by key ${keyId} (the key id --key-id gives)`);
    await apicert('keygen', '--out', at('other'));
    const otherId = keyIdOf(privateKeyFrom(readFileSync(at('other.key'), 'utf8'), 'other.key'));
    // A report re-signed with another key verifies with that key, but not against the published id.
    const folder = at('resigned');
    cpSync(narrowDir, folder, { recursive: true, dereference: true });
    const report = JSON.parse(readFileSync(join(folder, 'report.json'), 'utf8')) as Report;
    writeFileSync(join(folder, 'report.json.sig'), JSON.stringify(signReport(report, privateKeyFrom(readFileSync(at('other.key'), 'utf8'), 'other.key'))));
    expect((await apicert('verify', folder, '--key', at('other.pub'))).code).toBe(0);
    const swapped = await apicert('verify', folder, '--key', at('other.pub'), '--key-id', keyId);
    expect(swapped.code, swapped.out).toBe(1);
    expect(swapped.out).toContain(`has id ${otherId}, not the id --key-id gives (${keyId})`);
    const malformed = await apicert('verify', folder, '--key', at('other.pub'), '--key-id', 'abc');
    expect(malformed.code).toBe(2);
    expect(malformed.err).toMatch(/--key-id abc is not a key id/);
  });
});

describe('baseline wording (F7)', async () => {
  it('the recap says why a stale entry fails the run, and summary.md counts expected failures as report.html does', async () => {
    writeFileSync(at('baseline.yaml'), '- rule: v8.missions.get.ok\n  reason: known (TICKET-1)\n- rule: v8.missions.get.unknown-404\n  reason: known (TICKET-2)\n');
    const cli = await apicert('certify', '--rules', 'v8.missions.get.ok,v8.missions.get.unknown-404', '--faults', GET_FAULT, '--baseline', at('baseline.yaml'), '--seed', '7', '--out', at('baselined'), '--format', 'json,md,html');
    expect(cli.code, cli.err).toBe(EXIT.fail);
    expect(cli.out).toContain('  STALE v8.missions.get.ok: the baseline lists it as failing; it passes now');
    const md = readFileSync(join(at('baselined'), 'latest', 'summary.md'), 'utf8');
    expect(md).toContain('- Required rules: 1 pass, 1 fail (1 expected), ');
    expect(readFileSync(join(at('baselined'), 'latest', 'report.html'), 'utf8')).toContain('1 fail (1 expected)');
  });
});

describe('the passive gate line (F6)', () => {
  it('gives the SHOULD counts beside the required ones, as certify does', async () => {
    const har = at('should.har');
    const recorded = await apicert('certify', '--rules', `${SHOULD_RULE},v8.missions.get.ok`, '--faults', SHOULD_FAULT, '--seed', '8', '--har-out', har, '--out', at('recorded'), '--format', 'json', '--quiet');
    expect(recorded.code, recorded.err).toBe(EXIT.pass);
    const judged = await apicert('judge-traffic', '--har', har, '--out', at('judged'), '--format', 'json');
    const report = JSON.parse(readFileSync(join(at('judged'), 'latest', 'report.json'), 'utf8')) as Report;
    expect(report.summary.should.fail).toBe(1);
    expect(judged.out).toMatch(/\(mode: passive\): gate PASS - .*; required \d+ pass, 0 fail, \d+ n\/a; should \d+ pass, 1 fail \(warnings\); /);
  });
});

describe('certify() as a library records the selection too', () => {
  it('with the catalogue it chose from and the surfaces given', async () => {
    const { report } = await certify({ surfaces: ['v8'], patterns: ['v8.missions.get.ok'], seed: 1 });
    expect(report.run.selection).toEqual({ catalogue: RULES.length, surfaces: ['v8'], rules: ['v8.missions.get.ok'] });
  }, 60_000);
});
