/**
 * `node bench/load-scenarios.ts`: prints figures, asserts nothing. The load scenarios' own code,
 * sent through fetch to the reference fake, at a small and a ten times larger size; each time is
 * given as a ratio to the small size measured in the same run (the machine is shared and noisy).
 */
import { credentialOf } from '../src/load/config.ts';
import { v8IdempotencyStorm } from '../src/load/scenarios/idempotency-storm.ts';
import { v8StreamFanout } from '../src/load/scenarios/stream-fanout.ts';
import { verdictsOf } from '../src/load/summary.ts';
import { fakeTarget, newKey, summarise } from '../suites/load/support.ts';

const target = await fakeTarget();
const token = credentialOf('v8-stream-fanout', target.config);

async function timed(run: () => Promise<string>): Promise<{ ms: number; verdicts: string }> {
  const started = performance.now();
  const verdicts = await run();
  return { ms: performance.now() - started, verdicts };
}

const fanout = (readers: number) =>
  timed(async () => {
    const s = await summarise('v8-stream-fanout', target.config.baseUrl, () => v8StreamFanout(target.transport, { ...target.config, token, readers, resumers: 5, streamTimeoutMs: 30_000, key: newKey }));
    return verdictsOf(s).map((r) => r.verdict).join(',');
  });
const storm = (size: number) =>
  timed(async () => {
    const s = await summarise('v8-idempotency-storm', target.config.baseUrl, () => v8IdempotencyStorm(target.transport, { ...target.config, token, storm: size, key: newKey }));
    return verdictsOf(s).map((r) => r.verdict).join(',');
  });

try {
  for (const [name, run, small] of [['v8 stream fan-out, readers', fanout, 50], ['v8 idempotency storm, requests per phase', storm, 20]] as const) {
    const base = await run(small);
    const big = await run(small * 10);
    console.log(`${name}: ${small} -> ${base.ms.toFixed(0)} ms (${base.verdicts}); ${small * 10} -> ${(big.ms / base.ms).toFixed(1)}x that (${big.verdicts})`);
  }
} finally {
  await target.fake.close();
}
