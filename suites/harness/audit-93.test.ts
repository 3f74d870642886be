/**
 * The command line as a new user meets it, second pass (audit 93): an empty flag value (an unset CI
 * variable) is exit 2 naming the flag, never "the flag was not given"; `load --with-report` is
 * checked before any load runs; the docs say which command appends to GITHUB_STEP_SUMMARY; and the
 * messages that pointed the wrong way say what to do.
 */
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin/apicert.js');
const BASE_ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => !['FORCE_COLOR', 'NO_COLOR', 'GITHUB_STEP_SUMMARY', 'APICERT_PROFILE', 'K6_BINARY'].includes(k) && !k.startsWith('APICERT_')));
const STACK = /\n\s+at .+:\d+:\d+/;

interface Ran {
  code: number | null;
  out: string;
  err: string;
}

function apicert(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 120_000, cwd: options.cwd, env: { ...BASE_ENV, NO_COLOR: '1', ...options.env } }, (error, out, err) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, out, err });
    });
  });
}

/** Runs at most `width` at once: each is a whole Node process on a shared machine. */
async function inBatches<T, R>(items: readonly T[], width: number, each: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += width) out.push(...(await Promise.all(items.slice(i, i + width).map(each))));
  return out;
}

const tmp = (prefix: string) => mkdtempSync(join(tmpdir(), `apicert-a93-${prefix}-`));

/** A k6 that only notes it was started: a run that should not reach k6 leaves no note. */
function k6Stub(dir: string): { binary: string; started: string } {
  const started = join(dir, 'k6-started');
  const binary = join(dir, 'k6');
  writeFileSync(binary, `#!/bin/sh\nif [ "$1" = version ]; then echo "k6 v0.50.0 (stub)"; exit 0; fi\necho "$@" >> '${started}'\nexit 0\n`);
  chmodSync(binary, 0o755);
  return { binary, started };
}

describe('an empty flag value is exit 2 naming the flag, never the flag left out (N1)', () => {
  it('refuses every file, folder and value option given "" (or blanks), saying what to give', async () => {
    const cwd = tmp('empty');
    const out = join(cwd, 'reports');
    const k6 = k6Stub(cwd);
    const cases: Array<[string[], string]> = [
      [['certify', '--rules', 'v8.missions.get.ok', '--out', out, '--sign', ''], '--sign'],
      [['certify', '--rules', 'v8.missions.get.ok', '--out', out, '--har-out', ''], '--har-out'],
      [['certify', '--rules', 'v8.missions.get.ok', '--out', out, '--baseline', ''], '--baseline'],
      [['certify', '--rules', 'v8.missions.get.ok', '--out', out, '--rerun', ''], '--rerun'],
      [['certify', '--rules', 'v8.missions.get.ok', '--out', out, '--seed', ''], '--seed'],
      [['certify', '--rules', 'v8.missions.get.ok', '--out', out, '--faults', ''], '--faults'],
      [['certify', '--rules', 'v8.missions.get.ok', '--out', ''], '--out'],
      [['certify', '--rules', 'v8.missions.get.ok', '--out', out, '--sign', '  '], '--sign'],
      [['keygen', '--out', ''], '--out'],
      [['load', '--script', 'v8-idempotency-storm', '--out', out, '--emit-k6-operator', ''], '--emit-k6-operator'],
      [['load', '--script', 'v8-idempotency-storm', '--out', out, '--with-report', '', '--dry-run'], '--with-report'],
      [['load', '--script', 'v8-idempotency-storm', '--out', ''], '--out'],
      [['coverage', '--constraints', '--report', ''], '--report'],
      [['verify', out, '--key', join(cwd, 'x.pub'), '--signature', ''], '--signature'],
      [['verify', out, '--key', ''], '--key'],
      [['profile', 'init', '--out', ''], '--out'],
      [['fake', '--profile-out', ''], '--profile-out'],
      [['judge-client', '--write-env', ''], '--write-env'],
      [['certify-receiver', '--url', ''], '--url'],
      [['certify-receiver', '--url', 'http://127.0.0.1:9/hooks', '--out', out, '--secret-env', ''], '--secret-env'],
      [['judge-traffic', '--har', join(cwd, 'x.har'), '--out', ''], '--out'],
      [['judge-traffic', '--har', ''], '--har'],
      [['judge-traffic', '--har', join(cwd, 'x.har'), '--out', out, '--profile', ''], '--profile'],
      [['proxy', '--upstream', 'http://127.0.0.1:9', '--out', out, '--har-out', ''], '--har-out'],
      [['proxy', '--upstream', 'http://127.0.0.1:9', '--out', out, '--findings', ''], '--findings'],
      [['proxy', '--upstream', 'http://127.0.0.1:9', '--out', out, '--profile', ''], '--profile'],
    ];
    const runs = await inBatches(cases, 4, ([args]) => apicert(args, { cwd, env: { K6_BINARY: k6.binary } }));
    cases.forEach(([args, flag], i) => {
      const run = runs[i]!;
      const label = `${args.join(' ')}: ${run.err}`;
      expect(run.code, label).toBe(2);
      expect(run.err, label).toContain(`${flag} was given an empty value (an unset variable?): give `);
      expect(run.err, label).not.toMatch(STACK);
      expect(run.out, label).not.toMatch(/gate /);
    });
    // Nothing was made or run: no report folder, no hidden key pair in the working folder, no k6.
    expect(existsSync(out), 'a report folder was made').toBe(false);
    expect(readdirSync(cwd).sort()).toEqual(['k6']);
    expect(existsSync(k6.started)).toBe(false);
  }, 300_000);

  it('an empty rule list is refused by every command that takes --rules, plan and the side commands included', async () => {
    const cwd = tmp('rules');
    const runs = await Promise.all([apicert(['plan', '--rules', '']), apicert(['judge-traffic', '--har', join(cwd, 'x.har'), '--rules', ' , ']), apicert(['certify-receiver', '--url', 'http://127.0.0.1:9/hooks', '--rules', ''])]);
    for (const run of runs) {
      expect(run.code, run.err).toBe(2);
      expect(run.err).toContain('no rule pattern given');
    }
  }, 120_000);
});

describe('load --with-report is checked before the load runs (N5)', () => {
  it('a file that is no report apicert wrote is exit 2 before k6 starts, naming what is missing', async () => {
    const cwd = tmp('with-report');
    const k6 = k6Stub(cwd);
    const notReport = join(cwd, 'fake-profile.json');
    writeFileSync(notReport, JSON.stringify({ target: 'http://127.0.0.1:9', credentials: [] }));
    const out = join(cwd, 'reports');
    const run = await apicert(['load', '--script', 'v8-idempotency-storm', '--with-report', notReport, '--out', out], { env: { K6_BINARY: k6.binary } });
    expect(run.code, run.err).toBe(2);
    expect(run.err).toContain(`--with-report ${notReport}: ${notReport} is not an apicert report.json`);
    expect(run.err).toContain('give the report.json (or run folder) a certify run of this target wrote, or leave --with-report out');
    expect(run.err).not.toMatch(/certified undefined/);
    expect(existsSync(k6.started), 'k6 ran').toBe(false);
    expect(existsSync(out), 'a run folder was made').toBe(false);
  }, 120_000);

  it("a certify run's folder is taken as its report.json, and a report of another target is said before the load", async () => {
    const cwd = tmp('with-folder');
    const k6 = k6Stub(cwd);
    const out = join(cwd, 'reports');
    const certified = await apicert(['certify', '--rules', 'v8.missions.get.ok', '--out', out]);
    expect(certified.code, certified.err).toBe(0);
    const run = await apicert(['load', '--script', 'v8-idempotency-storm', '--with-report', join(out, 'latest'), '--out', out], { env: { K6_BINARY: k6.binary } });
    // The stub writes no summary: the load rules are inconclusive (exit 3), the merge itself went through.
    expect(run.code, run.err).toBe(3);
    expect(run.err).toMatch(/apicert: warning: \S+latest\/report\.json certified http:\/\/127\.0\.0\.1:\d+, not http:\/\/127\.0\.0\.1:\d+: the load verdicts will be reported alone/);
    expect(existsSync(k6.started)).toBe(true);
    expect(run.out).toMatch(/load on http:\/\/127\.0\.0\.1:\d+: gate INCONCLUSIVE/);
  }, 240_000);
});

describe('GITHUB_STEP_SUMMARY: the docs say which command appends (N6)', () => {
  it('help env and docs/cli.md name certify, and docs/cli.md names the commands that do not append', async () => {
    const help = await apicert(['help', 'env']);
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/GITHUB_STEP_SUMMARY\s+set \(GitHub Actions\): certify appends its Markdown summary/);
    const doc = readFileSync(join(ROOT, 'docs/cli.md'), 'utf8').replace(/\s+/g, ' ');
    expect(doc).not.toContain('apicert appends the Markdown summary');
    expect(doc).toContain('`certify` appends its Markdown summary to it (`load`, `judge-traffic`, `proxy`, `judge-client` and `certify-receiver` do not');
  }, 60_000);

  it('judge-traffic writes no step summary, as the docs now say', async () => {
    const cwd = tmp('summary');
    const har = join(cwd, 'x.har');
    writeFileSync(har, JSON.stringify({ log: { version: '1.2', creator: { name: 't', version: '1' }, entries: [{ startedDateTime: new Date().toISOString(), time: 1, request: { method: 'GET', url: 'http://127.0.0.1:9/v8/missions/m1', httpVersion: 'HTTP/1.1', headers: [], queryString: [], cookies: [], headersSize: -1, bodySize: 0 }, response: { status: 404, statusText: 'Not Found', httpVersion: 'HTTP/1.1', headers: [], cookies: [], content: { size: 0, mimeType: 'application/json' }, redirectURL: '', headersSize: -1, bodySize: 0 }, cache: {}, timings: { send: 0, wait: 1, receive: 0 } }] } }));
    const summary = join(cwd, 'step-summary.md');
    const run = await apicert(['judge-traffic', '--har', har, '--out', join(cwd, 'reports')], { env: { GITHUB_STEP_SUMMARY: summary } });
    expect([0, 1, 3], run.err).toContain(run.code);
    expect(existsSync(join(cwd, 'reports', 'latest', 'summary.md'))).toBe(true);
    expect(existsSync(summary)).toBe(false);
  }, 120_000);
});

describe('messages that point the way (N7)', () => {
  it('verify --signature "" is a usage error (exit 2), not a report found not intact (exit 1)', async () => {
    const cwd = tmp('verify');
    const prefix = join(cwd, 'certifier');
    expect((await apicert(['keygen', '--out', prefix])).code).toBe(0);
    const signed = await apicert(['certify', '--rules', 'v8.missions.get.ok', '--out', join(cwd, 'reports'), '--sign', `${prefix}.key`]);
    expect(signed.code, signed.err).toBe(0);
    const report = join(cwd, 'reports', 'latest');
    // The same report and key verify as intact: only the empty --signature is wrong.
    expect((await apicert(['verify', report, '--key', `${prefix}.pub`])).code).toBe(0);
    const run = await apicert(['verify', report, '--key', `${prefix}.pub`, '--signature', '']);
    expect(run.code, run.err).toBe(2);
    expect(run.err).toContain('--signature was given an empty value');
    expect(run.out).not.toContain('NOT intact');
  }, 120_000);

  it('a file that cannot be read is named with its reason in words and what to give instead', async () => {
    const cwd = tmp('unreadable');
    const [key, diff, receiver] = await Promise.all([
      apicert(['verify', cwd, '--key', join(cwd, 'x.pub')]),
      apicert(['diff', join(cwd, 'a'), join(cwd, 'b')]),
      apicert(['certify-receiver', '--profile', join(cwd, 'nonexistent.yaml'), '--out', join(cwd, 'reports')]),
    ]);
    expect(key.code).toBe(2);
    expect(key.err).toContain(`cannot read public key ${join(cwd, 'x.pub')}: ENOENT (no such file or folder): give the PREFIX.pub "apicert keygen" wrote`);
    expect(diff.code).toBe(2);
    expect(diff.err).toContain(`cannot read report ${join(cwd, 'a')}: ENOENT (no such file or folder): give a report.json apicert wrote, or its run folder`);
    expect(receiver.code).toBe(2);
    expect(receiver.err).toContain('ENOENT (no such file or folder): give a profile file with a receiver: section, or use --url');
    // Node's own text repeats the path and says nothing to do.
    expect(receiver.err).not.toContain("no such file or directory, open '");
  }, 120_000);

  it('load --profile "" says what load does without one; certify with stray words speaks of them in the plural', async () => {
    const [load, stray] = await Promise.all([apicert(['load', '--profile', '']), apicert(['certify', 'extra-arg'])]);
    expect(load.code).toBe(2);
    expect(load.err).toContain('leave --profile out to load the built-in reference fake');
    expect(load.err).not.toContain('certify');
    expect(stray.code).toBe(2);
    expect(stray.err).toContain('container arguments apply only with --image');
  }, 60_000);

  it("README's --target smoke test, pasted with the tokens in variables, plans instead of refusing placeholders", async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const line = readme.split('\n').find((l) => /npx apicert plan --target /.test(l));
    expect(line).toBeDefined();
    const assignments = [...line!.matchAll(/(APICERT_\w+)=("\$(\w+)"|\S+)/g)];
    expect(assignments.length).toBeGreaterThan(0);
    // The shell would expand "$STAGING_..." to the value the user keeps there: a token of their own.
    const env: Record<string, string> = {};
    for (const [, name, value, from] of assignments) env[name!] = from ? `tok_${from.toLowerCase()}_1234567890` : value!;
    const target = /--target (\S+)/.exec(line!)![1]!;
    const run = await apicert(['plan', '--target', target], { env });
    expect(run.code, run.err).toBe(0);
    expect(run.err).not.toContain('placeholders');
    expect(run.out).toContain('plan for https://gateway.staging.example.com');
  }, 60_000);
});

describe('what the second pass left: a profile that cannot be read, a .gz that is not gzip, a rerun of another target', () => {
  it('a profile path that is no file, and a .har.gz that is not gzipped, say what to give (exit 2)', async () => {
    const cwd = tmp('left');
    const notGz = join(cwd, 'run.har.gz');
    writeFileSync(notGz, 'not a recording');
    const [missing, folder, gz] = await Promise.all([
      apicert(['certify', '--profile', join(cwd, 'staging.yaml')]),
      apicert(['certify', '--profile', cwd]),
      apicert(['judge-traffic', '--har', notGz, '--out', join(cwd, 'reports')]),
    ]);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('ENOENT (no such file or folder): give the path of a profile file (YAML or JSON)');
    expect(missing.err).not.toContain("no such file or directory, open '");
    expect(folder.code).toBe(2);
    expect(folder.err).toContain('EISDIR (it is a folder)');
    expect(gz.code).toBe(2);
    expect(gz.err).toContain('is named .gz but is not gzipped');
  }, 120_000);

  it('a rerun of a report of another deployment is said; one of the built-in fake (a new port each run) or of the same URL is not', async () => {
    const { otherTarget } = await import('../../src/cli/rerun.ts');
    const of = (baseUrl: string, kind = 'remote') => ({ from: 'reports/latest/report.json', ids: ['v8.missions.get.ok'], seed: 7, notGating: 0, target: { baseUrl, kind } });
    expect(otherTarget(of('https://staging.example.com'), 'https://prod.example.com')).toContain('certified https://staging.example.com, not https://prod.example.com');
    expect(otherTarget(of('https://staging.example.com/'), 'https://staging.example.com')).toBeUndefined();
    expect(otherTarget(of('http://127.0.0.1:40123', 'embedded-fake'), 'https://staging.example.com')).toBeUndefined();
    expect(otherTarget(of('https://staging.example.com'), undefined)).toBeUndefined();
  });
});
