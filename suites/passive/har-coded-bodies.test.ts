/**
 * Recordings of answers under a content coding (RFC 9110 §12.5.3: apicert sends no Accept-Encoding,
 * so a server may answer gzip or br). HAR 1.2 keeps bodies decoded: `content.text` is "either HTTP
 * decoded text or a encoded (e.g. "base64") representation of the decoded response body", `size` its
 * decoded length, `compression` the bytes saved, and browsers keep the Content-Encoding header beside
 * it. `certify --har-out` wrote the wire bytes, base64: a HAR viewer, Playwright's routeFromHAR or a
 * teammate's script read gzip where the JSON should be. The reader takes every form: apicert's old
 * (wire bytes), its new (decoded, `_apicertBody`), and browsers' (decoded, no field).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { Agent, request } from 'undici';
import { describe, expect, it } from 'vitest';
import { apicert } from '../support/in-process-cli.ts';
import { exchangeOfEntry, harEntryOf, readHar, type RecordedBytes } from '../../src/passive/har.ts';
import { recordingHiding } from '../../src/passive/judge.ts';
import { exchangeOfBytes } from '../../src/passive/proxy.ts';
import { HarRecorder, hiddenHar, writeHar } from '../../src/passive/recorder.ts';


type NameValue = { name: string; value: string };
interface Content {
  size: number;
  mimeType: string;
  text?: string;
  encoding?: string;
  compression?: number;
  _apicertBody?: string;
}
interface Entry {
  request: { method: string; url: string; postData?: { text: string; encoding?: string; _apicertBody?: string }; bodySize: number };
  response: { status: number; headers: NameValue[]; content: Content; bodySize: number };
}

const header = (headers: NameValue[], name: string) => headers.find((h) => h.name.toLowerCase() === name)?.value;
const reportOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'latest', 'report.json'), 'utf8')) as { rules: Array<{ id: string; verdict: string; exchanges?: number }> };

/** Rules that read /v1 answers' bodies (JSON, problem+json, an event stream) and judge recordings too. */
const RULES = ['v1.runs.get', 'v1.errors.problem-shape', 'v1.execute.task.task-object', 'v1.auth.unauthenticated', 'v1.runs.events.identity'];

describe('certify --har-out of a target that answers gzip', () => {
  it('writes each body decoded as HAR 1.2 does, and judge-traffic passes the rules the run passed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apicert-har-coded-'));
    const har = join(dir, 'run.har');
    const run = await apicert('certify', '--variant', 'v1.contract/gzip-answers', '--rules', RULES.join(','), '--out', join(dir, 'active'), '--quiet', '--har-out', har);
    expect(run.code, run.err).toBe(0);
    const entries = (JSON.parse(readFileSync(har, 'utf8')) as { log: { entries: Entry[] } }).log.entries;
    const coded = entries.filter((e) => header(e.response.headers, 'content-encoding') === 'gzip' && e.response.content.size > 0);
    expect(coded.length).toBeGreaterThan(10);
    let json = 0;
    for (const e of coded) {
      const { content } = e.response;
      const where = `${e.request.method} ${e.request.url} ${e.response.status}`;
      // Decoded text, not base64 of gzip bytes; the header stays as the server sent it.
      expect(content.encoding, where).toBeUndefined();
      expect(content._apicertBody, where).toBe('decoded');
      expect(content.size, where).toBe(Buffer.byteLength(content.text!, 'utf8'));
      expect(content.compression, where).toBe(e.response.bodySize - content.size);
      if (/json/.test(content.mimeType)) {
        expect(() => JSON.parse(content.text!), where).not.toThrow();
        json += 1;
      } else expect(content.text, where).toMatch(/^(id|event|data|retry|:)/m);
    }
    expect(json).toBeGreaterThan(10);

    const judged = await apicert('judge-traffic', '--har', har, '--out', join(dir, 'passive'), '--quiet');
    expect(judged.code, judged.err).toBe(0);
    const active = reportOf(join(dir, 'active'));
    const passive = reportOf(join(dir, 'passive'));
    for (const id of RULES) {
      expect(active.rules.find((r) => r.id === id)?.verdict, id).toBe('pass');
      const rule = passive.rules.find((r) => r.id === id)!;
      expect(rule.verdict, id).toBe('pass');
      expect(rule.exchanges, id).toBeGreaterThan(0);
    }
  }, 60_000);
});

const JSON_TEXT = '{"run_id":"run_1","accepted":true,"note":"café ☕"}';
const CODINGS: Record<string, (b: Buffer) => Buffer> = { gzip: (b) => gzipSync(b), br: (b) => brotliCompressSync(b), deflate: (b) => deflateSync(b) };

function answered(coding: string, body: Buffer, extra: Partial<RecordedBytes> = {}): RecordedBytes {
  return { startedAt: new Date(0), method: 'GET', url: 'http://127.0.0.1:9/v1/runs/run_1', requestHeaders: {}, status: 200, responseHeaders: { 'content-type': 'application/json', 'content-encoding': coding }, responseBody: body, ...extra };
}

/** A HAR entry with `content` as some recorder wrote it under `coding`. */
function entryWith(coding: string, content: Record<string, unknown>): unknown {
  return { request: { method: 'GET', url: 'http://127.0.0.1:9/v1/runs/run_1', headers: [] }, response: { status: 200, headers: [{ name: 'Content-Type', value: 'application/json' }, { name: 'Content-Encoding', value: coding }], content } };
}

describe('the HAR reader reads a coded answer in every form a recorder writes', () => {
  for (const [coding, compress] of Object.entries(CODINGS)) {
    it(`reads apicert's old wire bytes, its new decoded text and browsers' decoded text or base64 to the same body (${coding})`, () => {
      const wire = compress(Buffer.from(JSON_TEXT));
      const rec = answered(coding, wire);
      const written = JSON.parse(JSON.stringify(harEntryOf(rec))) as Entry;
      // The new form: the decoded text, as HAR 1.2 keeps it.
      expect(written.response.content).toMatchObject({ text: JSON_TEXT, size: Buffer.byteLength(JSON_TEXT), compression: wire.length - Buffer.byteLength(JSON_TEXT), _apicertBody: 'decoded' });
      expect(written.response.content.encoding).toBeUndefined();
      expect(written.response.bodySize).toBe(wire.length);
      const forms: Record<string, unknown> = {
        'apicert, old: base64 of the wire bytes': entryWith(coding, { size: wire.length, mimeType: 'application/json', text: wire.toString('base64'), encoding: 'base64' }),
        'apicert, new: decoded text': written,
        'browser: decoded text': entryWith(coding, { size: Buffer.byteLength(JSON_TEXT), mimeType: 'application/json', text: JSON_TEXT }),
        'browser: base64 of the decoded bytes': entryWith(coding, { size: Buffer.byteLength(JSON_TEXT), mimeType: 'application/json', text: Buffer.from(JSON_TEXT).toString('base64'), encoding: 'base64' }),
      };
      const proxied = exchangeOfBytes(rec, 0, 1 << 20);
      expect(proxied.responseBody).toBe(JSON_TEXT);
      for (const [form, entry] of Object.entries(forms)) {
        const read = exchangeOfEntry(entry, 0)!;
        expect(read.responseBody, form).toBe(JSON_TEXT);
        expect(read.responseBodyTruncated, form).toBeUndefined();
        expect(read.responseBodyMissing, form).toBeUndefined();
      }
    });
  }

  it('does not decode again a body apicert kept decoded whose bytes look compressed (a .gz file served gzipped)', () => {
    const file = gzipSync('{"archived":true}');
    const rec = answered('gzip', gzipSync(file), { responseHeaders: { 'content-type': 'application/gzip', 'content-encoding': 'gzip' } });
    const proxied = exchangeOfBytes(rec, 0, 1 << 20);
    const written = JSON.parse(JSON.stringify(harEntryOf(rec))) as Entry;
    expect(Buffer.from(written.response.content.text!, 'base64').equals(file)).toBe(true);
    expect(exchangeOfEntry(written, 0)!.responseBody).toBe(proxied.responseBody);
    // The same entry made by hand, as the new writer makes it: the field, not the bytes, says it is decoded.
    const byHand = entryWith('gzip', { size: file.length, mimeType: 'application/gzip', text: file.toString('base64'), encoding: 'base64', _apicertBody: 'decoded' });
    expect(exchangeOfEntry(byHand, 0)!.responseBody).toBe(proxied.responseBody);
    expect(exchangeOfEntry(byHand, 0)!.responseBody).not.toBe('{"archived":true}');
  });

  it('keeps a body it cannot decode as the wire bytes, says so, and the reader says it cannot be read as the proxy did', () => {
    const broken = Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08, 0x00]), Buffer.from('not a gzip stream at all')]);
    const unknown = Buffer.concat([Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0xff]), Buffer.from('abc')]);
    for (const [coding, wire] of [['gzip', broken], ['x-unknown', unknown]] as const) {
      const rec = answered(coding, wire);
      const written = JSON.parse(JSON.stringify(harEntryOf(rec))) as Entry;
      expect(written.response.content).toMatchObject({ encoding: 'base64', _apicertBody: 'wire', size: wire.length });
      expect(Buffer.from(written.response.content.text!, 'base64').equals(wire)).toBe(true);
      const proxied = exchangeOfBytes(rec, 0, 1 << 20);
      const read = exchangeOfEntry(written, 0)!;
      expect(proxied.responseBodyMissing, coding).toMatch(/cannot be read/);
      expect(read.responseBodyMissing, coding).toBe(proxied.responseBodyMissing);
      expect(read.responseBody, coding).toBeUndefined();
    }
  });

  it('writes a compressed request body decoded, measured by its decoded length', () => {
    const sent = '{"mode":"task","input":"résumé"}';
    const wire = gzipSync(sent);
    const rec: RecordedBytes = { ...answered('gzip', gzipSync(JSON_TEXT)), method: 'POST', requestHeaders: { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': String(wire.length) }, requestBody: wire };
    const written = JSON.parse(JSON.stringify(harEntryOf(rec))) as Entry;
    expect(written.request.postData).toMatchObject({ text: sent, _apicertBody: 'decoded' });
    expect(written.request.bodySize).toBe(Buffer.byteLength(sent));
    const read = exchangeOfEntry(written, 0)!;
    expect(read.requestBody).toBe(sent);
    expect(read.requestBodyTruncated).toBeUndefined();
  });
});

describe('proxy --har-out of answers under a content coding', () => {
  it('writes them decoded with their secrets hidden, and judge-traffic reads what the proxy judged', async () => {
    const token = 'k3J9xQpLm2ZtV7wR0aYb4Nc8';
    const records = [
      { ...answered('gzip', gzipSync(JSON_TEXT)), requestHeaders: { authorization: `Bearer ${token}` } },
      { ...answered('br', brotliCompressSync(`{"echo":"${token}"}`)), requestHeaders: { authorization: `Bearer ${token}` } },
    ];
    const judged = records.map((rec, i) => exchangeOfBytes(rec, i, 1 << 20));
    const file = join(mkdtempSync(join(tmpdir(), 'apicert-har-proxy-')), 'traffic.har');
    // What `proxy --har-out` writes (proxy.ts): the record, hidden as the judged exchanges teach.
    await writeHar(file, hiddenHar(records, 'test', recordingHiding(judged, undefined, {})));
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(token);
    const entries = (JSON.parse(text) as { log: { entries: Entry[] } }).log.entries;
    expect(entries[0]!.response.content).toMatchObject({ text: JSON_TEXT, _apicertBody: 'decoded' });
    expect(JSON.parse(entries[1]!.response.content.text!)).toEqual({ echo: expect.stringMatching(/^«redacted:/) });
    const read = (await readHar(file)).exchanges;
    expect(read[0]!.responseBody).toBe(judged[0]!.responseBody);
    expect(JSON.parse(read[1]!.responseBody!)).toEqual({ echo: expect.stringMatching(/^«redacted:/) });
  });
});

describe('a coded answer the recorder kept in part', () => {
  const long = `{"results":[${Array.from({ length: 4000 }, (_, i) => `{"id":"m-${i}","label":"é${i % 7}☕"}`).join(',')}]}`;
  for (const coding of ['gzip', 'br']) {
    it(`is written as its decoded beginning, text to its last whole character, marked cut (${coding})`, () => {
      const wire = CODINGS[coding]!(Buffer.from(long));
      const kept = wire.subarray(0, Math.floor(wire.length / 2));
      const rec = answered(coding, Buffer.from(kept), { responseTruncated: true, responseSize: wire.length });
      const written = JSON.parse(JSON.stringify(harEntryOf(rec))) as Entry;
      const { content } = written.response;
      expect(content.encoding).toBeUndefined();
      expect(content._apicertBody).toBe('decoded');
      expect(content.text!.length).toBeGreaterThan(1000);
      expect(long.startsWith(content.text!)).toBe(true);
      expect(content.size).toBeGreaterThan(Buffer.byteLength(content.text!));
      expect(content.compression).toBeUndefined();
      const read = exchangeOfEntry(written, 0)!;
      expect(read.responseBodyTruncated).toBe(true);
      expect(read.responseBody).toBe(content.text);
    });
  }
});

describe('the byte budget of certify --har-out over decoded bodies', () => {
  it('keeps the decoded bodies within --max-kept-bytes, those past it cut and counted', async () => {
    // Each answer is some 40 KiB of JSON in a few hundred bytes of gzip: the wire bytes fit the budget many times, the decoded ones do not.
    const body = JSON.stringify({ items: Array.from({ length: 2000 }, (_, i) => ({ id: i % 10, ok: true })) });
    const gz = gzipSync(body);
    const server: Server = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(gz);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const budget = 64 * 1024;
    const recorder = new HarRecorder(1024 * 1024, budget);
    const agent = new Agent();
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/usage`;
      for (let i = 0; i < 5; i += 1) {
        const res = await request(url, { dispatcher: agent.compose(recorder.interceptor) });
        await res.body.arrayBuffer();
      }
    } finally {
      await agent.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    expect(recorder.cut).toBe(0);
    const file = join(mkdtempSync(join(tmpdir(), 'apicert-har-budget-')), 'run.har');
    await recorder.write(file, 'test');
    const entries = (JSON.parse(readFileSync(file, 'utf8')) as { log: { entries: Entry[] } }).log.entries;
    expect(entries).toHaveLength(5);
    const texts = entries.map((e) => e.response.content.text!);
    expect(texts.reduce((n, t) => n + Buffer.byteLength(t), 0)).toBeLessThanOrEqual(budget);
    // The first answer whole and decoded; the budget then cuts the rest, each marked so.
    expect(JSON.parse(texts[0]!)).toEqual(JSON.parse(body));
    for (const e of entries.slice(2)) expect(e.response.content.size).toBeGreaterThan(Buffer.byteLength(e.response.content.text!));
    expect(recorder.cut).toBeGreaterThanOrEqual(3);
    const read = await readHar(file);
    expect(read.exchanges[0]!.responseBody).toBe(body);
    for (const ex of read.exchanges.slice(2)) {
      expect(ex.responseBodyTruncated).toBe(true);
      expect(body.startsWith(ex.responseBody!)).toBe(true);
    }
  });
});
