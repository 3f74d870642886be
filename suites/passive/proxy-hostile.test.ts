/**
 * `apicert proxy` between hostile parties: an upstream that sends past the end of its answer or
 * breaks it off, a client that pipelines and never reads, many bodies in flight at once, and a stop
 * that cuts exchanges. The upstreams are raw sockets, since their framing must be able to lie; every
 * wait is bounded.
 */
import { createServer as createNetServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { exchangeOfEntry, harEntryOf, type RecordedBytes } from '../../src/passive/har.ts';
import { exchangeOfBytes, startProxy, type RunningProxy } from '../../src/passive/proxy.ts';
import { within } from '../support/bounded.ts';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  await within(10_000, 'the cleanup', Promise.all(cleanups.splice(0).map((clean) => clean())));
});

/** Polls `test` every 20 ms until it holds or `ms` passed; says whether it held. */
async function until(ms: number, test: () => boolean): Promise<boolean> {
  const end = performance.now() + ms;
  while (!test()) {
    if (performance.now() > end) return false;
    await sleep(20);
  }
  return true;
}

interface RawUpstream {
  url: string;
  /** Request targets in the order their heads arrived. */
  targets: string[];
}

/** A raw TCP upstream: `answer` writes whatever bytes it likes for each request head (requests here have no body). */
async function rawUpstream(answer: (socket: Socket, target: string) => void): Promise<RawUpstream> {
  const targets: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffered = '';
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('latin1');
      for (let at = buffered.indexOf('\r\n\r\n'); at >= 0; at = buffered.indexOf('\r\n\r\n')) {
        const target = buffered.slice(0, at).split(' ')[1]!;
        buffered = buffered.slice(at + 4);
        targets.push(target);
        answer(socket, target);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, targets };
}

async function proxyTo(upstream: string, options: { bodyLimit?: number; maxKeptBytes?: number; onExchange?: (rec: RecordedBytes, index: number) => void } = {}): Promise<RunningProxy> {
  const proxy = await startProxy({ upstream, bodyLimit: options.bodyLimit ?? 64 * 1024, maxExchanges: 10_000, ...options });
  cleanups.push(() => proxy.close());
  return proxy;
}

/** A raw client connection to the proxy that collects what it is sent. */
function rawClient(proxy: RunningProxy): { socket: Socket; text: () => string; closed: Promise<void> } {
  const socket = connect(Number(new URL(proxy.url).port), '127.0.0.1');
  socket.on('error', () => undefined);
  let text = '';
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString('latin1');
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  cleanups.push(() => socket.destroy());
  return { socket, text: () => text, closed };
}

/** Status lines in what a client received. */
const answers = (text: string) => text.split('HTTP/1.1 ').length - 1;
/** The bodies of the Content-Length answers a client received, in order. */
function bodies(text: string): string[] {
  const out: string[] = [];
  for (let at = text.indexOf('HTTP/1.1 '); at >= 0; at = text.indexOf('HTTP/1.1 ', at + 1)) {
    const end = text.indexOf('\r\n\r\n', at);
    const length = /content-length: (\d+)/i.exec(text.slice(at, end));
    if (end >= 0 && length) out.push(text.slice(end + 4, end + 4 + Number(length[1])));
  }
  return out;
}

const json = (status: string, body: string) => `HTTP/1.1 ${status}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

describe('an upstream that sends past the end of its answer', () => {
  it('never makes those bytes another request\'s answer, on the client\'s connection or another client\'s, nor in the record', async () => {
    const smuggled = json('200 OK', '{"smuggled":"answer!"}');
    const up = await rawUpstream((socket, target) => {
      // Content-Length 13, then a second whole answer in the same write: RFC 9112 6.3 forbids forwarding it as one.
      if (target === '/long') socket.write(json('200 OK', '{"a":"long"}') + smuggled);
      // The real answer to the pipelined request comes later, on its own connection or the first.
      else if (target === '/second') setTimeout(() => socket.write(json('200 OK', '{"for":"second"}')), 200);
      else socket.write(json('200 OK', `{"for":"${target.slice(1)}"}`));
    });
    const proxy = await proxyTo(up.url);
    const a = rawClient(proxy);
    a.socket.write('GET /long HTTP/1.1\r\nhost: x\r\n\r\nGET /second HTTP/1.1\r\nhost: x\r\n\r\n');
    // Another client's request while the pipelined one waits for its answer.
    await sleep(50);
    const b = rawClient(proxy);
    b.socket.write('GET /b HTTP/1.1\r\nhost: x\r\n\r\n');
    // Two answers for A and one for B, whichever they are (bounded: the assertions below say which).
    await until(3_000, () => answers(a.text()) >= 2 && answers(b.text()) >= 1);
    expect(a.text()).not.toContain('smuggled');
    expect(b.text()).not.toContain('second');
    expect(bodies(a.text())).toEqual(['{"a":"long"}', '{"for":"second"}']);
    expect(bodies(b.text())).toEqual(['{"for":"b"}']);
    const recorded = Object.fromEntries(proxy.exchanges().map((ex) => [ex.path, ex.responseBody]));
    expect(recorded).toEqual({ '/long': '{"a":"long"}', '/second': '{"for":"second"}', '/b': '{"for":"b"}' });
  });

  it('closes a connection whose answer is followed by part of another, so the next answer is read whole', async () => {
    const up = await rawUpstream((socket, target) => {
      if (target === '/long') socket.write(`${json('200 OK', '{"a":"long"}')}HTTP/1.1 200 OK\r\ncontent-le`);
      else socket.write(json('200 OK', `{"for":"${target.slice(1)}"}`));
    });
    const proxy = await proxyTo(up.url);
    const a = rawClient(proxy);
    a.socket.write('GET /long HTTP/1.1\r\nhost: x\r\n\r\n');
    expect(await until(3_000, () => a.text().includes('"long"'))).toBe(true);
    // Sequential, after the first answer: a kept connection would read the half head before this answer.
    a.socket.write('GET /next HTTP/1.1\r\nhost: x\r\n\r\n');
    await until(3_000, () => answers(a.text()) >= 2);
    expect(bodies(a.text())).toEqual(['{"a":"long"}', '{"for":"next"}']);
    expect(proxy.exchanges().map((ex) => [ex.path, ex.status, ex.error])).toEqual([
      ['/long', 200, undefined],
      ['/next', 200, undefined],
    ]);
  });
});

/** Bytes a socket that is never read takes before its writer must wait (the kernel's buffers on both ends). */
async function unreadCapacity(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const reader = connect((server.address() as AddressInfo).port, '127.0.0.1');
  reader.pause();
  try {
    const [writer] = (await within(2_000, 'a connection', new Promise((resolve) => server.once('connection', (s: Socket) => resolve([s]))))) as [Socket];
    const chunk = Buffer.alloc(16_000, 97);
    let total = 0;
    for (let round = 0; round < 2_000; round += 1) {
      while (writer.write(chunk)) total += chunk.length;
      total += chunk.length;
      const drained = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), 300);
        writer.once('drain', () => {
          clearTimeout(timer);
          resolve(true);
        });
      });
      if (!drained) break;
    }
    const taken = total - writer.writableLength;
    writer.destroy();
    return taken;
  } finally {
    reader.destroy();
    server.close();
  }
}

describe('a client that pipelines requests and reads no answer', () => {
  it('gets its requests forwarded only as far as its socket takes the answers, and all of them once it reads', async () => {
    const size = 16_000;
    const body = 'z'.repeat(size);
    // Each answer arrives in one read: the proxy's pause of the upstream connection never comes into play.
    const up = await rawUpstream((socket) => socket.write(`HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: ${size}\r\n\r\n${body}`));
    const capacity = await unreadCapacity();
    // What the kernel takes, plus the proxy's own write buffer and one answer, twice over: a bound, not an estimate.
    const bound = 2 * Math.ceil((capacity + 64 * 1024 + size) / size) + 4;
    const requests = Math.max(2_000, 4 * bound);
    const proxy = await proxyTo(up.url, { bodyLimit: 1024 });
    const client = rawClient(proxy);
    client.socket.pause();
    client.socket.write('GET /size16k HTTP/1.1\r\nhost: x\r\n\r\n'.repeat(requests));
    // Until the count stops growing for half a second (or 6 s pass).
    let last = -1;
    await until(6_000, () => {
      const settled = up.targets.length === last;
      last = up.targets.length;
      return settled && last > 0;
    });
    await sleep(500);
    expect(up.targets.length).toBeGreaterThan(0);
    expect(up.targets.length).toBeLessThanOrEqual(bound);
    // Once the client reads, it gets every answer: reading and starting flights resume on 'drain'.
    let received = 0;
    client.socket.removeAllListeners('data');
    client.socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
    });
    client.socket.resume();
    const answer = Buffer.byteLength(`HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: ${size}\r\n\r\n${body}`);
    expect(await until(8_000, () => received >= requests * answer)).toBe(true);
    expect(up.targets.length).toBe(requests);
  }, 30_000);
});

describe('an answer the upstream broke off after its status', () => {
  const cases: Record<string, (socket: Socket) => void> = {
    // Fewer bytes than its Content-Length, then the connection closes (RFC 9112 6.3: incomplete).
    '/cl-short': (socket) => socket.end('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"a":"short"}'),
    '/close-mid': (socket) => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n6\r\n{"a":1\r\n');
      setTimeout(() => socket.destroy(), 50);
    },
    '/chunk-bad': (socket) => socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n5\r\n{"a":\r\nzz\r\nbroken\r\n'),
  };

  it('is recorded as a prefix whose stream was aborted, with what happened, and judged so from the proxy\'s record and from its HAR alike', async () => {
    const up = await rawUpstream((socket, target) => cases[target]?.(socket));
    const proxy = await proxyTo(up.url);
    for (const target of Object.keys(cases)) {
      const client = rawClient(proxy);
      client.socket.write(`GET ${target} HTTP/1.1\r\nhost: x\r\n\r\n`);
      await within(3_000, `the end of ${target}`, client.closed);
    }
    const recorded = proxy.recorded();
    const exchanges = proxy.exchanges();
    expect(exchanges.map((ex) => [ex.path, ex.status, ex.streamEnd, ex.responseBodyTruncated])).toEqual(Object.keys(cases).map((path) => [path, 200, 'aborted', true]));
    const byPath = Object.fromEntries(exchanges.map((ex) => [ex.path, ex]));
    expect(byPath['/cl-short']!.error).toBe('the upstream closed the connection before its answer ended');
    expect(byPath['/cl-short']!.responseBody).toBe('{"a":"short"}');
    expect(byPath['/close-mid']!.error).toMatch(/^the upstream closed the connection before its answer ended/);
    expect(byPath['/chunk-bad']!.error).toMatch(/^the upstream's answer is not HTTP\/1\.1/);
    for (const [i, rec] of recorded.entries()) {
      const fromHar = exchangeOfEntry(JSON.parse(JSON.stringify(harEntryOf(rec))), i, 64 * 1024)!;
      const pick = (ex: typeof fromHar) => ({ status: ex.status, error: ex.error, streamEnd: ex.streamEnd, responseBody: ex.responseBody, responseBodyTruncated: ex.responseBodyTruncated, responseBodyMissing: ex.responseBodyMissing });
      expect(pick(exchanges[i]!)).toEqual(pick(fromHar));
    }
  });

  it('is judged alike from a record and its HAR for every error after a status, a body kept or not', () => {
    const base = { startedAt: new Date(0), method: 'GET', url: 'http://127.0.0.1:1/v8/x', requestHeaders: {}, status: 200, responseHeaders: { 'content-type': 'application/json' } };
    const records: RecordedBytes[] = [
      { ...base, responseBody: Buffer.from('{"a":"short"}'), error: 'the upstream closed the connection before its answer ended' },
      { ...base, responseBody: Buffer.alloc(0), error: 'the proxy stopped before the answer ended' },
      { ...base, responseBody: Buffer.from('{"a":'), error: 'read ECONNRESET' },
      { ...base, responseBody: Buffer.from([0xff, 0xfe, 0x00]), responseHeaders: { 'content-type': 'application/octet-stream', 'content-encoding': 'gzip' }, error: 'the client closed the connection' },
    ];
    for (const [i, rec] of records.entries()) {
      const proxied = exchangeOfBytes(rec, i, 1024);
      const read = exchangeOfEntry(JSON.parse(JSON.stringify(harEntryOf(rec))), i, 1024)!;
      expect(proxied.streamEnd).toBe('aborted');
      expect([proxied.error, proxied.streamEnd, proxied.responseBody, proxied.responseBodyTruncated, proxied.responseBodyMissing !== undefined]).toEqual([read.error, read.streamEnd, read.responseBody, read.responseBodyTruncated, read.responseBodyMissing !== undefined]);
    }
  });
});

describe('bodies in flight', () => {
  it('count against the bytes of bodies kept at once: four answers in flight together keep no more than the budget', async () => {
    const piece = 512 * 1024;
    const open: Socket[] = [];
    const up = await rawUpstream((socket) => {
      socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/octet-stream\r\ntransfer-encoding: chunked\r\n\r\n${piece.toString(16)}\r\n`);
      socket.write(Buffer.alloc(piece, 0x61));
      socket.write('\r\n');
      open.push(socket);
    });
    const ended: RecordedBytes[] = [];
    const budget = 256 * 1024;
    const proxy = await proxyTo(up.url, { bodyLimit: 1024 * 1024, maxKeptBytes: budget, onExchange: (rec) => ended.push(rec) });
    const clients = [0, 1, 2, 3].map(() => rawClient(proxy));
    for (const [i, client] of clients.entries()) client.socket.write(`GET /big/${i} HTTP/1.1\r\nhost: x\r\n\r\n`);
    // Every answer's piece went through the proxy while all four were in flight; then they end together.
    expect(await until(5_000, () => open.length === 4 && clients.every((c) => c.text().length > piece))).toBe(true);
    for (const socket of open) socket.write('0\r\n\r\n');
    expect(await until(3_000, () => ended.length === 4)).toBe(true);
    const kept = ended.reduce((sum, rec) => sum + (rec.responseBody?.length ?? 0), 0);
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThanOrEqual(budget);
    // A body cut by the budget says how long it was.
    for (const rec of ended) if ((rec.responseBody?.length ?? 0) < piece) expect([rec.responseTruncated, rec.responseSize]).toEqual([true, piece]);
  });
});

describe('the proxy stopping', () => {
  it('records an event stream it cut as its own stop of the reading (timeout), the events read whole, not an answer broken off', async () => {
    const up = await rawUpstream((socket) => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n');
      const timer = setInterval(() => socket.write('data: {"n":1}\n\n'), 20);
      socket.on('close', () => clearInterval(timer));
    });
    const proxy = await startProxy({ upstream: up.url, bodyLimit: 1024, maxExchanges: 10 });
    const client = rawClient(proxy);
    client.socket.write('GET /v8/stream HTTP/1.1\r\nhost: x\r\n\r\n');
    expect(await until(3_000, () => client.text().includes('data:'))).toBe(true);
    await within(5_000, 'the proxy\'s stop', proxy.close());
    const [ex] = proxy.exchanges();
    expect([ex?.status, ex?.error, ex?.streamEnd, ex?.responseBodyTruncated]).toEqual([200, undefined, 'timeout', undefined]);
  });
});
