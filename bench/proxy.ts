/**
 * `npm run bench:proxy`: what `apicert proxy` adds. Prints figures, asserts nothing. Every figure
 * is measured against direct requests to the same fake in the same run: the added latency per
 * request (median and p99 of interleaved sequential requests), throughput as a ratio
 * (autocannon), and the proxy's heap after more than 10,000 exchanges. The proxy runs as
 * `apicert proxy` does, in its own process; the fake and the load generator share this one.
 */
import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { embeddedProfile } from '../src/fake/embedded-profile.ts';
import { startFake } from '../src/fake/server.ts';
import { judgeRecording } from '../src/passive/judge.ts';
import { startProxy } from '../src/passive/proxy.ts';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 5);
const CONNECTIONS = 10;
const SEQUENTIAL = Number(process.env.BENCH_REQUESTS ?? 1000);
const MANY = 12_000;
const PATH = '/v8/missions/00000000-0000-7000-8000-000000000000';

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function timed(url: string, headers: Record<string, string>): Promise<number> {
  const started = performance.now();
  const res = await request(url, { headers });
  await res.body.arrayBuffer();
  return performance.now() - started;
}

const cpuUs = (u: NodeJS.CpuUsage) => u.user + u.system;

/** CPU milliseconds a process (and its threads) used so far, from /proc; undefined where there is none. */
function cpuOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime, fields 14 and 15 of stat(5), in clock ticks (100 per second on Linux).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;

/** `apicert proxy` in a child process, and its URL once it listens. */
async function proxyProcess(upstream: string): Promise<{ child: ChildProcess; url: string }> {
  const bin = new URL('../bin/apicert.js', import.meta.url).pathname;
  const out = mkdtempSync(join(tmpdir(), 'apicert-bench-proxy-'));
  // With the flag the launcher would add itself, it runs the proxy in this child instead of a grandchild: its CPU is this child's.
  const child = spawn(process.execPath, ['--max-semi-space-size=2', ...(process.env.BENCH_PROXY_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROXY_PROFILE}`] : []), bin, 'proxy', '--upstream', upstream, '--out', out, '--quiet'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`apicert proxy did not start: ${text}`)), 30_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const found = /apicert proxy: (http:\/\/127\.0\.0\.1:\d+)/.exec(text);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]!);
      }
    });
  });
  return { child, url };
}

async function main(): Promise<void> {
  const fake = await startFake();
  const token = embeddedProfile(fake).credentials.find((c) => c.surfaces.includes('v8') && !c.expired)!.token;
  const headers = { authorization: `Bearer ${token}` };
  const proxy = await proxyProcess(fake.baseUrl);
  try {
    console.log(`apicert proxy bench on Node ${process.version}: GET ${PATH} (a 404 problem) on the reference fake`);
    // Interleaved, so both paths see the same machine load.
    const direct: number[] = [];
    const proxied: number[] = [];
    for (let i = 0; i < 50; i += 1) await timed(`${proxy.url}${PATH}`, headers);
    for (let i = 0; i < SEQUENTIAL; i += 1) {
      direct.push(await timed(`${fake.baseUrl}${PATH}`, headers));
      proxied.push(await timed(`${proxy.url}${PATH}`, headers));
    }
    const med = (v: number[]) => percentile(v, 50);
    const p99 = (v: number[]) => percentile(v, 99);
    console.log(`latency, ${SEQUENTIAL} sequential requests each: direct median ${med(direct).toFixed(2)} ms, p99 ${p99(direct).toFixed(2)} ms; through the proxy median ${med(proxied).toFixed(2)} ms, p99 ${p99(proxied).toFixed(2)} ms`);
    console.log(`added by the proxy: median +${(med(proxied) - med(direct)).toFixed(2)} ms, p99 +${(p99(proxied) - p99(direct)).toFixed(2)} ms per request`);

    // CPU time, which a busy machine stretches far less than wall time: the proxy's own per exchange, beside what the fake and this client spend on one direct exchange.
    const proxyCpu = cpuOf(proxy.child.pid);
    if (proxyCpu !== undefined) {
      let own = process.cpuUsage();
      for (let i = 0; i < SEQUENTIAL; i += 1) await timed(`${fake.baseUrl}${PATH}`, headers);
      const directUs = cpuUs(process.cpuUsage(own)) / SEQUENTIAL;
      own = process.cpuUsage();
      for (let i = 0; i < SEQUENTIAL; i += 1) await timed(`${proxy.url}${PATH}`, headers);
      const clientUs = cpuUs(process.cpuUsage(own)) / SEQUENTIAL;
      const proxyUs = ((cpuOf(proxy.child.pid)! - proxyCpu) * 1000) / SEQUENTIAL;
      console.log(`CPU per exchange (${SEQUENTIAL} sequential): the proxy process ${proxyUs.toFixed(0)} us (live judging included); direct, fake and client together ${directUs.toFixed(0)} us; with the proxy between them, fake and client ${clientUs.toFixed(0)} us; proxy/direct ${(proxyUs / directUs).toFixed(2)}`);
    }

    const load = async (base: string) => (await autocannon({ url: `${base}${PATH}`, connections: CONNECTIONS, duration: DURATION_S, headers })).requests.average;
    const directRps = await load(fake.baseUrl);
    const proxiedRps = await load(proxy.url);
    console.log(`throughput, ${CONNECTIONS} connections for ${DURATION_S} s: direct ${directRps.toFixed(0)} req/s, through the proxy ${proxiedRps.toFixed(0)} req/s, ratio ${(proxiedRps / directRps).toFixed(2)}`);
  } finally {
    const exited = new Promise((resolve) => proxy.child.once('exit', resolve));
    proxy.child.kill('SIGTERM');
    await exited;
  }

  // Memory over more than 10,000 exchanges: the window keeps the newest 1,000.
  const bounded = await startProxy({ upstream: fake.baseUrl, bodyLimit: 64 * 1024, maxExchanges: 1_000 });
  try {
    global.gc?.();
    const before = process.memoryUsage().heapUsed;
    let heapAtHalf = 0;
    for (let i = 0; i < MANY; i += 1) {
      await timed(`${bounded.url}${PATH}`, headers);
      if (i === MANY / 2) {
        global.gc?.();
        heapAtHalf = process.memoryUsage().heapUsed;
      }
    }
    global.gc?.();
    const after = process.memoryUsage().heapUsed;
    console.log(`memory, ${MANY} exchanges through a proxy keeping 1,000: ${bounded.recorded().length} kept, ${bounded.dropped()} dropped; heap ${mib(before)} before, ${mib(heapAtHalf)} after ${MANY / 2}, ${mib(after)} after ${MANY}${global.gc ? '' : ' (run with --expose-gc for settled figures)'}`);
    const started = performance.now();
    const judged = await judgeRecording(bounded.exchanges(), { env: {} });
    console.log(`judging the kept 1,000 exchanges: ${(performance.now() - started).toFixed(0)} ms, gate ${judged.report.summary.gate}, ${judged.report.summary.judged} rules judged`);
  } finally {
    await bounded.close();
    await fake.close();
  }
}

await main();
