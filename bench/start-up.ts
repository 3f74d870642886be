/**
 * `npm run bench:start-up`: how long `apicert --version` takes to start and exit, started the two
 * ways the README writes it (`npx apicert`, `node bin/apicert.js`), each with Node's compile cache
 * (as the launcher sets it) and without (NODE_DISABLE_COMPILE_CACHE=1). The baseline, measured in
 * the same rounds, is a bare `node -e 0`. Rounds alternate the commands so a machine whose speed
 * drifts moves them alike. Prints the median wall time and its ratio to the baseline; asserts nothing.
 *
 *   npm run bench:start-up              # 7 rounds
 *   BENCH_START_UP_ROUNDS=15 npm run bench:start-up
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ROUNDS = Number(process.env.BENCH_START_UP_ROUNDS ?? 7);
const NO_CACHE = { NODE_DISABLE_COMPILE_CACHE: '1' };

interface Case {
  name: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
}

const CASES: Case[] = [
  { name: 'node -e 0 (baseline)', command: process.execPath, args: ['-e', '0'] },
  { name: 'node bin/apicert.js --version', command: process.execPath, args: ['bin/apicert.js', '--version'] },
  { name: 'node bin/apicert.js --version, no compile cache', command: process.execPath, args: ['bin/apicert.js', '--version'], env: NO_CACHE },
  { name: 'npx apicert --version', command: 'npx', args: ['apicert', '--version'] },
  { name: 'npx apicert --version, no compile cache', command: 'npx', args: ['apicert', '--version'], env: NO_CACHE },
];

function timeOnce(c: Case): number {
  const started = performance.now();
  const r = spawnSync(c.command, c.args, { cwd: ROOT, env: { ...process.env, ...c.env }, stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
  const ms = performance.now() - started;
  if (r.status !== 0) throw new Error(`${c.name} exited ${r.status}: ${r.stderr?.toString() ?? r.error?.message}`);
  return ms;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

// One unmeasured round fills the compile cache and npm's npx folder, as any earlier start would.
for (const c of CASES) timeOnce(c);
const times = CASES.map(() => [] as number[]);
for (let round = 0; round < ROUNDS; round++) CASES.forEach((c, i) => times[i]!.push(timeOnce(c)));

const baseline = median(times[0]!);
console.log(`apicert start-up on Node ${process.version}: median wall ms of ${ROUNDS} alternating rounds, and the ratio to "node -e 0"\n`);
console.log('| command | median ms | min ms | max ms | / baseline |');
console.log('| --- | ---: | ---: | ---: | ---: |');
CASES.forEach((c, i) => {
  const t = times[i]!;
  console.log(`| ${c.name} | ${median(t).toFixed(0)} | ${Math.min(...t).toFixed(0)} | ${Math.max(...t).toFixed(0)} | ${(median(t) / baseline).toFixed(2)} |`);
});
