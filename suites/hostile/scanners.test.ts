/** Every scan of target bytes is linear: a 4 MiB body built to make patterns backtrack costs under 1 s of CPU per scanner. */
import { describe, expect, it } from 'vitest';
import { CanarySet, redactionMarkers } from '../../src/checks/v8/redaction/canaries.ts';
import { decodeBody, parseJson } from '../../src/probe/body.ts';
import { Redactor } from '../../src/redact/redactor.ts';
import { readEventStream } from '../../src/sse/reader.ts';
import { adversarialBodies } from './hostile-server.ts';

const SECRET = 'tok_live_4f9c2a7e1b3d5f6a8c0e';

function cpuMs(fn: () => void): number {
  const before = process.cpuUsage();
  fn();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

async function cpuMsAsync(fn: () => Promise<unknown>): Promise<number> {
  const before = process.cpuUsage();
  await fn();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

const bodies = Object.entries(adversarialBodies(4 * 1024 * 1024, SECRET));
const canaries = new CanarySet('0123456789ab');
canaries.plant('secret-field', 'x');

describe.each(bodies)('a 4 MiB %s body', (_name, body) => {
  it('is redacted, scanned and parsed in under 1 s of CPU each', async () => {
    const redactor = new Redactor();
    redactor.add(SECRET, 'token:full');
    redactor.add('k3Yq9', 'token:short');
    const text = body.toString('latin1');
    const costs: Record<string, number> = {
      redactor: cpuMs(() => redactor.text(text)),
      markers: cpuMs(() => redactionMarkers(text)),
      canaries: cpuMs(() => canaries.scan('body', text)),
      decode: cpuMs(() => parseJson(decodeBody(body, false, 'application/json').text)),
      sse: await cpuMsAsync(() => readEventStream((async function* () {
        for (let i = 0; i < body.length; i += 64 * 1024) yield body.subarray(i, i + 64 * 1024);
      })(), { maxMs: 10_000, maxBytes: 8 * 1024 * 1024, graceMs: 100, abort: () => undefined })),
    };
    for (const [scanner, ms] of Object.entries(costs)) expect(ms, `${scanner} took ${ms.toFixed(0)} ms of CPU`).toBeLessThan(1_000);
  });
});
