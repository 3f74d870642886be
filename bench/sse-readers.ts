/**
 * Child of bench/load-fanout-scale.ts: apicert's own SSE reader (src/sse/reader.ts) following one
 * live mission with N streams at once, in a process of its own so its memory and CPU are measured
 * apart. Argument: N. Environment: BENCH_BASE_URL, BENCH_TOKEN, BENCH_MISSION_BODY. Prints one
 * JSON line: streams read to their end, events per stream.
 */
import { readEventStream } from '../src/sse/reader.ts';

const readers = Number(process.argv[2]);
const baseUrl = process.env.BENCH_BASE_URL!;
const auth = { Authorization: `Bearer ${process.env.BENCH_TOKEN!}` };

const created = await fetch(`${baseUrl}/v8/missions`, {
  method: 'POST',
  headers: { ...auth, 'Content-Type': 'application/json', 'Idempotency-Key': `apicert-bench-${Date.now()}-${process.pid}` },
  body: process.env.BENCH_MISSION_BODY!,
});
const { runId } = (await created.json()) as { runId: string };

async function follow(): Promise<number> {
  const controller = new AbortController();
  const res = await fetch(`${baseUrl}/v8/missions/${runId}/events`, { headers: { ...auth, Accept: 'text/event-stream' }, signal: controller.signal });
  if (!res.ok || !res.body) return -1;
  const result = await readEventStream(res.body, { maxMs: 60_000, maxBytes: 2 * 1024 * 1024, graceMs: 5_000, abort: () => controller.abort() });
  return result.end === 'server' ? result.events.length : -1;
}

const counts = await Promise.all(Array.from({ length: readers }, () => follow().catch(() => -1)));
const closed = counts.filter((c) => c >= 0);
console.log(JSON.stringify({ streams: closed.length, events: [...new Set(closed)] }));
