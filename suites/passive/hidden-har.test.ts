/**
 * A recording that hides the traffic's secrets (`proxy --har-out`, `certify --har-out`) keeps
 * every body readable: a gateway's gzip or brotli answer, a client's compressed request, a binary
 * body. Before, each body was read as UTF-8 and written back, so compressed bytes became
 * replacement characters: judge-traffic read garbage where the proxy had judged JSON, and a
 * secret inside a compressed body was only hidden by being destroyed.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { contentText } from '../../src/passive/content.ts';
import { readHar, type RecordedBytes } from '../../src/passive/har.ts';
import { recordingHiding } from '../../src/passive/judge.ts';
import { exchangeOfBytes } from '../../src/passive/proxy.ts';
import { hiddenHar, writeHar } from '../../src/passive/recorder.ts';

const TOKEN = 'k3J9xQpLm2ZtV7wR0aYb4Nc8';

function recorded(request: { body: Buffer; coding?: string }, response: { body: Buffer; coding?: string; type?: string }): RecordedBytes {
  return {
    startedAt: new Date('2026-01-01T00:00:00Z'),
    method: 'POST',
    url: 'http://127.0.0.1:9/v8/memory/query',
    requestHeaders: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...(request.coding ? { 'content-encoding': request.coding } : {}) },
    requestBody: request.body,
    status: 200,
    responseHeaders: { 'content-type': response.type ?? 'application/json', ...(response.coding ? { 'content-encoding': response.coding } : {}) },
    responseBody: response.body,
  };
}

/** Writes the recordings as the proxy does (its secrets hidden), reads the file back as judge-traffic does. */
async function roundTrip(records: RecordedBytes[]) {
  const exchanges = records.map((rec, i) => exchangeOfBytes(rec, i, 1024 * 1024));
  const file = join(mkdtempSync(join(tmpdir(), 'apicert-hidden-har-')), 'traffic.har');
  await writeHar(file, hiddenHar(records, 'test', recordingHiding(exchanges, undefined, {})));
  const text = readFileSync(file, 'utf8');
  const entries = (JSON.parse(text) as { log: { entries: Array<{ request: { postData?: { text: string; encoding?: string } }; response: { content: { text?: string; encoding?: string } } }> } }).log.entries;
  return { judged: exchanges, read: (await readHar(file)).exchanges, text, entries };
}

describe('a hidden recording keeps every body readable', () => {
  it('hides a secret inside gzip and brotli bodies in their decoded text, which judge-traffic reads as the proxy judged it', async () => {
    const sent = `{"queryText":"recall","note":"${TOKEN}"}`;
    const answered = `{"results":[],"echo":"${TOKEN}"}`;
    const { judged, read, text } = await roundTrip([
      recorded({ body: gzipSync(sent), coding: 'gzip' }, { body: gzipSync(answered), coding: 'gzip' }),
      recorded({ body: Buffer.from(sent) }, { body: brotliCompressSync(answered), coding: 'br' }),
    ]);
    // The proxy's own judging read the bodies decoded, secret and all.
    expect(judged[0]!.responseBody).toBe(answered);
    expect(text).not.toContain(TOKEN);
    for (const ex of read) {
      expect(ex.requestBody).not.toContain(TOKEN);
      expect(ex.responseBody).not.toContain(TOKEN);
      // Whole JSON with the secret's marker where it stood: not the replacement characters of compressed bytes read as text.
      expect(JSON.parse(ex.responseBody!)).toEqual({ results: [], echo: expect.stringMatching(/^«redacted:/) });
      expect(JSON.parse(ex.requestBody!)).toEqual({ queryText: 'recall', note: expect.stringMatching(/^«redacted:/) });
    }
  });

  it('keeps a compressed body with no secret in it decoded, as HAR 1.2 does, and a binary body byte for byte', async () => {
    const compressed = gzipSync('{"results":[]}');
    const binary = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0xfe, 0x00, 0xc3]);
    const { read, entries } = await roundTrip([recorded({ body: Buffer.from('{"queryText":"recall"}') }, { body: compressed, coding: 'gzip' }), recorded({ body: Buffer.from('{"queryText":"recall"}') }, { body: binary, type: 'application/octet-stream' })]);
    const gz = entries[0]!.response.content;
    // HAR 1.2's content.text is the decoded body (suites/passive/har-coded-bodies.test.ts): the Content-Encoding header stays as sent.
    expect(gz.encoding).toBeUndefined();
    expect(gz.text).toBe('{"results":[]}');
    expect(read[0]!.responseBody).toBe('{"results":[]}');
    const bin = entries[1]!.response.content;
    expect(Buffer.from(bin.text!, 'base64').equals(binary)).toBe(true);
  });

  it('reads a compressed answer that decodes past the body limit as its decoded beginning, cut, both live and from the recording', async () => {
    // Node's one-call decoders refuse such an output whole: the compressed bytes were then read as text, garbage judged as the answer.
    const long = `{"results":[${'{"id":"m-0001","score":0.5},'.repeat(60_000)}{"id":"last","score":1}],"echo":"${TOKEN}"}`;
    const { judged, read, entries } = await roundTrip([recorded({ body: Buffer.from('{"queryText":"recall"}') }, { body: gzipSync(long), coding: 'gzip' })]);
    for (const ex of [judged[0]!, read[0]!]) {
      expect(ex.responseBodyTruncated).toBe(true);
      expect(ex.responseBody!.length).toBeGreaterThan(0);
      expect(long.startsWith(ex.responseBody!)).toBe(true);
    }
    // The secret past what was searched is not kept compressed either: the recording holds the decoded beginning only.
    const kept = entries[0]!.response.content;
    expect(kept.encoding).toBeUndefined();
    expect(kept.text).not.toContain(TOKEN);
  });

  it('hides a secret in a kept prefix that ends inside a character, and writes its marker as UTF-8 text', async () => {
    const whole = Buffer.from(`{"echo":"${TOKEN}","note":"café"}`);
    const rec = recorded({ body: Buffer.from('{"queryText":"recall"}') }, { body: whole.subarray(0, whole.length - 3) });
    rec.responseTruncated = true;
    rec.responseSize = whole.length;
    const { read, text } = await roundTrip([rec]);
    expect(text).not.toContain(TOKEN);
    expect(read[0]!.responseBodyTruncated).toBe(true);
    // Read as Latin-1 for its broken last character, the marker's « and » were written as single bytes, read back as U+FFFD.
    expect(read[0]!.responseBody).toMatch(/^\{"echo":"«redacted:[^»]+»","note":"caf$/);
  });

  it('reads a compression bomb as its decoded beginning within the limit', () => {
    // 64 MiB of one letter in some 64 KiB of gzip: decoded from a prefix of the compressed bytes, doubled from a small one.
    const bomb = gzipSync(Buffer.alloc(64 << 20, 0x61), { level: 9 });
    const read = contentText(bomb, 'gzip', 1 << 20);
    expect(read.truncated).toBe(true);
    expect(read.text.length).toBeGreaterThan(256 * 1024);
    expect(read.text.length).toBeLessThanOrEqual(1 << 20);
    expect(/^a+$/.test(read.text)).toBe(true);
  });

  it('judges no body under a coding it cannot decode, keeps none in the recording, and both say the body is lacking', async () => {
    const { judged, read, text } = await roundTrip([recorded({ body: Buffer.from(`\x1f\x8b${TOKEN}`, 'latin1'), coding: 'gzip' }, { body: Buffer.concat([Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0xff]), Buffer.from(TOKEN)]), coding: 'x-unknown' })]);
    expect(text).not.toContain(TOKEN);
    // Read as text, compressed bytes were a body of garbage: a JSON answer that is not JSON.
    expect(judged[0]!.requestBodyMissing).toMatch(/cannot be read: it is under Content-Encoding "gzip"/);
    expect(judged[0]!.responseBodyMissing).toMatch(/cannot be read: it is under Content-Encoding "x-unknown"/);
    expect(judged[0]!.responseBody).toBeUndefined();
    expect(read[0]!.requestBodyMissing).toMatch(/kept no request body/);
    expect(read[0]!.responseBodyMissing).toMatch(/kept no response body/);
  });
});
