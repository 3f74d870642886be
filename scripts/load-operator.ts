/**
 * What the k6-operator (v1.6.0) runs for a TestRun that `apicert load --emit-k6-operator` wrote,
 * executed on one machine: the initializer pod's shell program (`k6 archive` with the TestRun's
 * `.env` as `-e` flags, then `k6 inspect --execution-requirements`, and the controller's refusal of
 * a script with fewer VUs than instances), then each runner pod's `k6 run` with its execution
 * segment, paused on its REST API, all side by side, then the starter's PATCH that resumes them,
 * and the runners' logs as `kubectl logs` would give them.
 *
 * Read from the operator's source (github.com/grafana/k6-operator at v1.6.0):
 * pkg/resources/jobs/initializer.go (initializerShellScript, newInitializerCommand),
 * pkg/types/k6cli.go (ParseCLI: the arguments `k6 archive` gets), pkg/resources/jobs/runner.go
 * (NewRunnerJob), pkg/segmentation/segmentation.go (NewCommandFragments),
 * pkg/resources/containers/curl_start.go (the starter), internal/controller/k6_initialize.go.
 * Not a cloud (PLZ) run: setup() runs in every runner, as the scheduler does when nothing calls
 * /v1/setup first.
 *
 * What one machine changes, and only that: each pod's `/test` (the ConfigMap) and `/tmp` are
 * folders of their own under `dir`, `k6` is the binary under test on PATH, and each runner's
 * `--address=0.0.0.0:6565` is a loopback port of its own.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { Env } from '../src/load/config.ts';

interface EnvVar {
  name: string;
  value: string;
}

interface TestRunManifest {
  metadata: { name: string };
  spec: {
    parallelism: number;
    arguments?: string;
    script: { configMap: { name: string; file: string } };
    runner: { env?: EnvVar[]; envFrom?: Array<{ secretRef: { name: string } }> };
  };
}

export interface Pod {
  code: number;
  /** stdout and stderr, as `kubectl logs` shows them. */
  log: string;
}

export interface OperatorRun {
  initializer: Pod;
  /** `k6 inspect --execution-requirements`: maxVUs, or undefined when it printed none. */
  maxVUs?: number;
  /** Why the controller would stop here (fewer VUs than instances), if it would. */
  refused?: string;
  runners: Pod[];
}

/** pkg/segmentation: the `--execution-segment` and `--execution-segment-sequence` of runner `index` (from 1) of `total`. */
export function segmentArguments(index: number, total: number): string[] {
  const part = (i: number) => (i === 0 ? '0' : i === total ? '1' : `${i}/${total}`);
  const sequence = ['0', ...Array.from({ length: total - 1 }, (_, i) => `${i + 1}/${total}`), '1'];
  return [`--execution-segment=${part(index - 1)}:${part(index)}`, `--execution-segment-sequence=${sequence.join(',')}`];
}

/** pkg/types/k6cli.go ParseCLI: the TestRun's arguments that `k6 archive` also takes. */
export function archiveArguments(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; ) {
    let end = i + 1;
    while (end < argv.length && !argv[end]!.startsWith('-')) end += 1;
    const flag = argv[i]!;
    const dropped = flag.startsWith('--log-output') || flag.startsWith('--block-hostnames') || flag.startsWith('--blacklist-ip') || flag.startsWith('--user-agent') || ['-o', '--out', '-l', '--linger', '--no-usage-report', '--verbose', '-v'].includes(flag);
    if (!dropped) out.push(...argv.slice(i, end));
    i = end;
  }
  return out;
}

/** pkg/resources/jobs/initializer.go initializerShellScript, with the pod's /tmp at `tmp`. */
function initializerScript(archiveRef: string, archiveCmd: string, tmp: string): string {
  return [
    'if ! command -v k6 >/dev/null 2>&1; then',
    `  echo 'level=error msg="k6 executable not found in PATH; initializer image must contain k6"' >&2`,
    '  exit 127',
    'fi',
    '',
    `logs=${tmp}/k6logs`,
    `if ! mkdir -p "$(dirname ${archiveRef})"; then`,
    '  exit 1',
    'fi',
    '',
    `if ! ${archiveCmd} 2> "\${logs}"; then`,
    '  cat "${logs}"',
    '  exit 1',
    'fi',
    '',
    `if ! k6 inspect --execution-requirements ${archiveRef} 2> "\${logs}"; then`,
    '  cat "${logs}"',
    '  exit 1',
    'fi',
    '',
    `if grep 'level.*error' "\${logs}"; then`,
    '  exit 1',
    'fi',
  ].join('\n');
}

/** A free loopback port (the operator's runners and load:verify's fakes each take one). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

interface Started {
  done: Promise<Pod>;
  kill(): void;
}

/** One pod's container: its command, its environment, bounded to `limitMs` (then killed by its PID). */
function container(command: string[], env: Env, limitMs: number): Started {
  const child = spawn(command[0]!, command.slice(1), { env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout.on('data', (d: Buffer) => (log += d.toString()));
  child.stderr.on('data', (d: Buffer) => (log += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
  // A paused runner waits for ever: it goes when this process goes.
  const orphaned = () => child.kill('SIGKILL');
  process.once('exit', orphaned);
  const done = new Promise<Pod>((resolve) => {
    child.on('error', (error) => resolve({ code: -1, log: `${log}${String(error)}` }));
    child.on('close', (code) => {
      clearTimeout(timer);
      process.off('exit', orphaned);
      resolve({ code: code ?? -1, log });
    });
  });
  return { done, kill: () => child.exitCode === null && child.kill('SIGKILL') };
}

/** The REST API of a paused runner answers once its init has run (Babel-era k6 takes a while). */
async function ready(port: number, pod: Started, limitMs: number): Promise<boolean> {
  let exited = false;
  void pod.done.then(() => (exited = true));
  const until = Date.now() + limitMs;
  while (Date.now() < until && !exited) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/v1/status`, { signal: AbortSignal.timeout(2_000) });
      await res.body?.cancel();
      if (res.ok) return true;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

/** pkg/resources/containers/curl_start.go: `curl --retry 3 -X PATCH .../v1/status` with paused false, per runner. */
async function start(port: number): Promise<void> {
  const body = JSON.stringify({ data: { attributes: { paused: false }, id: 'default', type: 'status' } });
  for (let attempt = 0; attempt < 4; attempt += 1) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/v1/status`, { method: 'PATCH', headers: { 'Content-Type': 'application/json' }, body, signal: AbortSignal.timeout(10_000) });
      await res.body?.cancel();
      if (res.ok) return;
    } catch {
      // retried, as curl --retry 3 does
    }
  }
}

/** A pod's environment: `.env` of the TestRun, the Secret's keys (envFrom), `/tmp` paths on the pod's own folder, and k6 on PATH. */
function podEnv(vars: readonly EnvVar[], secret: Env, tmp: string, bin: string): Env {
  const env: Env = { PATH: `${bin}:${process.env.PATH ?? ''}`, HOME: process.env.HOME };
  for (const v of vars) env[v.name] = v.value.startsWith('/tmp/') ? join(tmp, v.value.slice('/tmp/'.length)) : v.value;
  return { ...secret, ...env };
}

/**
 * Runs a TestRun as the operator would: `testRun` and `configMap` are the YAML the emitter wrote,
 * `secret` the keys of the Secret its README creates, `k6` the binary the images would hold.
 */
export async function runAsOperator(options: { k6: string; dir: string; testRun: string; configMap: string; secret: Env; limitMs: number }): Promise<OperatorRun> {
  const testRun = parse(options.testRun) as TestRunManifest;
  const configMap = parse(options.configMap) as { data: Record<string, string> };
  const { parallelism } = testRun.spec;
  const file = testRun.spec.script.configMap.file;
  const bin = join(options.dir, 'bin');
  const test = join(options.dir, 'test');
  mkdirSync(bin, { recursive: true });
  mkdirSync(test, { recursive: true });
  symlinkSync(options.k6, join(bin, 'k6'));
  // The ConfigMap mounted at /test (pkg/types/script.go VolumeMount).
  writeFileSync(join(test, file), configMap.data[file]!);
  const script = join(test, file);
  const argv = (testRun.spec.arguments ?? '').split(/\s+/).filter(Boolean);
  const vars = testRun.spec.runner.env ?? [];
  const secret = testRun.spec.runner.envFrom?.length ? options.secret : {};

  // The initializer: a copy of the runner (no .spec.initializer), `.spec.arguments` through `sh -c`.
  const initTmp = join(options.dir, 'initializer', 'tmp');
  mkdirSync(initTmp, { recursive: true });
  const archive = join(initTmp, `${file}.archived.tar`);
  const envFlags = vars.map((v) => ` -e ${v.name}="\${${v.name}}"`).join('');
  const archiveCmd = `k6 archive ${script}${envFlags} -O ${archive} ${archiveArguments(argv).join(' ')}`;
  const initializer = await container(['sh', '-c', initializerScript(archive, archiveCmd, initTmp)], podEnv(vars, secret, initTmp, bin), options.limitMs).done;
  writeFileSync(join(options.dir, 'initializer.log'), initializer.log);
  const maxVUs = /"maxVUs":\s*(\d+)/.exec(initializer.log)?.[1];
  const run: OperatorRun = { initializer, runners: [], ...(maxVUs ? { maxVUs: Number(maxVUs) } : {}) };
  if (initializer.code !== 0) return { ...run, refused: 'the initializer failed' };
  // internal/controller/k6_initialize.go: "number of instances > number of VUs".
  if (maxVUs === undefined || Number(maxVUs) < parallelism) return { ...run, refused: `number of instances > number of VUs (maxVUs ${maxVUs ?? 'unknown'}, parallelism ${parallelism})` };

  // The runners, each paused on its REST API (pkg/resources/jobs/runner.go).
  const ports = await Promise.all(Array.from({ length: parallelism }, freePort));
  const pods = ports.map((port, i) => {
    const index = i + 1;
    const tmp = join(options.dir, `runner-${index}`, 'tmp');
    mkdirSync(tmp, { recursive: true });
    const command = ['k6', 'run', '--quiet', ...(parallelism > 1 ? segmentArguments(index, parallelism) : []), ...argv, script, `--address=127.0.0.1:${port}`, '--paused', '--tag', `instance_id=${index}`, '--tag', `testrun_name=${testRun.metadata.name}`];
    return container([join(bin, 'k6'), ...command.slice(1)], podEnv(vars, secret, tmp, bin), options.limitMs);
  });
  try {
    const up = await Promise.all(ports.map((port, i) => ready(port, pods[i]!, Math.min(options.limitMs, 180_000))));
    // The starter: once every runner's service is ready, resume them all.
    if (up.every(Boolean)) await Promise.all(ports.map(start));
    run.runners = await Promise.all(pods.map((p) => p.done));
    run.runners.forEach((r, i) => writeFileSync(join(options.dir, `runner-${i + 1}.log`), r.log));
  } finally {
    for (const p of pods) p.kill();
  }
  return run;
}
