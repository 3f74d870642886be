/**
 * `npm run bench:passive`: how fast a recording is judged. Prints figures, asserts nothing.
 *
 * Records a full certify run of the embedded fake (`apicert certify --har-out`, as a user would; or
 * reads BENCH_HAR), then, in this one process and interleaved so both see the same machine load:
 * a plain parse and walk of the same HAR (read, JSON.parse, visit every entry's strings), and the
 * passive judgement of it (readHar, then every rule over the recording, redaction included, as
 * `judge-traffic` does). The ratio of the two is what apicert adds over merely reading the file.
 * Then `apicert judge-traffic` itself, timed as whole processes: what a user waits for.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { readHar } from '../src/passive/har.ts';
import { judgeRecording } from '../src/passive/judge.ts';
import { profileOfFacts } from '../src/passive/profile-facts.ts';

const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 7));
/** Whole `judge-traffic` processes timed after the rounds (BENCH_PROCESSES=0 skips them). */
const PROCESSES = Math.max(0, Number(process.env.BENCH_PROCESSES ?? 3));
/**
 * V8 compiles the judging code over its first two rounds, each of which costs 1.5-2.5 times a later
 * one: with three rounds the median was the second, half-compiled one. The steady figures are the
 * medians of the rounds after these; the first round, which is what one `judge-traffic` run sees, is
 * printed apart.
 */
const WARM_UP = 2;

/** The rounds the steady figures are taken from: those after the warm-up, when there are any. */
function steady(values: number[]): number[] {
  return values.length > WARM_UP ? values.slice(WARM_UP) : values;
}

function median(values: number[]): number {
  const sorted = [...steady(values)].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** The recording of a full certify run of the embedded fake, made by the CLI. */
function record(): string {
  const dir = mkdtempSync(join(tmpdir(), 'apicert-bench-passive-'));
  const har = join(dir, 'run.har');
  const bin = new URL('../bin/apicert.js', import.meta.url).pathname;
  const started = performance.now();
  const run = spawnSync(process.execPath, [bin, 'certify', '--har-out', har, '--out', join(dir, 'reports'), '--quiet'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (run.status !== 0) throw new Error(`certify --har-out exited ${run.status}: ${run.stderr.slice(-2000)}`);
  console.log(`recorded: apicert certify --har-out ${har} (${(statSync(har).size / 1024 / 1024).toFixed(1)} MiB) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return har;
}

/**
 * What a user waits for: `apicert judge-traffic` as a whole process (start-up, V8's flags as the
 * launcher sets them, reading, judging, the four reports written), the median of `runs`. The rounds
 * above time judging inside one process; this is the figure `time apicert judge-traffic` shows.
 */
function wholeProcess(file: string, runs: number): { wall: number; exitCodes: number[] } {
  const bin = new URL('../bin/apicert.js', import.meta.url).pathname;
  const out = mkdtempSync(join(tmpdir(), 'apicert-bench-judge-traffic-'));
  const walls: number[] = [];
  const exitCodes: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const started = performance.now();
    const run = spawnSync(process.execPath, [bin, 'judge-traffic', '--har', file, '--out', out, '--quiet'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    walls.push(performance.now() - started);
    exitCodes.push(run.status ?? -1);
  }
  rmSync(out, { recursive: true, force: true });
  walls.sort((a, b) => a - b);
  return { wall: walls[Math.floor(walls.length / 2)]!, exitCodes };
}

/** The baseline: read and parse the file, and touch every string of every entry once. */
function plainWalk(file: string): number {
  const doc = JSON.parse(readFileSync(file, 'utf8')) as { log: { entries: unknown[] } };
  let chars = 0;
  const visit = (value: unknown): void => {
    if (typeof value === 'string') chars += value.length;
    else if (Array.isArray(value)) for (const v of value) visit(v);
    else if (value !== null && typeof value === 'object') for (const v of Object.values(value)) visit(v);
  };
  for (const entry of doc.log.entries) visit(entry);
  return doc.log.entries.length + (chars === -1 ? 1 : 0);
}

/** Issue #35's aim: a recording judged at this many exchanges per second on a 2-core machine. */
const AIM = 5_000;

/** Wall and CPU time of one step, per round. */
class Step {
  readonly wall: number[] = [];
  readonly cpu: number[] = [];
  private started = 0;
  private cpuAt: NodeJS.CpuUsage = { user: 0, system: 0 };

  start(): void {
    this.started = performance.now();
    this.cpuAt = process.cpuUsage();
  }

  stop(): void {
    this.wall.push(performance.now() - this.started);
    const used = process.cpuUsage(this.cpuAt);
    this.cpu.push((used.user + used.system) / 1000);
  }
}

async function main(): Promise<void> {
  const file = process.env.BENCH_HAR ?? record();
  const cores = availableParallelism();
  const load = loadavg()[0]!;
  console.log(`apicert passive bench on Node ${process.version}: ${file}, ${ROUNDS} rounds; figures are medians of the rounds after the first ${Math.min(WARM_UP, ROUNDS - 1)} (steady: V8 has compiled the code), the first round apart; ${cores} cores, load average ${load.toFixed(1)}`);
  const walk = new Step();
  const read = new Step();
  const judge = new Step();
  const whole = new Step();
  let exchanges = 0;
  let summary = '';
  for (let round = 0; round < ROUNDS; round += 1) {
    walk.start();
    const entries = plainWalk(file);
    walk.stop();
    whole.start();
    read.start();
    const recording = await readHar(file);
    read.stop();
    judge.start();
    // As judge-traffic does with no --profile: the facts a certify --har-out recording carries, when it has them.
    const profile = profileOfFacts(recording.facts, file);
    const judged = await judgeRecording(recording.exchanges, { env: {}, ...(profile ? { profile } : {}) });
    judge.stop();
    whole.stop();
    exchanges = recording.exchanges.length;
    const s = judged.report.summary;
    summary = `gate ${s.gate}, ${s.judged} rules judged (pass or fail), ${entries} entries`;
  }
  const rate = (ms: number) => Math.round((exchanges / ms) * 1000);
  // CPU time counts every thread of the process (the collector's helpers too), so on an idle machine wall time is at most about that.
  const line = (name: string, step: Step) => {
    const wall = median(step.wall);
    const cpu = median(step.cpu);
    return `${name}: ${wall.toFixed(0)} ms wall (${rate(wall)} exchanges/s), ${cpu.toFixed(0)} ms CPU (${rate(cpu)} exchanges per CPU second)`;
  };
  const walkCpu = median(walk.cpu);
  console.log(line('plain parse and walk of the HAR', walk));
  console.log(line('readHar (parse into exchanges)', read));
  console.log(`${line('judging every rule, redaction included', judge)}; ${(median(judge.cpu) / walkCpu).toFixed(1)}x the plain walk's CPU`);
  console.log(`${line('judge-traffic end to end (readHar + judging)', whole)}; ${(median(whole.cpu) / walkCpu).toFixed(1)}x the plain walk's CPU (${summary})`);
  console.log(`first round, as one judge-traffic run is (code not yet compiled): judging ${judge.wall[0]!.toFixed(0)} ms wall (${rate(judge.wall[0]!)} exchanges/s), end to end ${whole.wall[0]!.toFixed(0)} ms wall (${rate(whole.wall[0]!)} exchanges/s), ${whole.cpu[0]!.toFixed(0)} ms CPU`);
  const verdict = (step: Step) => {
    const wall = rate(median(step.wall));
    const cpu = rate(median(step.cpu));
    return `${wall >= AIM ? 'met' : 'NOT met'} by wall time (${wall}/s), ${cpu >= AIM ? 'met' : 'NOT met'} per CPU second (${cpu}/s)`;
  };
  console.log(`aim of issue #35, ${AIM} exchanges/s on a 2-core machine, steady: judging ${verdict(judge)}; end to end ${verdict(whole)}; first round: judging ${rate(judge.wall[0]!) >= AIM ? 'met' : 'NOT met'}, end to end ${rate(whole.wall[0]!) >= AIM ? 'met' : 'NOT met'} by wall time`);
  if (PROCESSES > 0) {
    const whole = wholeProcess(file, PROCESSES);
    console.log(`apicert judge-traffic --har as a whole process (start-up, judging, the four reports written), median of ${PROCESSES}: ${whole.wall.toFixed(0)} ms wall (${rate(whole.wall)} exchanges/s); exit codes ${whole.exitCodes.join(', ')}`);
  }
  const busy = Math.max(load, loadavg()[0]!);
  // The bench itself keeps more than one core busy (the collector's helpers run beside judging), so only a load past the cores says other work shared them.
  if (busy > cores) console.log(`the machine had other work (load average up to ${busy.toFixed(1)} on ${cores} cores): wall times are stretched by it; CPU time counts this process's threads only (the collector's helpers too), so it is the steadier figure`);
}

await main();
