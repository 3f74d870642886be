/**
 * `npm run bench:proxy`: what `apicert proxy` adds. Prints figures, asserts nothing. Every figure
 * is measured against direct requests to the same fake in the same run: the added latency per
 * request (median and p99 of interleaved sequential requests), throughput as a ratio
 * (autocannon), and the proxy's heap after more than 10,000 exchanges. The proxy runs as
 * `apicert proxy` does, in its own process; the fake and the load generator share this one.
 *
 * What the throughput ratio means: in both arms the fake and the load generator share this one
 * thread, which is CPU-bound in the direct arm (it prints how busy it was). Through the proxy, the
 * proxy's threads run beside it, on another core when the machine has one free: the ratio is then
 * about (fake + client CPU per exchange) / (the proxy's forwarding-thread CPU per exchange), capped
 * at 1; on a machine with no free core it falls towards (fake + client) / (fake + client + proxy).
 * So the CPU per exchange of each thread is printed beside it, and the arms alternate in short
 * rounds (BENCH_ROUNDS of BENCH_DURATION_S per arm) so that both see the same machine load; the
 * ratio comes with a 95 % interval over the rounds, which says whether this run decides it. Each arm
 * also says how much of the machine other work took (from /proc/stat). BENCH_REFERENCE adds arms in
 * the same rounds, beside apicert's: `haproxy` (on the PATH), a proxy written in C, what any proxy
 * gets from this machine; `node-pipe` (bench/pipe-proxy.ts), bytes piped per connection with no
 * HTTP read, record or judging, what a proxy written in Node gets at most. Both:
 * BENCH_REFERENCE=haproxy,node-pipe.
 */
import autocannon from 'autocannon';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { embeddedProfile } from '../src/fake/embedded-profile.ts';
import { startFake } from '../src/fake/server.ts';
import { judgeRecording } from '../src/passive/judge.ts';
import { WAIT_MS } from '../src/passive/live.ts';
import { startProxy } from '../src/passive/proxy.ts';
import { seeded } from '../src/util/seeded.ts';
import { freePort } from '../scripts/load-operator.ts';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 1);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
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

/** CPU milliseconds of each thread of a process so far, by kind (Linux: /proc/PID/task); undefined elsewhere. */
function threadsOf(pid: number | undefined): Map<string, number> | undefined {
  if (pid === undefined) return undefined;
  try {
    const out = new Map<string, number>();
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
      // Node names its main thread MainThread and a worker's WorkerThread (here: live judging); the rest are V8's and libuv's helpers (GC, compiling, file system).
      const kind = name === 'MainThread' ? 'forwarding' : name === 'WorkerThread' ? 'live judging' : 'V8 and libuv helpers';
      out.set(kind, (out.get(kind) ?? 0) + ((Number(fields[11]) + Number(fields[12])) * 1000) / 100);
    }
    return out;
  } catch {
    return undefined;
  }
}

/** Each kind's CPU per exchange between two readings, in microseconds, as one phrase. */
function perThread(before: Map<string, number> | undefined, after: Map<string, number> | undefined, exchanges: number): string {
  if (!before || !after) return '';
  return [...after].map(([kind, ms]) => `${kind} ${(((ms - (before.get(kind) ?? 0)) * 1000) / exchanges).toFixed(0)} us`).join(', ');
}

const median = (values: number[]) => percentile(values, 50);

/**
 * Resolves once the process used next to no CPU for 3 s, longer than live judging lets an exchange
 * wait (WAIT_MS) or, mostly, rests between batches: true, or false after 20 s.
 */
async function quiet(pid: number | undefined): Promise<boolean> {
  const deadline = performance.now() + 20_000;
  let last = cpuOf(pid);
  let since = performance.now();
  while (last !== undefined && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = cpuOf(pid)!;
    // 100 ms of polling at most 2 ms of CPU: the proxy is idle (its timers tick now and then).
    if (now - last > 2) since = performance.now();
    last = now;
    if (performance.now() - since > 3 * WAIT_MS) return true;
  }
  return last === undefined;
}

/**
 * CPU milliseconds every process of the machine spent so far, and what a hypervisor gave other
 * machines instead (steal), from /proc/stat; undefined elsewhere. Interrupts are left out: on
 * loopback they are mostly the kernel carrying this bench's own traffic.
 */
function machineBusy(): number | undefined {
  try {
    // user nice system idle iowait irq softirq steal, in clock ticks (100 per second on Linux).
    const f = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
    return ((f[0]! + f[1]! + f[2]! + (f[7] ?? 0)) * 1000) / 100;
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
  const { url, said } = await printedUrl(child, /apicert proxy: (http:\/\/127\.0\.0\.1:\d+)/, 30_000);
  if (url === undefined) throw new Error(`apicert proxy did not start: ${said}`);
  return { child, url };
}

/** The loopback URL a child prints once it listens (the pattern's first group), or what it printed instead within `ms`. */
function printedUrl(child: ChildProcess, pattern: RegExp, ms: number): Promise<{ url?: string; said: string }> {
  return new Promise((resolve) => {
    let said = '';
    const timer = setTimeout(() => resolve({ said }), ms);
    child.stdout!.on('data', (chunk: Buffer) => {
      said += chunk.toString();
      const found = pattern.exec(said);
      if (found) {
        clearTimeout(timer);
        resolve({ url: found[1]!, said });
      }
    });
  });
}

/** Whether a TCP connection to the loopback port is accepted now. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** A reference arm: another proxy in front of the same fake, measured in the same rounds. */
interface Reference {
  child: ChildProcess;
  url: string;
  name: string;
}

const REFERENCES = ['haproxy', 'node-pipe'];
const NO_REFERENCE = `BENCH_REFERENCE=haproxy,node-pipe adds arms in the same rounds: haproxy (on the PATH), a proxy written in C, what any proxy gets from this machine; node-pipe, bytes piped per connection with no HTTP read, what a proxy written in Node gets at most`;

/**
 * BENCH_REFERENCE=haproxy: haproxy in front of the same fake, one thread, keeping connections open
 * both ways as apicert's proxy does; or why it cannot run.
 */
async function haproxy(upstream: string): Promise<Reference | string> {
  const port = await freePort();
  const target = new URL(upstream);
  const config = join(mkdtempSync(join(tmpdir(), 'apicert-bench-haproxy-')), 'haproxy.cfg');
  writeFileSync(config, ['global', '  nbthread 1', 'defaults', '  mode http', '  option http-keep-alive', '  timeout connect 5s', '  timeout client 30s', '  timeout server 30s', 'frontend bench', `  bind 127.0.0.1:${port}`, '  default_backend fake', 'backend fake', '  http-reuse always', `  server fake ${target.hostname}:${target.port}`, ''].join('\n'));
  const child = spawn('haproxy', ['-f', config, '-db'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let said = '';
  child.stderr!.on('data', (chunk: Buffer) => (said += chunk.toString()));
  const failed = new Promise<string>((resolve) => child.once('error', (error) => resolve(`haproxy could not run (${error.message}): install it (Debian: apt-get install haproxy)`)));
  const up = (async () => {
    for (let i = 0; i < 100 && child.exitCode === null; i += 1) {
      if (await accepts(port)) return true;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return false;
  })();
  const outcome = await Promise.race([up, failed]);
  if (outcome === true) {
    const version = /version (\S+)/i.exec(execFileSync('haproxy', ['-v'], { encoding: 'utf8' }))?.[1];
    return { child, url: `http://127.0.0.1:${port}`, name: `haproxy${version ? ` ${version}` : ''}` };
  }
  child.kill('SIGTERM');
  return typeof outcome === 'string' ? outcome : `haproxy did not listen within 5 s: ${said.trim().slice(0, 300)}`;
}

/** BENCH_REFERENCE=node-pipe: bench/pipe-proxy.ts in its own process, as apicert's proxy runs. */
async function nodePipe(upstream: string): Promise<Reference | string> {
  const child = spawn(process.execPath, [new URL('./pipe-proxy.ts', import.meta.url).pathname, upstream], { stdio: ['ignore', 'pipe', 'inherit'] });
  const { url } = await printedUrl(child, /listening: (http:\/\/127\.0\.0\.1:\d+)/, 10_000);
  if (url !== undefined) return { child, url, name: 'node-pipe' };
  child.kill('SIGTERM');
  return 'node-pipe did not listen within 10 s';
}

/** The reference arms BENCH_REFERENCE names (a comma-separated list), and why any named one is missing. */
async function referenceProcesses(upstream: string): Promise<{ references: Reference[]; notes: string[] }> {
  const named = (process.env.BENCH_REFERENCE ?? '').split(',').map((name) => name.trim()).filter((name) => name !== '');
  if (named.length === 0) return { references: [], notes: [NO_REFERENCE] };
  const references: Reference[] = [];
  const notes: string[] = [];
  for (const name of named) {
    const started = name === 'haproxy' ? await haproxy(upstream) : name === 'node-pipe' ? await nodePipe(upstream) : `BENCH_REFERENCE names ${JSON.stringify(name)}: the arms are ${REFERENCES.join(' and ')}`;
    if (typeof started === 'string') notes.push(started);
    else references.push(started);
  }
  return { references, notes };
}

/** One arm's slice of a round: what autocannon completed, in how long, and the CPU this process and the rest of the machine spent. */
interface Slice {
  exchanges: number;
  seconds: number;
  cpuUs: number;
  others: number | undefined;
}

interface Round {
  direct: Slice;
  proxied: Slice;
  /** One slice per reference arm, in BENCH_REFERENCE's order. */
  references: Slice[];
}

interface Interval {
  value: number;
  low: number;
  high: number;
  /** How many items were resampled: a bootstrap of a handful says little of its own width. */
  items: number;
}

/** Below this many rounds or requests the bench decides no aim, whatever the interval says. */
const FEWEST_TO_DECIDE = 10;

const rate = (s: Slice) => s.exchanges / s.seconds;

/**
 * A figure of the sample with a 95 % interval from resampling it (a percentile bootstrap, seeded so
 * that the same sample gives the same interval): how far the figure could move had the host's
 * changes fallen otherwise. The sample's items are what was measured together (a round of every
 * arm, a pair of sequential requests), so each draw keeps them together.
 */
function bootstrap<T>(sample: T[], figure: (items: T[]) => number): Interval {
  const random = seeded(35);
  const draws = Array.from({ length: 2000 }, () => figure(sample.map(() => sample[Math.floor(random() * sample.length)]!)));
  return { value: figure(sample), low: percentile(draws, 2.5), high: percentile(draws, 97.5), items: sample.length };
}

/** One arm's throughput against another's over the rounds: mean rate against mean rate. */
const ratioOf = (rounds: Round[], top: (r: Round) => Slice, bottom: (r: Round) => Slice): Interval =>
  bootstrap(rounds, (picked) => picked.reduce((sum, r) => sum + rate(top(r)), 0) / picked.reduce((sum, r) => sum + rate(bottom(r)), 0));

/** A figure and its interval; `signed` writes a difference's sign (+0.36, -0.12). */
const showInterval = (i: Interval, unit = '', signed = false) => `${signed && i.value >= 0 ? '+' : ''}${i.value.toFixed(2)}${unit} (95 % interval ${i.low.toFixed(2)} to ${i.high.toFixed(2)}${unit})`;

/** Whether a run settles an aim: only when the whole interval is on one side of it, over enough rounds or requests. */
function aim(interval: Interval, met: (value: number) => boolean): string {
  if (interval.items < FEWEST_TO_DECIDE) return `not decided by this run (${interval.items} rounds or requests; ${FEWEST_TO_DECIDE} or more decide)`;
  const [low, high] = [met(interval.low), met(interval.high)];
  return low && high ? 'met' : !low && !high ? 'NOT met' : 'not decided by this run (the interval holds the aim; more rounds or requests narrow it)';
}

const quartiles = (values: number[]) => `median ${median(values).toFixed(2)}, quartiles ${percentile(values, 25).toFixed(2)} and ${percentile(values, 75).toFixed(2)}, from ${Math.min(...values).toFixed(2)} to ${Math.max(...values).toFixed(2)}`;

async function main(): Promise<void> {
  const fake = await startFake();
  const token = embeddedProfile(fake).credentials.find((c) => c.surfaces.includes('v8') && !c.expired)!.token;
  const headers = { authorization: `Bearer ${token}` };
  const proxy = await proxyProcess(fake.baseUrl);
  const { references, notes } = await referenceProcesses(fake.baseUrl);
  try {
    console.log(`apicert proxy bench on Node ${process.version}: GET ${PATH} (a 404 problem) on the reference fake; ${cpus().length} cores, load average ${loadavg()[0]!.toFixed(2)} (figures from a machine busy with other work say little)`);
    // Interleaved, so both paths see the same machine load.
    const direct: number[] = [];
    const proxied: number[] = [];
    const referenced: number[][] = references.map(() => []);
    for (let i = 0; i < 50; i += 1) for (const base of [proxy.url, ...references.map((r) => r.url)]) await timed(`${base}${PATH}`, headers);
    for (let i = 0; i < SEQUENTIAL; i += 1) {
      direct.push(await timed(`${fake.baseUrl}${PATH}`, headers));
      proxied.push(await timed(`${proxy.url}${PATH}`, headers));
      for (const [at, ref] of references.entries()) referenced[at]!.push(await timed(`${ref.url}${PATH}`, headers));
    }
    const p99 = (v: number[]) => percentile(v, 99);
    // The added median and p99 with their intervals, resampling the requests in their sequence's groups (a direct one and those after it).
    const groups = direct.map((d, i) => ({ d, p: proxied[i]!, r: referenced.map((times) => times[i]!) }));
    const added = (pick: (g: (typeof groups)[number]) => number, at: (v: number[]) => number) => bootstrap(groups, (picked) => at(picked.map(pick)) - at(picked.map((g) => g.d)));
    const addedText = (pick: (g: (typeof groups)[number]) => number) => {
      const [middle, tail] = [added(pick, median), added(pick, p99)];
      return `median ${showInterval(middle, ' ms', true)}, p99 ${showInterval(tail, ' ms', true)} per request; at most 1 ms median: ${aim(middle, (ms) => ms <= 1)}; at most 5 ms p99: ${aim(tail, (ms) => ms <= 5)}`;
    };
    console.log(`latency, ${SEQUENTIAL} sequential requests each: direct median ${median(direct).toFixed(2)} ms, p99 ${p99(direct).toFixed(2)} ms; through the proxy median ${median(proxied).toFixed(2)} ms, p99 ${p99(proxied).toFixed(2)} ms`);
    console.log(`added by the proxy: ${addedText((g) => g.p)}`);
    for (const [at, ref] of references.entries()) console.log(`added by ${ref.name} in the same sequence: ${addedText((g) => g.r[at]!)}`);

    // CPU time, which a busy machine stretches far less than wall time: the proxy's own per exchange, beside what the fake and this client spend on one direct exchange.
    // Live judging works in batches, later and at a low priority: the window opens once the proxy has
    // settled after the latency requests, and closes once it has judged these requests (or 20 s).
    const settled = await quiet(proxy.child.pid);
    const proxyCpu = cpuOf(proxy.child.pid);
    if (proxyCpu !== undefined) {
      let own = process.cpuUsage();
      for (let i = 0; i < SEQUENTIAL; i += 1) await timed(`${fake.baseUrl}${PATH}`, headers);
      const directUs = cpuUs(process.cpuUsage(own)) / SEQUENTIAL;
      const threads = threadsOf(proxy.child.pid);
      own = process.cpuUsage();
      for (let i = 0; i < SEQUENTIAL; i += 1) await timed(`${proxy.url}${PATH}`, headers);
      const clientUs = cpuUs(process.cpuUsage(own)) / SEQUENTIAL;
      const judged = await quiet(proxy.child.pid);
      const split = perThread(threads, threadsOf(proxy.child.pid), SEQUENTIAL);
      const proxyUs = ((cpuOf(proxy.child.pid)! - proxyCpu) * 1000) / SEQUENTIAL;
      console.log(`CPU per exchange (${SEQUENTIAL} sequential): the proxy process ${proxyUs.toFixed(0)} us (live judging included${split ? `: ${split}` : ''}${settled && judged ? '' : '; the proxy did not settle within 20 s: some judging is outside the window'}); direct, fake and client together ${directUs.toFixed(0)} us; with the proxy between them, fake and client ${clientUs.toFixed(0)} us; proxy/direct ${(proxyUs / directUs).toFixed(2)}`);
    }

    // Short rounds, each one slice of every arm, their order reversed every other round: the host's
    // speed changes from second to second here, and both arms then see the same changes.
    const slice = async (base: string): Promise<Slice> => {
      const wall = performance.now();
      const own = process.cpuUsage();
      const ours = [proxy.child.pid, ...references.map((r) => r.child.pid)].map(cpuOf);
      const machine = machineBusy();
      const result = await autocannon({ url: `${base}${PATH}`, connections: CONNECTIONS, duration: DURATION_S, headers });
      const cpu = cpuUs(process.cpuUsage(own));
      const elapsed = performance.now() - wall;
      // What the machine spent beyond this process, the proxy and the references: other work, in cores.
      const after = machineBusy();
      const oursAfter = [proxy.child.pid, ...references.map((r) => r.child.pid)].map(cpuOf);
      let others: number | undefined;
      if (machine !== undefined && after !== undefined) {
        let spent = after - machine - cpu / 1000;
        for (const [i, before] of ours.entries()) if (before !== undefined && oursAfter[i] !== undefined) spent -= oursAfter[i]! - before;
        others = Math.max(0, spent / elapsed);
      }
      return { exchanges: result.requests.total, seconds: elapsed / 1000, cpuUs: cpu, others };
    };
    // One uncounted second of each arm first, as the latency figures have their 50 uncounted requests: the
    // rounds then measure code the JIT has compiled under concurrent load, in both arms alike.
    const arms = [fake.baseUrl, proxy.url, ...references.map((r) => r.url)];
    for (const base of arms) await autocannon({ url: `${base}${PATH}`, connections: CONNECTIONS, duration: 1, headers });
    const threads = threadsOf(proxy.child.pid);
    const rounds: Round[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const taken = new Map<string, Slice>();
      for (const base of round % 2 === 0 ? arms : [...arms].reverse()) taken.set(base, await slice(base));
      rounds.push({ direct: taken.get(fake.baseUrl)!, proxied: taken.get(proxy.url)!, references: references.map((r) => taken.get(r.url)!) });
    }
    const proxiedExchanges = rounds.reduce((sum, r) => sum + r.proxied.exchanges, 0);
    // Live judging works later, in batches: what it spends between the first round and the last is on these exchanges.
    const split = perThread(threads, threadsOf(proxy.child.pid), proxiedExchanges);
    const arm = (pick: (r: Round) => Slice) => {
      const slices = rounds.map(pick);
      const exchanges = slices.reduce((sum, s) => sum + s.exchanges, 0);
      const seconds = slices.reduce((sum, s) => sum + s.seconds, 0);
      const cpu = slices.reduce((sum, s) => sum + s.cpuUs, 0);
      const others = slices.flatMap((s) => (s.others === undefined ? [] : [s.others]));
      return `${(exchanges / seconds).toFixed(0)} req/s (this process ${(cpu / exchanges).toFixed(0)} us per exchange, ${((100 * cpu) / 1e6 / seconds).toFixed(0)} % of a core${others.length > 0 ? `, other work ${median(others).toFixed(2)} cores` : ''})`;
    };
    console.log(`throughput, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${DURATION_S} s per arm, the order reversed every other round, after 1 s of each uncounted:`);
    console.log(`  direct ${arm((r) => r.direct)}`);
    console.log(`  through the proxy ${arm((r) => r.proxied)}${split ? `; the proxy: ${split} per exchange` : ''}`);
    for (const [at, ref] of references.entries()) console.log(`  through ${ref.name} ${arm((r) => r.references[at]!)}`);
    const atLeast08 = (ratio: number) => ratio >= 0.8;
    const againstDirect = ratioOf(rounds, (r) => r.proxied, (r) => r.direct);
    console.log(`apicert proxy's throughput against direct: ${showInterval(againstDirect)}; at least 0.8 of direct: ${aim(againstDirect, atLeast08)}`);
    console.log(`  rounds' own ratios: ${quartiles(rounds.map((r) => rate(r.proxied) / rate(r.direct)))}`);
    for (const [at, ref] of references.entries()) {
      const referenceRatio = ratioOf(rounds, (r) => r.references[at]!, (r) => r.direct);
      console.log(`${ref.name}'s throughput against direct: ${showInterval(referenceRatio)}; at least 0.8 of direct: ${aim(referenceRatio, atLeast08)}`);
      console.log(`apicert proxy's throughput against ${ref.name}'s: ${showInterval(ratioOf(rounds, (r) => r.proxied, (r) => r.references[at]!))}`);
    }
    for (const note of notes) console.log(`(${note})`);
  } finally {
    for (const child of [proxy.child, ...references.map((r) => r.child)]) {
      if (child.exitCode !== null || child.signalCode !== null) continue;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
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
