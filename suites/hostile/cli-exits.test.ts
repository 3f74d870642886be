/** Clean exits: usage errors are exit 2 with a message before anything is sent; a signal leaves a partial report and 130/143. */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const BIN = new URL('../../bin/apicert.js', import.meta.url).pathname;

function apicert(...args: string[]) {
  const result = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { code: result.status, out: result.stdout, err: result.stderr };
}

describe('apicert exits', () => {
  it('refuses an unwritable --out with exit 2 before sending anything', () => {
    const dir = mkdtempSync(join(tmpdir(), 'apicert-out-'));
    const file = join(dir, 'a-file');
    writeFileSync(file, '');
    const run = apicert('certify', '--target', 'http://127.0.0.1:9', '--out', join(file, 'reports'));
    expect(run.code).toBe(2);
    expect(run.err).toMatch(/cannot write reports to .*--out/);
    expect(run.err).not.toMatch(/first probe|\n\s+at /);
  });

  it('refuses a --secret-env that is no variable name with exit 2, without echoing it (it may be the secret itself)', () => {
    const given = 'whsec_Pasted+Secret/Value=';
    const run = apicert('certify-receiver', '--url', 'http://127.0.0.1:9/hooks', '--secret-env', given);
    expect(run.code, run.err).toBe(2);
    expect(run.err).toMatch(/--secret-env takes the name of an environment variable/);
    expect(run.out + run.err).not.toContain('Pasted');
  });

  it('refuses a target or upstream URL that carries credentials with exit 2, without printing them', () => {
    const url = 'http://svc:Pw-In-The-Url-0123@127.0.0.1:9';
    for (const [args, message] of [
      [['certify', '--target', url], /the target URL carries no credentials/],
      [['plan', '--target', url], /the target URL carries no credentials/],
      [['proxy', '--upstream', url, '--duration', '1s', '--out', mkdtempSync(join(tmpdir(), 'apicert-proxy-'))], /--upstream carries credentials/],
    ] as const) {
      const run = apicert(...args);
      expect(run.code, run.err).toBe(2);
      expect(run.err).toMatch(message);
      expect(run.out + run.err).not.toContain('Pw-In-The-Url');
    }
  });

  it('refuses --out under /proc with exit 2 instead of hanging', () => {
    const run = apicert('certify', '--rules', 'v8.missions.get.ok', '--out', '/proc/apicert-no-such/reports');
    expect(run.code, run.err).toBe(2);
    expect(run.err).toMatch(/cannot write reports to \/proc\/apicert-no-such\/reports \(ENOENT\): choose a writable directory with --out/);
  });

  it('refuses a bad port, a busy port, a bad deadline and a bad seed with exit 2 and no stack trace', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as { port: number }).port;
    try {
      for (const [args, message] of [
        [['fake', '--port', 'abc'], /the port is an integer/],
        [['fake', '--port', String(port), '--profile-out', join(mkdtempSync(join(tmpdir(), 'apicert-fake-')), 'p.json')], /cannot listen on 127\.0\.0\.1:\d+ \(EADDRINUSE\)/],
        [['proxy', '--upstream', 'http://127.0.0.1:9', '--port', String(port), '--out', mkdtempSync(join(tmpdir(), 'apicert-proxy-'))], /listen 127\.0\.0\.1:\d+: the address is already in use \(EADDRINUSE\); choose another port \(--port, or 0 for a free one\)/],
        [['judge-client', '--port', String(port), '--', process.execPath, '-e', ''], /cannot listen on 127\.0\.0\.1:\d+ \(EADDRINUSE\): choose another --port, or 0 for a free one/],
        [['judge-client', '--scenario', ',', '--', process.execPath, '-e', ''], /name at least one scenario/],
        [['certify', '--deadline', 'soon'], /give a duration/],
        [['certify', '--seed', '-1'], /the seed is an integer/],
      ] as const) {
        const run = apicert(...args);
        expect(run.code, run.err).toBe(2);
        expect(run.err).toMatch(message);
        expect(run.err).not.toMatch(/\n\s+at /);
      }
    } finally {
      busy.close();
    }
  });

  it('writes a partial report and exits 143 when the launcher gets SIGTERM mid-run', { timeout: 60_000 }, async () => {
    const out = mkdtempSync(join(tmpdir(), 'apicert-term-'));
    const child = spawn(process.execPath, [BIN, 'certify', '--out', out], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString('utf8');
      // Once a few rules have finished, the run is under way: interrupt it.
      if (stdout.split('\n').length > 5 && !child.killed) child.kill('SIGTERM');
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    expect(code).toBe(143);
    expect(existsSync(join(out, 'latest', 'report.json'))).toBe(true);
    const report = JSON.parse(readFileSync(join(out, 'latest', 'report.json'), 'utf8')) as { run: { stopped?: string }; rules: Array<{ verdict: string; reason?: string }> };
    expect(report.run.stopped).toMatch(/SIGTERM/);
    expect(report.rules.some((r) => r.verdict === 'inconclusive' && /SIGTERM/.test(r.reason ?? ''))).toBe(true);
    expect(report.rules.some((r) => r.verdict === 'pass')).toBe(true);
  });
});
