/**
 * `npm run bench`: prints figures, asserts nothing. Timings on a shared machine are noisy, so the
 * fake's throughput is reported as a ratio to a bare node:http server measured in the same run.
 */
import autocannon from 'autocannon';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { embeddedProfile } from '../src/fake/embedded-profile.ts';
import { startFake } from '../src/fake/server.ts';
import { certify } from '../src/runner/certify.ts';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 5);
const CONNECTIONS = 10;
const CERTIFY_RUNS = 3;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function load(url: string, headers: Record<string, string>): Promise<{ rps: number; non2xx: number }> {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: DURATION_S, headers });
  return { rps: result.requests.average, non2xx: result.non2xx };
}

async function certifyTimes(surfaces: Array<'v8' | 'v1' | 'mcp'> | undefined): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < CERTIFY_RUNS; i += 1) {
    const started = performance.now();
    const { report } = await certify({ surfaces, seed: 1 + i });
    times.push(performance.now() - started);
    if (report.summary.gate !== 'pass') console.log(`  note: run ${i + 1} gate ${report.summary.gate}`);
  }
  return times;
}

async function main(): Promise<void> {
  console.log(`apicert bench on Node ${process.version}, ${CONNECTIONS} connections, ${DURATION_S} s per load`);

  const v8Times = await certifyTimes(['v8']);
  console.log(`certify --surface v8 (embedded fake): median ${median(v8Times).toFixed(0)} ms over ${CERTIFY_RUNS} runs [${v8Times.map((t) => t.toFixed(0)).join(', ')}]`);
  const allTimes = await certifyTimes(undefined);
  console.log(`certify, every surface (embedded fake): median ${median(allTimes).toFixed(0)} ms over ${CERTIFY_RUNS} runs [${allTimes.map((t) => t.toFixed(0)).join(', ')}]`);

  // The fake, serving one mission's projection.
  const fake = await startFake();
  const profile = embeddedProfile(fake);
  const token = profile.credentials.find((c) => c.name === 'full')!.token;
  const created = await fetch(`${fake.baseUrl}/v8/missions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': 'apicert-bench-key-0001' },
    body: JSON.stringify(profile.fixtures.v8.missions.succeeds),
  });
  const { runId } = (await created.json()) as { runId: string };
  const body = await (await fetch(`${fake.baseUrl}/v8/missions/${runId}`, { headers: { authorization: `Bearer ${token}` } })).text();

  // The baseline: the same bytes from a bare node:http handler.
  const bare = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'x-service-contract-version': 'service-integration-gateway-v8.1', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/v8/missions/${runId}`;

  const headers = { authorization: `Bearer ${token}` };
  // Alternate the two so drift on a shared machine falls on both.
  const bareRuns = [await load(bareUrl, headers)];
  const fakeRuns = [await load(`${fake.baseUrl}/v8/missions/${runId}`, headers)];
  bareRuns.push(await load(bareUrl, headers));
  fakeRuns.push(await load(`${fake.baseUrl}/v8/missions/${runId}`, headers));
  bare.close();
  await fake.close();

  const bareRps = bareRuns.reduce((s, r) => s + r.rps, 0) / bareRuns.length;
  const fakeRps = fakeRuns.reduce((s, r) => s + r.rps, 0) / fakeRuns.length;
  const non2xx = fakeRuns.reduce((s, r) => s + r.non2xx, 0);
  console.log(`bare node:http  GET /v8/missions/{id}: ${bareRps.toFixed(0)} req/s`);
  console.log(`reference fake  GET /v8/missions/{id}: ${fakeRps.toFixed(0)} req/s (${non2xx} non-2xx)`);
  console.log(`ratio fake / bare: ${(fakeRps / bareRps).toFixed(2)} (target >= 0.70)`);
}

await main();
