/**
 * The probe client undoes the Content-Encoding of what it reads. RFC 9110 §12.5.3: "A request
 * without any Accept-Encoding header field implies that the user agent has no preferences regarding
 * content-codings. Although this allows the server to use any content coding in a response, it does
 * not imply that the user agent will be able to correctly process all encodings." The probe sends no
 * Accept-Encoding, so a deployment may gzip every answer; the passive side decoded such answers while
 * the active client judged the compressed bytes: one rule, two answers. Decoding is bounded (a bomb
 * is cut and marked so) and streams are decoded as they arrive.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, createGzip, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestBudget } from '../../src/probe/budget.ts';
import { closeDispatcher, createDispatcher, ProbeClient } from '../../src/probe/client.ts';
import { contentText } from '../../src/passive/content.ts';
import { exchangeOfEntry, harEntryOf } from '../../src/passive/har.ts';
import { HarRecorder } from '../../src/passive/recorder.ts';
import { Redactor } from '../../src/redact/redactor.ts';
import { within } from '../support/bounded.ts';

const DOCUMENT = { run_id: 'run_ü_1', accepted: true, steps: Array.from({ length: 50 }, (_, i) => ({ i, note: 'gzip me' })) };
const TEXT = JSON.stringify(DOCUMENT);
const CAP = 256 * 1024;
/** A gzip bomb: 256 MiB of spaces in some 250 KiB. */
const BOMB = gzipSync(Buffer.alloc(256 * 1024 * 1024, 0x20), { level: 9 });

/** Sent the second event of /events only once the client saw the first: a stream decoded as it arrives, or not at all. */
let sawFirst: (() => void) | undefined;

function answer(req: IncomingMessage, res: ServerResponse): void {
  const path = req.url ?? '/';
  const json = (body: Buffer, coding: string) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': coding, 'content-length': body.length });
    res.end(body);
  };
  if (path === '/gzip') return json(gzipSync(TEXT), 'gzip');
  if (path === '/x-gzip') return json(gzipSync(TEXT), 'x-gzip');
  if (path === '/deflate') return json(deflateSync(TEXT), 'deflate');
  if (path === '/br') return json(brotliCompressSync(TEXT), 'br');
  if (path === '/chain') return json(brotliCompressSync(gzipSync(TEXT)), 'gzip, br');
  if (path === '/problem') {
    res.writeHead(404, { 'content-type': 'application/problem+json', 'content-encoding': 'gzip' });
    res.end(gzipSync(JSON.stringify({ type: 'about:blank', status: 404, title: 'Not Found' })));
    return;
  }
  if (path === '/unknown') return json(gzipSync(TEXT), 'x-apicert');
  if (path === '/broken') return json(Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0xde, 0xad, 0xbe, 0xef, 0x00, 0x00, 0xff, 0xff]), 'gzip');
  if (path === '/bomb') return json(BOMB, 'gzip');
  if (path === '/events-broken') {
    // One event well coded, then bytes that are no deflate data.
    res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' });
    const good = gzipSync('data: {"id":1}\n\n');
    res.write(good.subarray(0, good.length - 8));
    res.end(Buffer.from('this is not deflate data at all'));
    return;
  }
  if (path === '/events' || path === '/events-bomb') {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' });
    const gzip = createGzip();
    gzip.on('data', (chunk: Buffer) => res.write(chunk));
    gzip.on('end', () => res.end());
    res.on('close', () => gzip.destroy());
    if (path === '/events-bomb') {
      // Endless well-formed events: some 25 MiB of them, far past the cap, sent in one compressed run.
      const line = Buffer.from(`data: ${JSON.stringify({ pad: ' '.repeat(1000) })}\n\n`);
      for (let i = 0; i < 25_000 && !res.destroyed; i += 1) gzip.write(line);
      gzip.end();
      return;
    }
    const send = (id: number) => new Promise<void>((resolve) => gzip.write(`id: ${id}\ndata: ${JSON.stringify({ id })}\n\n`, () => gzip.flush(() => resolve())));
    void (async () => {
      await send(1);
      // Held until the client has read event 1, for at most 5 s (then it comes anyway, and the test fails on its order).
      await Promise.race([new Promise<void>((resolve) => (sawFirst = resolve)), new Promise((resolve) => setTimeout(resolve, 5_000))]);
      await send(2);
      gzip.end();
    })();
    return;
  }
  res.writeHead(404);
  res.end();
}

let server: ReturnType<typeof createServer>;
let baseUrl = '';

beforeAll(async () => {
  server = createServer(answer);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function probeOn(dispatcher = createDispatcher()): { probe: ProbeClient; close: () => Promise<void> } {
  const probe = new ProbeClient({ baseUrl, redactor: new Redactor(), budget: new RequestBudget(100), timeoutMs: 5_000, streamTimeoutMs: 8_000, streamCloseGraceMs: 100, dispatcher, maxBodyBytes: CAP });
  return { probe, close: () => closeDispatcher(dispatcher) };
}

describe('the probe client undoes the content coding of an answer (RFC 9110 §12.5.3)', () => {
  it('parses the JSON of an answer under gzip, x-gzip, deflate, br and a list of codings, and keeps the header and the decoded text', async () => {
    const { probe, close } = probeOn();
    try {
      for (const path of ['/gzip', '/x-gzip', '/deflate', '/br', '/chain']) {
        const answer = await probe.send({ method: 'GET', path, credential: null });
        expect(answer.json, path).toEqual(DOCUMENT);
        expect(answer.malformed, path).toBeUndefined();
        expect(answer.cut, path).toBeUndefined();
      }
      const problem = await probe.send({ method: 'GET', path: '/problem', credential: null });
      expect(problem.json).toMatchObject({ status: 404, title: 'Not Found' });
      expect(probe.findings).toEqual([]);
      // The journal (what every judgement reads) holds the decoded text beside the Content-Encoding, as HAR 1.2 content.text does.
      const first = probe.exchanges[0]!;
      expect(first.responseHeaders['content-encoding']).toBe('gzip');
      expect(first.responseBody).toBe(TEXT);
      expect(probe.evidence[0]!.response!.body).toContain('"run_id":"run_ü_1"');
    } finally {
      await close();
    }
  });

  it('decodes a raw request\'s answer too', async () => {
    const { probe, close } = probeOn();
    try {
      const answer = await probe.sendRaw({ method: 'GET', target: '/gzip', headers: [], credential: null });
      expect(answer.json).toEqual(DOCUMENT);
      expect(probe.findings).toEqual([]);
    } finally {
      await close();
    }
  });

  it('cuts a gzip bomb at the body cap, marks it cut and stays bounded in memory', async () => {
    const { probe, close } = probeOn();
    try {
      const before = process.memoryUsage().rss;
      const answer = await probe.send({ method: 'GET', path: '/bomb', credential: null });
      const grown = process.memoryUsage().rss - before;
      expect(answer.cut).toBe(true);
      expect(answer.text.length).toBeGreaterThan(0);
      expect(answer.text.length).toBeLessThanOrEqual(CAP);
      expect(answer.text.trim()).toBe('');
      expect(probe.oversized).toHaveLength(1);
      expect(probe.exchanges[0]!.responseBodyTruncated).toBe(true);
      // 256 MiB decoded would show; what stays is a few caps at most.
      expect(grown).toBeLessThan(64 * 1024 * 1024);
    } finally {
      await close();
    }
  });

  it('judges the bytes as read under a coding it cannot undo, and says the coding was not decoded', async () => {
    const { probe, close } = probeOn();
    try {
      const unknown = await probe.send({ method: 'GET', path: '/unknown', credential: null });
      expect(unknown.json).toBeUndefined();
      expect(unknown.malformed).toMatch(/not valid UTF-8: its Content-Encoding "x-apicert" was not decoded \(apicert cannot decode "x-apicert"\)/);
      const broken = await probe.send({ method: 'GET', path: '/broken', credential: null });
      expect(broken.malformed).toMatch(/its Content-Encoding "gzip" was not decoded \(its bytes are not gzip\)/);
      expect(probe.findings).toHaveLength(2);
    } finally {
      await close();
    }
  });
});

describe('the probe client decodes a compressed event stream as it arrives', () => {
  it('hands each event on before the server sent the next', async () => {
    const { probe, close } = probeOn();
    try {
      const seen: string[] = [];
      const read = await within(
        15_000,
        'the gzipped stream',
        probe.stream({
          method: 'GET',
          path: '/events',
          credential: null,
          maxMs: 8_000,
          onEvent: (event) => {
            seen.push(`${event.id}:${event.data}`);
            // The server sends event 2 only now: had the client waited for the whole body, event 1 would not be here.
            if (event.id === '1') sawFirst?.();
            return 'continue';
          },
        }),
      );
      expect(seen).toEqual(['1:{"id":1}', '2:{"id":2}']);
      expect(read.end).toBe('server');
      expect(read.malformed).toBeUndefined();
      expect(probe.findings).toEqual([]);
      expect(probe.exchanges[0]!.responseHeaders['content-encoding']).toBe('gzip');
      expect(probe.exchanges[0]!.events?.map((e) => e.data)).toEqual(['{"id":1}', '{"id":2}']);
    } finally {
      await close();
    }
  });

  it('stops a stream whose decoded bytes pass the cap at the byte limit', async () => {
    const { probe, close } = probeOn();
    try {
      const read = await within(15_000, 'the gzipped stream bomb', probe.stream({ method: 'GET', path: '/events-bomb', credential: null, maxMs: 8_000 }));
      expect(read.end).toBe('byte-limit');
      expect(read.events.length).toBeGreaterThan(0);
      // About the cap's worth of 1 KiB events, not the 25,000 sent.
      expect(read.events.length).toBeLessThan((CAP / 1000) * 1.2);
    } finally {
      await close();
    }
  });
});

describe('a compressed event stream whose bytes stop decoding', () => {
  it('says the stream stopped decoding in its malformed reason and findings, without a crash', async () => {
    const { probe, close } = probeOn();
    try {
      const read = await within(15_000, 'the broken gzipped stream', probe.stream({ method: 'GET', path: '/events-broken', credential: null, maxMs: 8_000 }));
      expect(read.malformed).toMatch(/^is an event stream: its Content-Encoding "gzip" was not decoded \(its bytes are not gzip/);
      expect(probe.findings.join('\n')).toMatch(/stopped: its Content-Encoding "gzip" was not decoded/);
    } finally {
      await close();
    }
  });
});

describe('a recording of a gzip-answering target reads as the active run read it', () => {
  it('gives judge-traffic the text the journal holds, from the wire bytes and from text already decoded', async () => {
    const recorder = new HarRecorder();
    const dispatcher = createDispatcher();
    const { probe, close } = probeOn(dispatcher.compose(recorder.interceptor) as unknown as ReturnType<typeof createDispatcher>);
    try {
      await probe.send({ method: 'GET', path: '/gzip', credential: null });
      await probe.send({ method: 'GET', path: '/br', credential: null });
    } finally {
      await close();
      await closeDispatcher(dispatcher);
    }
    const entries = (recorder.document('test') as { log: { entries: unknown[] } }).log.entries;
    expect(entries).toHaveLength(2);
    for (const [i, entry] of entries.entries()) {
      const read = exchangeOfEntry(entry, i)!;
      expect(read.responseBody, `entry ${i}`).toBe(probe.exchanges[i]!.responseBody);
    }
    // Decoded text under its Content-Encoding header (HAR 1.2 content.text, as browsers and a hidden recording write it) is not decoded again.
    for (const coding of ['gzip', 'br', 'gzip, br']) {
      const decoded = harEntryOf({ startedAt: new Date(), method: 'GET', url: `${baseUrl}/gzip`, requestHeaders: {}, status: 200, responseHeaders: { 'content-type': 'application/json', 'content-encoding': coding }, responseBody: Buffer.from(TEXT) });
      expect(exchangeOfEntry(decoded, 0)!.responseBody, coding).toBe(probe.exchanges[0]!.responseBody);
    }
  });

  it('reads a recorded body under a list of codings as the probe does: every coding undone in turn', () => {
    const wire = brotliCompressSync(gzipSync(TEXT));
    expect(contentText(wire, 'gzip, br', CAP).text).toBe(TEXT);
  });
});
