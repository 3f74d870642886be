/**
 * The command line as a new user meets it, audit 102: `--target`'s credential variables are named
 * when they hold no token (never a profile field the user did not write), a profile path that came
 * from APICERT_PROFILE says so when it cannot be read, a second `apicert fake` in one folder leaves
 * the first one's profile to its user, and the proxy warns of its weak secrets at its start as
 * certify does.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin/apicert.js');
const BASE_ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => !['FORCE_COLOR', 'NO_COLOR', 'GITHUB_STEP_SUMMARY', 'APICERT_PROFILE', 'K6_BINARY', 'CI'].includes(k) && !k.startsWith('APICERT_')));
const STACK = /\n\s+at .+:\d+:\d+/;
/** Nothing listens here: a run that gets past its checks stops at the first probe. */
const NOWHERE = 'http://127.0.0.1:9';

interface Ran {
  code: number | null;
  out: string;
  err: string;
}

function apicert(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string; timeout?: number } = {}): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: options.timeout ?? 120_000, cwd: options.cwd, env: { ...BASE_ENV, NO_COLOR: '1', ...options.env } }, (error, out, err) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, out, err });
    });
  });
}

const tmp = (prefix: string) => mkdtempSync(join(tmpdir(), `apicert-a102-${prefix}-`));

describe('--target names the credential variable that holds no token (item 1)', () => {
  it('a placeholder, blanks or a line break in a variable is exit 2 naming the variable, never credentials[0].token nor the value', async () => {
    const out = join(tmp('target'), 'reports');
    const cases: Array<[string[], NodeJS.ProcessEnv, string[]]> = [
      [['plan', '--target', NOWHERE], { APICERT_V8_TOKEN: 'FILL-IN' }, ['APICERT_V8_TOKEN holds a placeholder (FILL-IN or ...), not a token']],
      [['certify', '--target', NOWHERE, '--out', out], { APICERT_V1_KEY: '...' }, ['APICERT_V1_KEY holds a placeholder']],
      [['certify', '--target', NOWHERE, '--out', out], { APICERT_V8_TOKEN: 'your v8 token here' }, ['APICERT_V8_TOKEN holds spaces or line breaks, which no bearer token does']],
      [['plan', '--target', NOWHERE], { APICERT_MCP_TOKEN: 'mcp-tok-123456\n' }, ['APICERT_MCP_TOKEN holds spaces or line breaks']],
      [['plan', '--target', NOWHERE], { APICERT_V8_EXPIRED_TOKEN: '   ' }, ['APICERT_V8_EXPIRED_TOKEN is set but blank']],
      [['plan', '--target', NOWHERE], { APICERT_V8_TOKEN: 'FILL-IN', APICERT_V1_KEY: 'FILL-IN' }, ['2 variables hold no token', '  - APICERT_V8_TOKEN holds a placeholder', '  - APICERT_V1_KEY holds a placeholder']],
    ];
    const runs = await Promise.all(cases.map(([args, env]) => apicert(args, { env })));
    cases.forEach(([args, env, said], i) => {
      const run = runs[i]!;
      const label = `${args.join(' ')} ${JSON.stringify(env)}: ${run.err}`;
      expect(run.code, label).toBe(2);
      for (const text of said) expect(run.err, label).toContain(text);
      expect(run.err, label).toContain('"apicert help env" lists the variables');
      expect(run.err, label).not.toContain('credentials[');
      expect(run.err, label).not.toMatch(STACK);
      for (const value of Object.values(env)) if (value && !['FILL-IN', '...'].includes(value) && value.trim()) expect(run.err + run.out, label).not.toContain(value.trim());
      expect(run.out, label).not.toMatch(/gate /);
    });
  }, 120_000);

  it('certify --target names the variables left unset at the start, not only "the profile has no credential"', async () => {
    const out = join(tmp('unset'), 'reports');
    const [none, some] = await Promise.all([
      apicert(['certify', '--target', NOWHERE, '--read-only', '--out', out]),
      apicert(['certify', '--target', NOWHERE, '--read-only', '--out', out], { env: { APICERT_V8_TOKEN: 'v8-token-long-enough-1234', APICERT_V1_KEY: '' } }),
    ]);
    expect(none.err).toContain('apicert: warning: --target without --profile reads its credentials from the environment, and none is set (APICERT_V8_TOKEN, APICERT_V8_EXPIRED_TOKEN, APICERT_V8_OTHER_PRINCIPAL_TOKEN, APICERT_V1_KEY, APICERT_MCP_TOKEN)');
    // An empty variable (an unset CI secret) counts as unset.
    expect(some.out).toContain('apicert: --target without --profile reads its credentials from the environment; not set here: APICERT_V8_EXPIRED_TOKEN, APICERT_V8_OTHER_PRINCIPAL_TOKEN, APICERT_V1_KEY, APICERT_MCP_TOKEN');
    expect(some.out + some.err).not.toContain('v8-token-long-enough-1234');
    for (const run of [none, some]) expect(run.code, run.err).toBe(3);
  }, 120_000);
});

describe('a profile APICERT_PROFILE names that cannot be read says where its path came from (item 2)', () => {
  it('certify, plan and load name APICERT_PROFILE; --profile keeps its own message', async () => {
    const cwd = tmp('env-profile');
    const k6 = join(cwd, 'k6');
    writeFileSync(k6, '#!/bin/sh\nif [ "$1" = version ]; then echo "k6 v0.50.0 (stub)"; exit 0; fi\nexit 0\n');
    chmodSync(k6, 0o755);
    const missing = join(cwd, 'staging.yaml');
    const env = { APICERT_PROFILE: missing, K6_BINARY: k6 };
    const runs = await Promise.all([
      apicert(['certify', '--out', join(cwd, 'reports')], { cwd, env }),
      apicert(['plan'], { cwd, env }),
      apicert(['load', '--script', 'v8-idempotency-storm', '--out', join(cwd, 'reports')], { cwd, env }),
      apicert(['plan'], { cwd, env: { APICERT_PROFILE: cwd } }),
    ]);
    for (const run of runs) {
      expect(run.code, run.err).toBe(2);
      expect(run.err).toContain(', which the environment variable APICERT_PROFILE names: ');
      expect(run.err).toContain('set APICERT_PROFILE to the path of a profile file (YAML or JSON)');
      expect(run.err).not.toMatch(STACK);
    }
    expect(runs[0]!.err).toContain(`cannot read profile ${missing}, which the environment variable APICERT_PROFILE names: ENOENT`);
    expect(runs[3]!.err).toContain('EISDIR');
    const flag = await apicert(['plan', '--profile', missing], { cwd });
    expect(flag.code).toBe(2);
    expect(flag.err).toContain(`cannot read profile ${missing}: ENOENT`);
    expect(flag.err).not.toContain('APICERT_PROFILE');
  }, 120_000);
});

describe('a second apicert fake in one folder leaves the first one\'s profile to its user (item 3)', () => {
  const started: ChildProcess[] = [];
  afterEach(() => {
    for (const child of started.splice(0)) if (child.exitCode === null) child.kill('SIGINT');
  });

  /** Starts `apicert fake` and resolves once it has said where its profile is. */
  function fake(cwd: string, args: string[] = []): Promise<{ child: ChildProcess; out: string }> {
    const child = spawn(process.execPath, [BIN, 'fake', ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...BASE_ENV, NO_COLOR: '1' } });
    started.push(child);
    return new Promise((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('certify it from another shell')) resolve({ child, out });
      });
      child.once('exit', (code) => reject(new Error(`apicert fake exited ${code}: ${out}`)));
    });
  }

  function stopped(child: ChildProcess): Promise<void> {
    return new Promise((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGINT');
    });
  }

  it('refuses with exit 2 naming the file and --profile-out while the first listens; replaces it once that one stopped', async () => {
    const cwd = tmp('fake');
    const profile = join(cwd, 'reports/fake-profile.json');
    const first = await fake(cwd);
    expect(first.out).toContain('profile with 26 credentials written to reports/fake-profile.json');
    const written = readFileSync(profile, 'utf8');
    // A fake that starts serving instead runs until stopped: the timeout ends it, and the code is not 2.
    const second = await apicert(['fake'], { cwd, timeout: 20_000 });
    expect(second.code, second.err).toBe(2);
    expect(second.err).toContain('reports/fake-profile.json is the profile of the apicert fake still listening on http://127.0.0.1:');
    expect(second.err).toContain('give this fake another file with --profile-out FILE, or stop that one first');
    expect(second.out).not.toContain('apicert fake listening');
    expect(readFileSync(profile, 'utf8')).toBe(written);
    // Another file is the way the refusal names; the first profile stays as it was.
    const beside = await fake(cwd, ['--profile-out', 'second.json']);
    expect(beside.out).toContain('written to second.json');
    expect(readFileSync(profile, 'utf8')).toBe(written);
    await stopped(beside.child);
    // The documented single-run behaviour: once its fake has stopped, the profile is replaced.
    await stopped(first.child);
    const again = await fake(cwd);
    expect(again.out).toContain('written to reports/fake-profile.json');
    expect(readFileSync(profile, 'utf8')).not.toBe(written);
    await stopped(again.child);
  }, 120_000);
});

describe('the proxy warns of its weak secrets at its start, as certify does (item 4)', () => {
  it('each secret under 8 characters once, on stderr, by label and length, never its value', async () => {
    const cwd = tmp('proxy');
    const file = join(cwd, 'profile.json');
    writeFileSync(file, JSON.stringify({ target: NOWHERE, credentials: [{ name: 'short-v8', token: '${SHORT_V8}', surfaces: ['v8'], scopes: ['missions:read'] }] }));
    const env = { SHORT_V8: 'q7Zk', APICERT_WEBHOOK_SECRET: 'w9Yv2' };
    const run = await apicert(['proxy', '--upstream', NOWHERE, '--profile', file, '--header', 'X-Short: Xk3', '--out', join(cwd, 'reports'), '--duration', '1s'], { cwd, env });
    expect(run.code, run.err).toBe(3);
    const warnings = run.err.split('\n').filter((line) => line.startsWith('apicert: warning: the secret '));
    expect(warnings).toEqual([
      "apicert: warning: the secret token:short-v8 is only 4 characters long: it is redacted only where it stands as a whole token in what the target sent, never in apicert's own words; use secrets of 8 characters or more",
      "apicert: warning: the secret header:v8:x-short is only 3 characters long: it is redacted only where it stands as a whole token in what the target sent, never in apicert's own words; use secrets of 8 characters or more",
      "apicert: warning: the secret env:webhook-secret is only 5 characters long: it is redacted only where it stands as a whole token in what the target sent, never in apicert's own words; use secrets of 8 characters or more",
    ]);
    expect(run.out).toContain('apicert proxy: ');
    for (const secret of ['q7Zk', 'w9Yv2', 'Xk3']) expect(run.out + run.err).not.toContain(secret);
  }, 120_000);
});
