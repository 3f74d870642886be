/**
 * `npm run bench:passive`: how fast a recording is judged. Prints figures, asserts nothing.
 *
 * Records a full certify run of the embedded fake (`apicert certify --har-out`, as a user would; or
 * reads BENCH_HAR), then, in this one process and interleaved so both see the same machine load:
 * a plain parse and walk of the same HAR (read, JSON.parse, visit every entry's strings), and the
 * passive judgement of it (readHar, then every rule over the recording, redaction included, as
 * `judge-traffic` does). The ratio of the two is what apicert adds over merely reading the file.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readHar } from '../src/passive/har.ts';
import { judgeRecording } from '../src/passive/judge.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
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

async function main(): Promise<void> {
  const file = process.env.BENCH_HAR ?? record();
  console.log(`apicert passive bench on Node ${process.version}: ${file}, ${ROUNDS} rounds, figures are medians`);
  const walkMs: number[] = [];
  const readMs: number[] = [];
  const judgeMs: number[] = [];
  // CPU time beside wall time: a machine shared with other work stretches wall time far more.
  const walkCpu: number[] = [];
  const judgeCpu: number[] = [];
  const cpuMs = (since: NodeJS.CpuUsage) => {
    const used = process.cpuUsage(since);
    return (used.user + used.system) / 1000;
  };
  let exchanges = 0;
  let summary = '';
  for (let round = 0; round < ROUNDS; round += 1) {
    let started = performance.now();
    let cpu = process.cpuUsage();
    const entries = plainWalk(file);
    walkMs.push(performance.now() - started);
    walkCpu.push(cpuMs(cpu));
    started = performance.now();
    const recording = await readHar(file);
    readMs.push(performance.now() - started);
    started = performance.now();
    cpu = process.cpuUsage();
    const judged = await judgeRecording(recording.exchanges, { env: {} });
    judgeMs.push(performance.now() - started);
    judgeCpu.push(cpuMs(cpu));
    exchanges = recording.exchanges.length;
    const s = judged.report.summary;
    summary = `gate ${s.gate}, ${s.judged} rules judged (pass or fail), ${entries} entries`;
  }
  const rate = (ms: number) => Math.round((exchanges / ms) * 1000);
  const walk = median(walkMs);
  const read = median(readMs);
  const judge = median(judgeMs);
  console.log(`plain parse and walk of the HAR: ${walk.toFixed(0)} ms, ${rate(walk)} exchanges/s`);
  console.log(`readHar (parse into exchanges):  ${read.toFixed(0)} ms, ${rate(read)} exchanges/s`);
  console.log(`judging every rule, redaction included: ${judge.toFixed(0)} ms, ${rate(judge)} exchanges/s`);
  console.log(`CPU time: plain parse and walk ${median(walkCpu).toFixed(0)} ms; judging ${median(judgeCpu).toFixed(0)} ms, ${rate(median(judgeCpu))} exchanges per CPU second; judging/walk ${(median(judgeCpu) / median(walkCpu)).toFixed(1)}x`);
  console.log(`judge-traffic end to end (readHar + judging): ${(read + judge).toFixed(0)} ms, ${rate(read + judge)} exchanges/s for ${exchanges} exchanges; ${((read + judge) / walk).toFixed(1)}x the plain walk (${summary})`);
}

await main();
