/**
 * Ctrl-C on the long-running side commands: what was judged so far is written, the exit code says
 * SIGINT (130), and nothing apicert started is left behind. A crashed client shows its exit code
 * and output, redacted.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, realpathSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { judgeClient } from '../../src/client-judge/judge-client.ts';

const BIN = new URL('../../bin/apicert.js', import.meta.url).pathname;

interface Ended {
  code: number | null;
  out: string;
  err: string;
}

/** Starts apicert, sends SIGINT once `ready` matches its output (or settles), and resolves when it has exited (bounded). */
function interruptWhen(args: string[], ready: RegExp | Promise<void>, env: Record<string, string> = {}): Promise<Ended> {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let sent = false;
  const interrupt = () => {
    if (sent) return;
    sent = true;
    child.kill('SIGINT');
  };
  const look = () => ready instanceof RegExp && ready.test(out + err) && interrupt();
  if (!(ready instanceof RegExp)) void ready.then(interrupt);
  child.stdout.on('data', (c: Buffer) => ((out += c.toString()), look()));
  child.stderr.on('data', (c: Buffer) => ((err += c.toString()), look()));
  const limit = setTimeout(() => child.kill('SIGKILL'), 45_000);
  return new Promise((resolve) => child.once('close', (code) => (clearTimeout(limit), resolve({ code, out, err }))));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('Ctrl-C on judge-client and certify-receiver', () => {
  it('judge-client: stops the client by its PID, writes the partial report, exits 130', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apicert-int-client-'));
    const pidFile = join(dir, 'client.pid');
    // A client that says it started and then hangs: only apicert can end it.
    const client = [process.execPath, '-e', `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); console.log('client up'); setInterval(() => {}, 1000)`];
    const run = await interruptWhen(['judge-client', '--scenario', 'idempotency-conflict,replay-window', '--show-client-output', '--max-seconds', '60', '--out', join(dir, 'out'), '--', ...client], /client up/);
    expect(run.code, run.err).toBe(130);
    expect(run.err).toMatch(/SIGINT received/);
    const report = JSON.parse(readFileSync(join(dir, 'out', 'latest', 'report.json'), 'utf8')) as { run: { stopped?: string }; rules: Array<{ id: string; verdict: string }> };
    expect(report.run.stopped).toMatch(/SIGINT/);
    expect(report.rules.length).toBeGreaterThan(0);
    expect(report.rules.some((r) => r.verdict === 'pass')).toBe(false);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    for (let i = 0; i < 50 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
    expect(alive(pid)).toBe(false);
  }, 60_000);

  it('certify-receiver: a receiver that never answers a delivery is interrupted; the partial report is written, exit 130', async () => {
    // Answers the first probe, then holds every delivery open.
    const held = new Set<ServerResponse>();
    let delivered!: () => void;
    const firstDelivery = new Promise<void>((r) => (delivered = r));
    const server: Server = createServer((req, res) => {
      if (req.method === 'GET') return void res.end('ok');
      held.add(res);
      delivered();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const dir = mkdtempSync(join(tmpdir(), 'apicert-int-receiver-'));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      const result = await interruptWhen(['certify-receiver', '--url', url, '--out', join(dir, 'out')], firstDelivery, { APICERT_WEBHOOK_SECRET: 'whsec_interrupt-test-0123456789' });
      expect(result.code, result.err).toBe(130);
      const report = JSON.parse(readFileSync(join(dir, 'out', 'latest', 'report.json'), 'utf8')) as { run: { stopped?: string }; rules: Array<{ verdict: string }> };
      expect(report.run.stopped).toMatch(/SIGINT/);
      expect(report.rules.some((r) => r.verdict === 'pass')).toBe(false);
      expect(result.out + result.err).not.toContain('whsec_interrupt-test-0123456789');
    } finally {
      for (const res of held) res.destroy();
      server.close();
    }
  }, 60_000);
});

/** Every PID file a test below made: what a regression would leave running is killed after the tests. */
const pidFiles: string[] = [];
afterAll(() => {
  for (const file of pidFiles) {
    const pid = existsSync(file) ? Number(readFileSync(file, 'utf8')) : 0;
    if (pid > 0 && alive(pid)) process.kill(pid, 'SIGKILL');
  }
});

/** A client whose shell leaves a node process behind that holds the output pipes, writes its PID and never ends on its own. */
function leavesChildBehind(pidFile: string, then: string): string[] {
  pidFiles.push(pidFile);
  const grandchild = `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); console.log('client up'); setInterval(() => {}, 1000)`;
  return ['sh', '-c', `${JSON.stringify(process.execPath)} -e ${JSON.stringify(grandchild)} & ${then}`];
}

async function gone(pidFile: string): Promise<boolean> {
  const pid = Number(readFileSync(pidFile, 'utf8'));
  for (let i = 0; i < 50 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
  return !alive(pid);
}

describe('a client that leaves processes behind', () => {
  it('Ctrl-C stops them too: judge-client exits 130 at once instead of waiting on their pipes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apicert-int-group-'));
    const pidFile = join(dir, 'grandchild.pid');
    const started = performance.now();
    const run = await interruptWhen(['judge-client', '--scenario', 'contract-version', '--show-client-output', '--max-seconds', '60', '--out', join(dir, 'out'), '--', ...leavesChildBehind(pidFile, 'wait')], /client up/);
    expect(run.code, run.err).toBe(130);
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(await gone(pidFile)).toBe(true);
  }, 60_000);

  it('--max-seconds bounds the scenario, and a client that exits leaves nothing running', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apicert-group-'));
    for (const ended of ['deadline', 'exit'] as const) {
      const pidFile = join(dir, `${ended}.pid`);
      // The shell waits for its child, or exits once the child is up (and holds the pipes).
      const then = ended === 'deadline' ? 'wait' : `until [ -s ${JSON.stringify(pidFile)} ]; do sleep 0.1; done; echo done`;
      const started = performance.now();
      const { sessions } = await judgeClient({ scenarios: ['contract-version'], timeScale: 0.02, command: leavesChildBehind(pidFile, then), maxSecondsPerScenario: 2, quietMs: 500 });
      // The deadline, SIGTERM to SIGKILL and the exit grace: far below what the process left behind would hold.
      expect(performance.now() - started).toBeLessThan(10_000);
      expect(sessions[0]!.ended).toBe(ended);
      if (ended === 'exit') expect(sessions[0]!.output).toContain('done');
      expect(await gone(pidFile)).toBe(true);
    }
  }, 60_000);
});

describe('a client command that dies', () => {
  it('shows its exit code and last output, redacted, in the console and the report', () => {
    const dir = mkdtempSync(join(tmpdir(), 'apicert-crash-'));
    const keyFile = join(dir, 'key');
    // Prints the key it was given (which must come out redacted), keeps a copy for the test, and fails at once.
    const client = [process.execPath, '-e', `require('fs').writeFileSync(${JSON.stringify(keyFile)}, process.env.APICERT_V1_KEY); console.error('boom: cannot reach ' + process.env.APICERT_BASE_URL + ' with ' + process.env.APICERT_V1_KEY); process.exit(7)`];
    const run = spawnSync(process.execPath, [BIN, 'judge-client', '--scenario', 'idempotency-conflict', '--out', join(dir, 'out'), '--', ...client], { encoding: 'utf8', timeout: 60_000 });
    // Nothing was judged: the rules are inconclusive (exit 3), and the cause is the client's own exit.
    expect(run.status, run.stderr).toBe(3);
    expect(run.stderr).toMatch(/scenario idempotency-conflict: the client exited with code 7; its last output:\n\s*boom: cannot reach http:\/\/127\.0\.0\.1:\d+ with /);
    const latest = realpathSync(join(dir, 'out', 'latest'));
    const report = readFileSync(join(latest, 'report.json'), 'utf8');
    const parsed = JSON.parse(report) as { run: { warnings?: string[] }; rules: Array<{ reason?: string }> };
    expect(parsed.run.warnings?.[0]).toMatch(/the client exited with code 7; its last output:\nboom: cannot reach/);
    expect(parsed.rules.some((r) => r.reason?.includes('exited with code 7'))).toBe(true);
    expect(readFileSync(join(latest, 'summary.md'), 'utf8')).toMatch(/Warning: scenario idempotency-conflict: the client exited with code 7/);
    expect(readFileSync(join(latest, 'report.html'), 'utf8')).toMatch(/the client exited with code 7/);
    // The key the client printed is in no output.
    const key = readFileSync(keyFile, 'utf8');
    expect(key.length).toBeGreaterThan(8);
    expect(report + run.stdout + run.stderr).not.toContain(key);
    expect(existsSync(join(latest, 'junit.xml'))).toBe(true);
  }, 60_000);
});
