/**
 * `node bench/load-fanout-scale.ts`: prints figures, asserts nothing. N readers of one live
 * mission (the fake's `cancellable` scenario, ~4 s of events) at N = 100, 1,000 and 5,000
 * (BENCH_READERS=a,b,... to choose), read once by real k6 (the v8-stream-fanout bundle, one
 * iteration, no resumers) and once by apicert's own SSE reader (bench/sse-readers.ts), each in a
 * process of its own under /usr/bin/time: peak memory, CPU time and wall time, and k6's over
 * apicert's as ratios (the machine is shared: only same-run ratios mean anything). The fake runs
 * in this process. Needs k6 (K6_BINARY or PATH); says it is skipped without one.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { missionScenarios } from '../scenarios/v8/missions.ts';
import { bundleLoadScripts, LOAD_SCRIPT_FILES } from '../load/build.ts';
import { EMBEDDED_LOAD_FAKE } from '../src/cli/load.ts';
import { embeddedProfile } from '../src/fake/embedded-profile.ts';
import { startFake } from '../src/fake/server.ts';
import { findK6, K6Missing, checkK6Version } from '../src/load/k6-binary.ts';
import { envFromProfile } from '../src/load/profile-env.ts';
import { parseSummaries } from '../src/load/summary.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface Measured {
  peakMb: number;
  cpuS: number;
  wallS: number;
  output: string;
}

/** Runs a command under /usr/bin/time; stopped after `limitMs`. */
function measured(command: string, args: string[], env: Record<string, string | undefined>, limitMs: number): Promise<Measured> {
  const child = spawn('/usr/bin/time', ['-f', 'apicert-bench-time %M %U %S %e', command, ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const timer = setTimeout(() => child.kill('SIGTERM'), limitMs);
  return new Promise((resolve) => {
    child.on('close', () => {
      clearTimeout(timer);
      const m = /apicert-bench-time (\d+) ([\d.]+) ([\d.]+) ([\d.]+)/.exec(output);
      resolve({ peakMb: m ? Number(m[1]) / 1024 : NaN, cpuS: m ? Number(m[2]) + Number(m[3]) : NaN, wallS: m ? Number(m[4]) : NaN, output });
    });
  });
}

let k6: string;
try {
  k6 = await findK6();
} catch (error) {
  if (!(error instanceof K6Missing)) throw error;
  console.log(`bench:load-fanout-scale skipped: ${error.message}`);
  process.exit(0);
}
const version = await checkK6Version(k6);
const sizes = (process.env.BENCH_READERS ?? '100,1000,5000').split(',').map(Number);
const work = mkdtempSync(join(tmpdir(), 'apicert-fanout-scale-'));
await bundleLoadScripts(work, true, LOAD_SCRIPT_FILES.filter((f) => f.endsWith('/v8-stream-fanout.ts')));
const fake = await startFake({ config: EMBEDDED_LOAD_FAKE });
const env = envFromProfile(embeddedProfile(fake));
const body = JSON.stringify(missionScenarios.cancellable.request);

const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '-');
console.log(`k6 ${version} and apicert's SSE reader, N readers of one live mission (fake: ${fake.baseUrl}, this process)\n`);
console.log('| N | k6 readers judged | k6 peak MB | k6 CPU s | k6 wall s | apicert streams read | apicert peak MB | apicert CPU s | apicert wall s | k6/apicert memory | CPU | wall |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
try {
  for (const n of sizes) {
    const summaryPath = join(work, `fanout-${n}.summary.json`);
    const settings = { APICERT_READERS: String(n), APICERT_RESUMERS: '0', APICERT_ITERATIONS: '1', APICERT_VUS: '1', APICERT_STREAM_TIMEOUT: '60s', APICERT_MAX_DURATION: '150s', APICERT_MISSION_BODY: body, APICERT_SUMMARY_OUT: summaryPath };
    const k = await measured(k6, ['run', '--quiet', '--no-usage-report', join(work, 'v8-stream-fanout.js')], { ...env, ...settings }, 240_000);
    const summary = existsSync(summaryPath) ? parseSummaries(readFileSync(summaryPath, 'utf8'), summaryPath)[0] : undefined;
    const judged = summary?.figures.v8_fanout_readers_judged?.max ?? 0;
    const a = await measured(process.execPath, [join(ROOT, 'bench', 'sse-readers.ts'), String(n)], { BENCH_BASE_URL: env.APICERT_BASE_URL, BENCH_TOKEN: env.APICERT_V8_TOKEN, BENCH_MISSION_BODY: body }, 240_000);
    const read = /\{"streams":(\d+)/.exec(a.output)?.[1] ?? '0';
    console.log(`| ${n} | ${judged} | ${fmt(k.peakMb)} | ${fmt(k.cpuS, 2)} | ${fmt(k.wallS, 2)} | ${read} | ${fmt(a.peakMb)} | ${fmt(a.cpuS, 2)} | ${fmt(a.wallS, 2)} | ${fmt(k.peakMb / a.peakMb, 2)} | ${fmt(k.cpuS / a.cpuS, 2)} | ${fmt(k.wallS / a.wallS, 2)} |`);
  }
} finally {
  await fake.close();
}
