import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sampleClient, startSampleReceiver, TEST_SECRET } from './support.ts';

const BIN = new URL('../../bin/apicert.js', import.meta.url).pathname;

function apicert(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, ...env } });
  return { code: result.status, out: result.stdout, err: result.stderr };
}

const outDir = () => mkdtempSync(join(tmpdir(), 'apicert-side-'));
const allOutput = (dir: string, run: { out: string; err: string }) => run.out + run.err + readdirSync(join(dir, 'latest')).map((f) => readFileSync(join(dir, 'latest', f), 'utf8')).join('');

describe('apicert certify-receiver', () => {
  it('exits 0 for the README handler and 1 for a broken one; the secret stays out of every output', async () => {
    for (const [fault, code] of [[undefined, 0], ['reserialize', 1]] as const) {
      const receiver = await startSampleReceiver(fault);
      try {
        const out = outDir();
        const run = apicert(['certify-receiver', '--url', receiver.url, '--out', out], { APICERT_WEBHOOK_SECRET: TEST_SECRET });
        expect(run.code, run.out + run.err).toBe(code);
        if (fault) expect(run.out).toMatch(/FAIL\s+receiver\.v1\.webhooks\.raw-body/);
        // Its own run folder, with latest pointing at it.
        expect(readdirSync(join(out, 'latest')).sort()).toEqual(['junit.xml', 'report.html', 'report.json', 'summary.md']);
        expect(run.out).toContain(`reports: ${realpathSync(join(out, 'latest'))}`);
        expect(allOutput(out, run)).not.toContain(TEST_SECRET);
      } finally {
        receiver.stop();
      }
    }
  });

  it("reads a profile's receiver: section with its own secret variable", async () => {
    const receiver = await startSampleReceiver();
    try {
      const dir = outDir();
      const profile = join(dir, 'profile.yaml');
      writeFileSync(profile, `target: https://gateway.example.com\nreceiver:\n  url: ${receiver.url}\n  secretEnv: MY_HOOK_SECRET\n`);
      const run = apicert(['certify-receiver', '--profile', profile, '--out', join(dir, 'out'), '--quiet'], { MY_HOOK_SECRET: TEST_SECRET });
      expect(run.code, run.out + run.err).toBe(0);
      expect(run.out).toMatch(/gate PASS - required 9 pass/);
      expect(run.out).toMatch(/^reports: /m);
    } finally {
      receiver.stop();
    }
  });

  it('exits 2 with a message for a host that is not loopback or a missing --url', () => {
    const remote = apicert(['certify-receiver', '--url', 'https://hooks.example.com/in']);
    expect(remote.code).toBe(2);
    expect(remote.err).toMatch(/not loopback.*--allow-host hooks\.example\.com/);
    const none = apicert(['certify-receiver']);
    expect(none.code).toBe(2);
    expect(none.err).toMatch(/give --url or --profile/);
  });
});

describe('apicert judge-client', () => {
  it('runs a client command per scenario: exit 0 for the sample client, 1 for a broken one', () => {
    const ok = apicert(['judge-client', '--scenario', 'idempotency-conflict,replay-window', '--time-scale', '0.02', '--out', outDir(), '--', ...sampleClient()]);
    expect(ok.code, ok.out + ok.err).toBe(0);
    expect(ok.out).toMatch(/pass\s+client\.v1\.errors\.conflict-new-key/);
    expect(ok.out).toMatch(/pass\s+client\.v8\.events\.replay-window/);
    const broken = apicert(['judge-client', '--scenario', 'replay-window', '--out', outDir(), '--', ...sampleClient('resume-after-409')]);
    expect(broken.code).toBe(1);
    expect(broken.out).toMatch(/FAIL\s+client\.v8\.events\.replay-window/);
  });

  it('port form: writes the client environment to a private file and ends the scenario when the client goes quiet', async () => {
    const dir = outDir();
    const envFile = join(dir, 'client-env.sh');
    const judge = spawn(process.execPath, [BIN, 'judge-client', '--scenario', 'idempotency-conflict', '--quiet-seconds', '3', '--max-seconds', '30', '--write-env', envFile, '--out', join(dir, 'out')], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    judge.stdout.on('data', (c: Buffer) => (out += c.toString()));
    // 'close': the output is read after the exit, and its last lines may still be in the pipe at 'exit'.
    const exited = new Promise<number | null>((resolve) => judge.once('close', resolve));
    try {
      const written = () => existsSync(envFile) && readFileSync(envFile, 'utf8').includes('APICERT_V8_TOKEN');
      for (let i = 0; i < 150 && !written(); i++) await new Promise((r) => setTimeout(r, 100));
      expect(statSync(envFile).mode & 0o777).toBe(0o600);
      const env = Object.fromEntries([...readFileSync(envFile, 'utf8').matchAll(/^export (\w+)='([^']*)'$/gm)].map((m) => [m[1]!, m[2]!]));
      expect(Object.keys(env).sort()).toEqual(['APICERT_BASE_URL', 'APICERT_TIME_SCALE', 'APICERT_V1_KEY', 'APICERT_V8_TOKEN']);
      const [node, ...args] = sampleClient();
      expect(spawnSync(node!, args, { env: { ...process.env, ...env }, timeout: 30_000 }).status).toBe(0);
      expect(await exited).toBe(0);
      expect(out).toMatch(/pass\s+client\.v1\.errors\.conflict-new-key/);
      expect(out).not.toContain(env.APICERT_V1_KEY);
    } finally {
      if (judge.exitCode === null && judge.pid) process.kill(judge.pid, 'SIGTERM');
    }
  });

  it('--rules runs the scenarios holding a selected rule and skips the others; a pattern no client rule matches exits 2', () => {
    // With a required rule beside the SHOULD one: a SHOULD rule alone gates nothing, and that run would be inconclusive (exit 3).
    const one = apicert(['judge-client', '--scenario', 'dropped-stream,rate-limited', '--rules', 'client.v1.limits.retry-after,client.v1.errors.retry-429-same-key', '--time-scale', '0.02', '--out', outDir(), '--', ...sampleClient()]);
    expect(one.code, one.out + one.err).toBe(0);
    expect(one.out).toMatch(/pass\s+client\.v1\.limits\.retry-after/);
    expect(one.out).not.toMatch(/scenario dropped-stream/);
    const none = apicert(['judge-client', '--rules', 'client.v1.limits.retry-afterr', '--', 'true']);
    expect(none.code).toBe(2);
    expect(none.err).toMatch(/--rules "client\.v1\.limits\.retry-afterr" selects no rule; closest: client\.v1\.limits\.retry-after/);
    const elsewhere = apicert(['judge-client', '--scenario', 'dropped-stream', '--rules', 'client.v1.limits.*', '--', 'true']);
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.err).toMatch(/judged in scenario rate-limited, rate-limited-no-hint; add one of them to --scenario/);
  });

  it('--show-client-output hides a key the client prints in two writes, a moment apart', () => {
    const dir = outDir();
    // The key the fake issued, in two pieces: each alone is too short for the redactor to know.
    const client = `const k = process.env.APICERT_V1_KEY; process.stdout.write('key ' + k.slice(0, 12)); setTimeout(() => process.stdout.write(k.slice(12) + ' done\\n'), 300);`;
    const run = apicert(['judge-client', '--scenario', 'contract-version', '--show-client-output', '--max-seconds', '20', '--out', dir, '--', process.execPath, '-e', client]);
    expect(run.err).toMatch(/key «redacted:[^»]+» done/);
    expect(run.err).not.toMatch(/service_sk_/);
  });

  it('exits 2 for an unknown scenario', () => {
    const run = apicert(['judge-client', '--scenario', 'no-such', '--', 'true']);
    expect(run.code).toBe(2);
    expect(run.err).toMatch(/unknown scenario "no-such"/);
  });
});
