/**
 * What the proxy's forwarding thread hands its judging thread (one JSON string and one buffer of
 * bodies per batch) arrives as it was recorded: the same exchanges, bodies byte for byte.
 */
import { describe, expect, it } from 'vitest';
import type { RecordedBytes } from '../../src/passive/har.ts';
import { packBatch, unpackBatch } from '../../src/passive/live-batch.ts';
import { exchangeOfBytes } from '../../src/passive/proxy.ts';

const recorded: RecordedBytes[] = [
  {
    startedAt: new Date('2026-11-26T03:00:00.123Z'),
    durationMs: 4,
    method: 'POST',
    url: 'http://127.0.0.1:8080/v8/missions?x=1',
    requestHeaders: { 'content-type': 'application/json', 'x-odd': 'caf\u00e9, two' },
    requestBody: Buffer.from('\ufeff{"goal":"é"}'),
    requestTruncated: true,
    status: 202,
    responseHeaders: { 'content-type': 'application/json', 'set-cookie': 'a=1, b=2' },
    responseBody: Buffer.from([0xff, 0x00, 0x7b, 0x7d]),
    responseTruncated: true,
    responseSize: 9000,
  },
  // No answer: the upstream failed; an empty request body is not an absent one.
  { startedAt: new Date(0), method: 'GET', url: 'http://127.0.0.1:8080/v1/runs', requestHeaders: {}, requestBody: Buffer.alloc(0), responseHeaders: {}, error: 'the client closed the connection' },
  { startedAt: new Date('2026-11-26T03:00:01Z'), durationMs: 0, method: 'GET', url: 'http://127.0.0.1:8080/', requestHeaders: { host: '127.0.0.1:8080' }, status: 204, responseHeaders: {}, responseBody: Buffer.alloc(0) },
];

describe('the batch the judging thread receives', () => {
  it('holds every exchange as recorded, bodies byte for byte, in one buffer of their own', () => {
    const items = recorded.map((rec, i) => ({ rec, index: 40 + i }));
    const packed = packBatch(items);
    expect(packed.bodies.byteLength).toBe(recorded.reduce((n, r) => n + (r.requestBody?.length ?? 0) + (r.responseBody?.length ?? 0), 0));
    // Moved to the other thread, as the forwarding thread sends it.
    const { port1, port2 } = new MessageChannel();
    port1.postMessage(packed, [packed.bodies]);
    expect(packed.bodies.byteLength).toBe(0);
    port1.close();
    port2.close();
    const received = unpackBatch(structuredClone(packBatch(items)));
    expect(received.map((r) => r.index)).toEqual([40, 41, 42]);
    for (const [i, { rec }] of received.entries()) {
      expect(rec).toEqual(recorded[i]);
      expect(exchangeOfBytes(rec, i, 1024)).toEqual(exchangeOfBytes(recorded[i]!, i, 1024));
    }
  });
});
