import { describe, expect, it } from 'vitest';
import { profileFromEnv } from '../../src/profile/load.ts';
import { certify } from '../../src/runner/certify.ts';
import { exitCodeFor } from '../../src/cli/exit.ts';
import { renderJunit } from '../../src/reports/junit.ts';
import type { Report } from '../../src/reports/model.ts';
import { validate, totals } from './junit-schema.ts';
import { certifyFake } from './support.ts';


function testcase(xml: string, id: string): string {
  const start = xml.indexOf(`name="${id}`);
  return xml.slice(start, xml.indexOf('</testcase>', start));
}

describe('junit.xml', async () => {
  const run = await certifyFake(['v8.missions.idempotency.conflict/replays-different-body', 'v1.errors.problem-shape/extra-member'], [
    'v8.missions.idempotency.*',
    'v1.errors.problem-shape',
    'v8.goals.*',
    'mcp.session.missing-400',
  ]);
  const should = run.report.rules.find((r) => r.level === 'should')!;
  const required = run.report.rules.filter((r) => r.level === 'required' && r.verdict === 'pass').map((r) => r.id);
  const observation = run.report.rules.find((r) => r.level === 'observation')!;
  const variants: Record<string, Report> = {
    'as run': run.report,
    'a required rule untestable': run.variant({ verdicts: { [required[0]!]: 'untestable' } }),
    'a required rule untestable, allowed': run.variant({ verdicts: { [required[0]!]: 'untestable' }, allowUntestable: true }),
    'a required rule inconclusive': run.variant({ verdicts: { [required[0]!]: 'inconclusive' } }),
    'only an observation fails': run.variant({ verdicts: { 'v8.missions.idempotency.conflict': 'pass', 'v1.errors.problem-shape': 'pass', [observation.id]: 'fail' } }),
    'failures listed in a baseline': run.variant({ baseline: [{ rule: 'v8.missions.idempotency.conflict', reason: 'known' }, { rule: 'v1.errors.problem-shape', reason: 'known' }] }),
    'only a SHOULD rule fails': run.variant({ verdicts: { 'v8.missions.idempotency.conflict': 'pass', 'v1.errors.problem-shape': 'pass', [should.id]: 'fail' } }),
    'only a SHOULD rule fails, --strict': run.variant({ verdicts: { 'v8.missions.idempotency.conflict': 'pass', 'v1.errors.problem-shape': 'pass', [should.id]: 'fail' }, strict: true }),
  };

  it('states a run-wide cause once, on top and as a property, and stays valid', async () => {
    const stopped = await certify({ profile: profileFromEnv('http://127.0.0.1:9', {}), patterns: ['v8.missions.get.*', 'v8.goals.*'], seed: 1 });
    const xml = renderJunit(stopped.report);
    expect(await validate(xml)).toEqual([]);
    expect(xml.split('\n')[1]).toMatch(/^<!-- the run stopped: http:\/\/127\.0\.0\.1:9 did not answer the first probe/);
    expect(xml).toMatch(/<property name="run.stopped" value="http:\/\/127\.0\.0\.1:9 did not answer/);
    // Each testcase points at it instead of repeating it.
    expect(xml.match(/ECONNREFUSED/g)!.length).toBe(1 + xml.match(/<testsuite /g)!.length);
    expect(totals(xml).errors).toBe(stopped.report.summary.required.inconclusive);
  });

  it('is valid against the Jenkins JUnit XSD, with hostile characters in reasons', async () => {
    // The validator is awake: the attribute form of <skipped> most writers use is outside this schema.
    expect(await validate(renderJunit(run.report).replace('<testcase ', '<testcase><skipped message="x"/></testcase>\n<testcase '))).not.toEqual([]);
    for (const [name, report] of Object.entries(variants)) expect(await validate(renderJunit(report)), name).toEqual([]);
    const hostile = run.variant({ verdicts: { [required[1]!]: 'fail' } });
    hostile.rules.find((r) => r.id === required[1])!.reason = 'body: <x a="1"> & \u0001\u0007 ]]> \uFFFF';
    expect(await validate(renderJunit(hostile))).toEqual([]);
    // A target whose host is shaped like a secret is reported redacted: no URL any more, yet still a hostname.
    const redactedHost = { ...run.report, target: { ...run.report.target, baseUrl: 'http://«redacted:api-key».invalid:8080' } };
    expect(renderJunit(redactedHost)).toContain('hostname="http://«redacted:api-key».invalid:8080"');
  });

  it('shows failures or errors exactly when the exit code is not 0', () => {
    for (const [name, report] of Object.entries(variants)) {
      const t = totals(renderJunit(report));
      const exit = exitCodeFor(report.summary, report.run.allowUntestable);
      expect(t.failures + t.errors > 0, `${name}: junit ${JSON.stringify(t)}, exit ${exit}`).toBe(exit !== 0);
      expect(t.tests).toBe(report.rules.length);
    }
  });

  it('makes a gating untestable or inconclusive an <error>, a non-gating one <skipped> with its message', () => {
    const id = required[0]!;
    expect(testcase(renderJunit(variants['a required rule untestable']!), id)).toMatch(/<error message="untestable: untestable \(set by the test\)" type="untestable">/);
    expect(testcase(renderJunit(variants['a required rule inconclusive']!), id)).toMatch(/<error message="inconclusive: /);
    expect(testcase(renderJunit(variants['a required rule untestable, allowed']!), id)).toMatch(/<skipped>untestable: untestable \(set by the test\)<\/skipped>/);
  });

  it('makes a failed SHOULD rule a skipped warning, and a failure with --strict', () => {
    expect(testcase(renderJunit(variants['only a SHOULD rule fails']!), should.id)).toMatch(/<skipped>warning: a SHOULD rule failed \(it gates only with --strict\)/);
    expect(testcase(renderJunit(variants['only a SHOULD rule fails, --strict']!), should.id)).toMatch(/<failure message="fail \(set by the test\)" type="fail">/);
  });

  it('never counts an observation rule as a failure', () => {
    const xml = renderJunit(variants['only an observation fails']!);
    expect(totals(xml).failures).toBe(0);
    expect(testcase(xml, observation.id)).not.toContain('<failure');
  });

  it('carries every case with its reason and curl line, the spec sentence and the rerun command in <failure>', () => {
    const xml = renderJunit(run.report);
    const failure = testcase(xml, 'v1.errors.problem-shape');
    expect(failure).toMatch(/<failure message="POST \/v1\/execute: the 401 problem body does not have the closed v1 Problem shape \(\(body\): Unrecognized key: &quot;error&quot;\) \(and \d+ more failing cases\)" type="fail">/);
    expect(failure).toMatch(/case 2: POST \/v1\/\S+: the \d{3} problem body/);
    expect(failure).toMatch(/curl -sS -i -X POST 'http:\/\/127\.0\.0\.1:\d+\/v1\/execute'/);
    expect(failure).toContain('rerun: npx apicert certify --profile fake.json --rules v1.errors.problem-shape --seed 42');
    expect(failure).toContain('No extra properties are allowed in Problem or FieldError.');
    expect(failure).not.toContain(run.profile.credentials[0]!.token);
  });

  it('has properties for target, seed, gate, digest and version', () => {
    const xml = renderJunit(run.report);
    for (const [name, value] of [['target', run.report.target.baseUrl], ['seed', '42'], ['gate', 'fail'], ['digest', run.report.digest], ['version', run.report.harness.version], ['ruleset', run.report.harness.rulesetHash]]) {
      expect(xml).toContain(`<property name="${name}" value="${value}"/>`);
    }
  });

  it('shows baselined failures as skipped, not failed', () => {
    const xml = renderJunit(variants['failures listed in a baseline']!);
    expect(totals(xml).failures).toBe(0);
    expect(testcase(xml, 'v8.missions.idempotency.conflict')).toMatch(/<skipped>expected failure \(baseline: known\)/);
  });
});
