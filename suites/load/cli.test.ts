import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { fakeK6 } from './k6-shim/fake-k6.ts';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { LOAD_RULES, rulesOf } from '../../src/load/rules.ts';
import { emptySummary, SUMMARY_LINE_PREFIX, type LoadSummary } from '../../src/load/summary.ts';

const BIN = new URL('../../bin/apicert.js', import.meta.url).pathname;
const TOKEN = 'v8at_load-cli-secret-0123456789';

function apicert(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, K6_BINARY: '', ...env } });
  return { code: result.status, out: result.stdout, err: result.stderr };
}

const RULES_BY_SCRIPT = JSON.stringify(Object.fromEntries(['v8-idempotency-storm', 'v8-stream-fanout'].map((s) => [s, rulesOf(s as 'v8-stream-fanout').map((r) => r.id)])));

describe('apicert load', () => {
  it('exits 2 and says how to get k6 when there is none', () => {
    const run = apicert(['load', '--target', 'http://127.0.0.1:9', '--out', mkdtempSync(join(tmpdir(), 'apicert-nok6-'))], { PATH: '/nonexistent', K6_BINARY: '', APICERT_V8_TOKEN: TOKEN });
    expect(run.code).toBe(2);
    expect(run.err).toMatch(/no k6 found on PATH: install k6 v0.48 or later .* or set K6_BINARY/);
  });

  it('prints the k6 command lines with credentials redacted on --dry-run', () => {
    const out = mkdtempSync(join(tmpdir(), 'apicert-dry-'));
    const run = apicert(['load', '--dry-run', '--target', 'https://gateway.example.test', '--script', 'v8-idempotency-storm,v1-rate-limit', '--vus', '3', '--out', out], { APICERT_V8_TOKEN: TOKEN });
    expect(run.code, run.err).toBe(0);
    expect(run.out).toContain('APICERT_V8_TOKEN=<redacted>');
    // Its own run folder, never the folder of an earlier certify run; latest is not moved to it (it holds no report).
    const folders = readdirSync(out);
    expect(folders).toHaveLength(1);
    expect(folders[0]).toMatch(/^\d{4}-\d\d-\d\dT[\d-]+Z$/);
    const dir = join(out, folders[0]!);
    expect(run.out).toContain('a dry run writes no report');
    expect(run.out).toContain(`APICERT_VUS=3`);
    expect(run.out).toContain(`k6 run --no-usage-report ${join(out, basename(dir), 'load', 'scripts', 'v8-idempotency-storm.js')}`);
    expect(existsSync(join(dir, 'load', 'scripts', 'v8-idempotency-storm.js'))).toBe(true);
    expect(run.out).toContain('# v1-rate-limit: skipped, no APICERT_V1_RATE_LIMIT_KEY');
    expect(run.out + run.err).not.toContain(TOKEN);
  });

  it('refuses a setting that is not a number with exit 2, naming it', () => {
    const run = apicert(['load', '--dry-run', '--target', 'https://gateway.example.test', '--out', mkdtempSync(join(tmpdir(), 'apicert-dry-'))], { APICERT_STORM: 'abc', APICERT_V8_TOKEN: TOKEN });
    expect(run.code).toBe(2);
    expect(run.err).toMatch(/APICERT_STORM=abc is not a whole number/);
  });

  it('takes --variant for the embedded fake only, and names the variants in the report', () => {
    const dir = mkdtempSync(join(tmpdir(), 'apicert-load-variant-'));
    const k6 = fakeK6(dir);
    const out = join(dir, 'reports');
    const run = apicert(['load', '--script', 'v8-idempotency-storm', '--variant', 'v1.execute/in-flight-409', '--out', out], { K6_BINARY: k6, FAKE_K6_RULES: RULES_BY_SCRIPT });
    expect(run.code, run.err + run.out).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'latest', 'report.json'), 'utf8')) as { target: { kind: string; variants?: string[] } };
    expect(report.target).toMatchObject({ kind: 'embedded-fake', variants: ['v1.execute/in-flight-409'] });
    const remote = apicert(['load', '--target', 'http://127.0.0.1:9', '--variant', 'v1.execute/in-flight-409', '--out', out], { K6_BINARY: k6, APICERT_V8_TOKEN: TOKEN });
    expect(remote.code).toBe(2);
    expect(remote.err).toMatch(/--variant only applies to the embedded fake/);
    const unknown = apicert(['load', '--variant', 'v1.no-such/choice', '--out', out], { K6_BINARY: k6 });
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(/unknown variant "v1\.no-such\/choice".*apicert variants/);
  });

  it('runs k6 with credentials in its environment only and merges the verdicts into the report', () => {
    const dir = mkdtempSync(join(tmpdir(), 'apicert-load-'));
    const k6 = fakeK6(dir);
    const out = join(dir, 'reports');
    const args = ['load', '--target', 'http://127.0.0.1:9', '--script', 'v8-idempotency-storm,v8-stream-fanout', '--out', out];
    const run = apicert(args, { K6_BINARY: k6, APICERT_V8_TOKEN: TOKEN, FAKE_K6_RULES: RULES_BY_SCRIPT });
    expect(run.code, run.err + run.out).toBe(0);
    const calls = readFileSync(join(dir, 'calls.log'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { argv: string[]; token: string });
    expect(calls).toHaveLength(2);
    for (const call of calls) {
      expect(call.token).toBe(TOKEN);
      expect(call.argv.join(' ')).not.toContain(TOKEN);
    }
    expect(run.out).toContain(`reports: ${realpathSync(join(out, 'latest'))}`);
    const report = JSON.parse(readFileSync(join(out, 'latest', 'report.json'), 'utf8')) as { rules: Array<{ id: string; verdict: string; spec: { quote: string } }>; summary: { gate: string } };
    expect(report.rules.map((r) => r.id)).toEqual([...rulesOf('v8-idempotency-storm'), ...rulesOf('v8-stream-fanout')].map((r) => r.id));
    expect(report.rules.every((r) => r.verdict === 'pass')).toBe(true);
    expect(report.rules[0]!.spec.quote).toBe(LOAD_RULES[0]!.spec.quote);
    expect(readFileSync(join(out, 'latest', 'summary.md'), 'utf8') + run.out).not.toContain(TOKEN);

    // --with-report is read before k6 runs: a missing file is exit 2 with k6 never started.
    const missing = apicert([...args, '--with-report', join(dir, 'none.json')], { K6_BINARY: k6, APICERT_V8_TOKEN: TOKEN, FAKE_K6_RULES: RULES_BY_SCRIPT });
    expect(missing.code, missing.err).toBe(2);
    expect(missing.err).toMatch(/--with-report .*none\.json: ENOENT/);
    expect(readFileSync(join(dir, 'calls.log'), 'utf8').trim().split('\n')).toHaveLength(2);
    const failing = apicert(args, { K6_BINARY: k6, APICERT_V8_TOKEN: TOKEN, FAKE_K6_RULES: RULES_BY_SCRIPT, FAKE_K6_FAIL: 'load.v8.events.fanout-resume' });
    expect(failing.code).toBe(1);
    expect(failing.out).toMatch(/FAIL {9}load\.v8\.events\.fanout-resume: 1 of 1 judgments failed: a check/);
  });

  it('Ctrl-C: k6 gets one SIGINT and writes its summary, whose passes are inconclusive (cut short), the scripts not reached are not run, the report is written, exit 130', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apicert-load-int-'));
    const k6 = fakeK6(dir);
    const out = join(dir, 'reports');
    const child = spawn(process.execPath, [BIN, 'load', '--target', 'http://127.0.0.1:9', '--script', 'v8-idempotency-storm,v8-stream-fanout', '--out', out], {
      env: { ...process.env, K6_BINARY: k6, APICERT_V8_TOKEN: TOKEN, FAKE_K6_RULES: RULES_BY_SCRIPT, FAKE_K6_HANG: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    const limit = setTimeout(() => child.kill('SIGKILL'), 50_000);
    const ended = new Promise<number | null>((resolve) => child.once('close', (code) => (clearTimeout(limit), resolve(code))));
    const onData = (c: Buffer) => {
      text += c.toString();
      if (text.includes('k6 running') && !child.killed) child.kill('SIGINT');
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    expect(await ended, text).toBe(130);
    const report = JSON.parse(readFileSync(join(out, 'latest', 'report.json'), 'utf8')) as { rules: Array<{ id: string; verdict: string; reason?: string }> };
    const byScript = (s: string) => report.rules.filter((r) => rulesOf(s as 'v8-stream-fanout').some((x) => x.id === r.id));
    // What k6 judged before the interrupt holds for part of the load only: no pass.
    expect(byScript('v8-idempotency-storm').map((r) => r.verdict), text).toEqual(rulesOf('v8-idempotency-storm').map(() => 'inconclusive'));
    expect(byScript('v8-idempotency-storm').every((r) => /1 judgments passed, but the run was cut short: interrupted by SIGINT after 1 iterations$/.test(r.reason ?? '')), JSON.stringify(report.rules)).toBe(true);
    expect(byScript('v8-stream-fanout').every((r) => r.verdict === 'inconclusive' && r.reason?.startsWith('not run: interrupted by SIGINT'))).toBe(true);
    const pid = Number(readFileSync(join(dir, 'k6.pid'), 'utf8'));
    expect(() => process.kill(pid, 0)).toThrow();
  }, 60_000);

  it('a run with fewer iterations than planned (APICERT_MAX_DURATION came first) keeps no pass: inconclusive, exit 3', () => {
    const dir = mkdtempSync(join(tmpdir(), 'apicert-load-short-'));
    const k6 = fakeK6(dir);
    const args = ['load', '--target', 'http://127.0.0.1:9', '--script', 'v8-idempotency-storm', '--out', join(dir, 'reports')];
    const short = apicert(args, { K6_BINARY: k6, APICERT_V8_TOKEN: TOKEN, FAKE_K6_RULES: RULES_BY_SCRIPT, FAKE_K6_PLANNED: '3' });
    expect(short.code, short.err + short.out).toBe(3);
    expect(short.out).toMatch(/INCONCLUSIVE load\.v8\.idempotency\.storm-one-mission: 1 judgments passed, but the run was cut short: 1 of 3 iterations ran \(APICERT_MAX_DURATION ended the scenario first\)/);
    const whole = apicert(args, { K6_BINARY: k6, APICERT_V8_TOKEN: TOKEN, FAKE_K6_RULES: RULES_BY_SCRIPT, FAKE_K6_PLANNED: '1' });
    expect(whole.code, whole.err + whole.out).toBe(0);
  });

  it('writes k6-operator manifests without credentials, and merges the per-pod summaries', () => {
    const dir = mkdtempSync(join(tmpdir(), 'apicert-operator-'));
    const run = apicert(['load', '--target', 'https://gateway.example.test', '--script', 'v8-stream-fanout', '--emit-k6-operator', dir, '--parallelism', '4', '--out', join(dir, 'out')], { APICERT_V8_TOKEN: TOKEN });
    expect(run.code, run.err).toBe(0);
    const testRun = parse(readFileSync(join(dir, 'v8-stream-fanout.testrun.yaml'), 'utf8')) as { kind: string; spec: { parallelism: number; script: { configMap: { name: string; file: string } }; runner: { env: Array<{ name: string; value: string }>; envFrom: unknown[] } } };
    expect(testRun.kind).toBe('TestRun');
    expect(testRun.spec.parallelism).toBe(4);
    expect(testRun.spec.script.configMap).toEqual({ name: 'apicert-v8-stream-fanout', file: 'v8-stream-fanout.js' });
    expect(testRun.spec.runner.env).toContainEqual({ name: 'APICERT_SUMMARY_STDOUT', value: '1' });
    expect(testRun.spec.runner.envFrom).toEqual([{ secretRef: { name: 'apicert-load-credentials' } }]);
    const configMap = parse(readFileSync(join(dir, 'v8-stream-fanout.configmap.yaml'), 'utf8')) as { data: Record<string, string> };
    expect(configMap.data['v8-stream-fanout.js']).toMatch(/export \{/);
    for (const file of ['v8-stream-fanout.testrun.yaml', 'v8-stream-fanout.configmap.yaml', 'README.md']) expect(readFileSync(join(dir, file), 'utf8')).not.toContain(TOKEN);
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toContain('--from-literal=APICERT_V8_TOKEN="$APICERT_V8_TOKEN"');
    // Nothing ran and nothing was judged: no run folder under --out (the manifests and README in the folder named are all it writes).
    expect(existsSync(join(dir, 'out')), 'a run folder under --out').toBe(false);
    expect(readdirSync(dir).sort()).toEqual(['README.md', 'v8-stream-fanout.configmap.yaml', 'v8-stream-fanout.testrun.yaml']);

    const pod = (segment: string, fails: number): string => {
      const s: LoadSummary = { ...emptySummary('v8-stream-fanout', 'https://gateway.example.test', [segment]), iterations: { judged: 1, unjudged: 0 } };
      for (const r of rulesOf('v8-stream-fanout')) s.rules[r.id] = { passes: 3, fails: r.id === 'load.v8.events.fanout-resume' ? fails : 0, checks: {} };
      return `time="..." level=info msg="k6 text"\n${SUMMARY_LINE_PREFIX}${JSON.stringify(s)}\n`;
    };
    writeFileSync(join(dir, 'pods.log'), pod('0:1/2', 0) + pod('1/2:1', 0));
    const merged = apicert(['load', 'merge', join(dir, 'pods.log'), '--out', join(dir, 'merged')]);
    expect(merged.code, merged.err).toBe(0);
    expect(merged.out).toMatch(/v8-stream-fanout: 2 summaries, segments 0:1\/2 1\/2:1/);
    const summary = JSON.parse(readFileSync(join(dir, 'merged', 'latest', 'load', 'v8-stream-fanout.summary.json'), 'utf8')) as LoadSummary;
    expect(summary.rules['load.v8.events.fanout-same-events']!.passes).toBe(6);

    writeFileSync(join(dir, 'bad.log'), pod('0:1/2', 0) + pod('1/2:1', 2));
    expect(apicert(['load', 'merge', join(dir, 'bad.log'), '--out', join(dir, 'merged2')]).code).toBe(1);
    writeFileSync(join(dir, 'half.log'), pod('0:1/2', 0));
    const half = apicert(['load', 'merge', join(dir, 'half.log'), '--out', join(dir, 'merged3')]);
    expect(half.code).toBe(3);
    expect(half.out).toMatch(/the summaries cover 50.0 % of the run/);
    expect(apicert(['load', 'merge', join(dir, 'missing.log'), '--out', join(dir, 'merged4')]).code).toBe(2);
  });
});
