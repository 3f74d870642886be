/**
 * Certifies a hostile target in a child apicert and measures it from outside: wall time, the
 * child's peak RSS (VmHWM, sampled from /proc on a thread of its own), exit code, every output it wrote.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Verdict } from '../../src/rule/index.ts';
import { leaksOf } from '../support/leaks.ts';
import { startHostile, type HostileMode } from './hostile-server.ts';

const BIN = new URL('../../bin/apicert.js', import.meta.url).pathname;

export interface HostileRun {
  mode: HostileMode;
  wallMs: number;
  /** Peak resident set of the apicert process, in MiB; undefined where /proc is not readable. */
  peakRssMiB: number | undefined;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  verdicts: Partial<Record<Verdict, number>>;
  /** Every output apicert produced, by name: stdout, stderr and each report file. */
  outputs: Record<string, string>;
  report: { rules: Array<{ id: string; verdict: Verdict; reason?: string }>; run: { stopped?: string } } | undefined;
  /** Secret leaks: `output: form` for each secret found anywhere. */
  leaks: string[];
}

export interface HostileRunOptions {
  /** Passed as --deadline. */
  deadline: string;
  /** Passed as --rules when given (the short variant). */
  rules?: string;
  /** Kills the child (and fails the run) after this long: apicert must have stopped by itself. */
  killAfterMs: number;
}

export async function certifyHostile(mode: HostileMode, options: HostileRunOptions): Promise<HostileRun> {
  const target = await startHostile(mode);
  const dir = mkdtempSync(join(tmpdir(), `apicert-hostile-${mode}-`));
  const profilePath = join(dir, 'profile.json');
  writeFileSync(profilePath, JSON.stringify(target.profile), { mode: 0o600 });
  const out = join(dir, 'reports');
  const args = [BIN, 'certify', '--profile', profilePath, '--out', out, '--deadline', options.deadline, '--seed', '7'];
  if (options.rules) args.push('--rules', options.rules);
  const started = performance.now();
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const sampler = new Worker(new URL('./rss-sampler.ts', import.meta.url), { workerData: { pid: child.pid } });
  const killer = setTimeout(() => child.kill('SIGKILL'), options.killAfterMs);
  // 'close', not 'exit': the last lines apicert wrote may still be in the pipe when it has exited.
  const [exitCode, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('close', (code, sig) => resolve([code, sig])));
  const wallMs = performance.now() - started;
  // Asked after the exit: a sample taken while apicert still ran holds its high-water mark.
  const peak = await new Promise<number | undefined>((resolve) => {
    sampler.once('message', resolve);
    sampler.postMessage('stop');
  });
  await sampler.terminate();
  clearTimeout(killer);
  await target.close();
  const outputs: Record<string, string> = { stdout, stderr };
  let files: string[] = [];
  // Each run writes its own folder below --out; `latest` points at it.
  const folder = join(out, 'latest');
  try {
    files = readdirSync(folder);
  } catch {
    files = [];
  }
  for (const f of files) outputs[f] = readFileSync(join(folder, f), 'utf8');
  const report = outputs['report.json'] ? (JSON.parse(outputs['report.json']) as HostileRun['report']) : undefined;
  const verdicts: HostileRun['verdicts'] = {};
  for (const r of report?.rules ?? []) verdicts[r.verdict] = (verdicts[r.verdict] ?? 0) + 1;
  const leaks: string[] = [];
  for (const secret of target.secrets()) {
    for (const [name, text] of Object.entries(outputs)) for (const form of leaksOf(text, secret)) leaks.push(`${name}: ${form} (${secret.length}-character secret)`);
  }
  return { mode, wallMs, peakRssMiB: peak === undefined ? undefined : Math.round(peak / 1024), exitCode, signal, verdicts, outputs, report, leaks };
}
