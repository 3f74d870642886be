/**
 * `node bench/live.ts`: what the proxy's live judging costs under steady traffic. Prints figures,
 * asserts nothing.
 *
 * Feeds the exchanges of a recording (BENCH_HAR: `apicert certify --har-out run.har` makes one)
 * to the live judge at a steady rate (BENCH_RATES, exchanges per second, comma-separated;
 * BENCH_SECONDS each), as the proxy's judging thread receives them, and prints the CPU time this
 * process spent per exchange and per second, with how many exchanges traffic outran. The live judge
 * first gets the recording's first HISTORY exchanges in one batch (not counted), so what is measured
 * is the steady state: a full history before every batch. Beside it, in the same run, the same
 * exchanges judged in one batch after the same history (the least live judging can cost): the ratio
 * of the two is what judging as traffic passes adds.
 */
import { readHar } from '../src/passive/har.ts';
import { HISTORY, LiveJudge } from '../src/passive/live.ts';
import { RULES } from '../src/registry.ts';

const file = process.env.BENCH_HAR;
if (!file) {
  console.error('bench/live.ts: set BENCH_HAR to a recording (apicert certify --har-out run.har makes one)');
  process.exit(2);
}
const RATES = (process.env.BENCH_RATES ?? '50,400').split(',').map(Number);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);

function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

function judge() {
  return new LiveJudge({ rules: RULES, webhookSecretVariable: 'APICERT_WEBHOOK_SECRET', onFinding: () => undefined });
}

/** Every exchange of the recording, in one batch. */
async function oneBatch(count: number): Promise<number> {
  const { exchanges } = await readHar(file!);
  const live = judge();
  for (const ex of exchanges.slice(0, HISTORY)) live.add(ex);
  live.flush();
  const cpu = cpuMs();
  for (const ex of exchanges.slice(HISTORY, HISTORY + count)) live.add(ex);
  live.flush();
  return cpuMs() - cpu;
}

/** The exchanges fed at `rate` per second for SECONDS, in ticks of 10 ms, as a proxy would hand them over. */
async function steady(rate: number): Promise<{ cpu: number; fed: number; skipped: number; read: number }> {
  const { exchanges } = await readHar(file!);
  const live = judge();
  for (const ex of exchanges.slice(0, HISTORY)) live.add(ex);
  live.flush();
  const before = live.read;
  const total = Math.min(exchanges.length - HISTORY, Math.round(rate * SECONDS));
  const cpu = cpuMs();
  const started = performance.now();
  let fed = 0;
  while (fed < total) {
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * rate));
    while (fed < due) live.add(exchanges[HISTORY + fed++]!);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  live.flush();
  return { cpu: cpuMs() - cpu, fed, skipped: live.skipped, read: live.read - before };
}

for (const rate of RATES) {
  const run = await steady(rate);
  const base = await oneBatch(run.fed);
  const per = run.cpu / run.fed;
  console.log(
    `rate ${rate}/s for ${SECONDS} s: ${run.fed} exchanges, CPU ${run.cpu.toFixed(0)} ms = ${(per * 1000).toFixed(0)} us per exchange, ${(run.cpu / SECONDS).toFixed(0)} ms per second of traffic; ` +
      `one batch of the same: ${base.toFixed(0)} ms (${((base / run.fed) * 1000).toFixed(0)} us per exchange); live/one-batch ${(run.cpu / base).toFixed(2)}x; exchanges read by the judgements per exchange ${(run.read / run.fed).toFixed(2)} (load-independent); skipped ${run.skipped}`,
  );
}
