/**
 * `apicert proxy`: a reverse proxy on loopback that forwards every request and answer unchanged
 * and keeps a bounded record of each exchange for the passive judge.
 *
 * Built on node:http (the listening side) and undici's `request` (the upstream side, the same
 * client the probe uses): both stream bodies chunk by chunk with backpressure, which is all a
 * transparent proxy needs. A proxy library (http-proxy, fastify's reply-from) would add a
 * dependency for the same two pipes and hide the chunks the recorder must see.
 *
 * Unchanged means: method, path, query, headers and bodies pass as they are, except the
 * hop-by-hop headers (RFC 9110, 7.6.1), which belong to each connection, and Host, which names the
 * upstream. An event stream reaches the client chunk by chunk as the upstream sends it. Memory is
 * bounded: at most `bodyLimit` bytes of each body and the last `maxExchanges` exchanges are kept.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Transform } from 'node:stream';
import { writeFile } from 'node:fs/promises';
import type { Dispatcher } from 'undici';
import { upstreamDispatcher } from '../probe/dispatcher.ts';
import { headersFor, type Network } from '../profile/network.ts';
import { contentText } from './content.ts';
import { BodyPrefix, flatHeaders, type TrafficExchange } from './exchange.ts';
import { harDocument, harEntryOf, type RecordedBytes } from './har.ts';
import { HARNESS_VERSION } from '../runner/certify.ts';

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-authenticate', 'proxy-authorization', 'host']);

function forwardable(headers: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  // Connection may name more hop-by-hop headers; most messages carry none or only "keep-alive", already one.
  const connection = headers.connection;
  const named = connection === undefined || connection === 'keep-alive' ? undefined : new Set(String(connection).split(',').map((h) => h.trim().toLowerCase()));
  const out: Record<string, string | string[]> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined && !HOP_BY_HOP.has(name) && !named?.has(name)) out[name] = value;
  }
  return out;
}

export interface ProxyOptions {
  upstream: string;
  port?: number;
  /** Stop after this long; otherwise on SIGINT, SIGTERM or `stop`. */
  durationMs?: number;
  bodyLimit: number;
  maxExchanges: number;
  /** Bytes of bodies kept at once across every exchange (KEPT_BYTES_LIMIT by default). */
  maxKeptBytes?: number;
  harOut?: string;
  onListening?: (url: string) => void;
  /** Called once the proxy stopped listening, before the record is judged (live judging ends here). */
  onStopped?: () => void | Promise<void>;
  /** Called as each exchange completes (its answer ended, failed, or the client left), with its place in arrival order, for live judging. */
  onExchange?: (rec: RecordedBytes, index: number) => void;
  /** The profile's network settings for the upstream (CA, client certificate, proxy, headers per surface, which the record leaves out). */
  network?: Network;
}

/** Bytes of bodies the proxy keeps at once, whatever the two limits above would allow. */
export const KEPT_BYTES_LIMIT = 128 * 1024 * 1024;

const keptBytes = (r: RecordedBytes) => (r.requestBody?.length ?? 0) + (r.responseBody?.length ?? 0);

/** An exchange in the ring: its bodies' bytes once they count (-1 before), and whether it was dropped. */
interface Kept {
  rec: RecordedBytes;
  bytes: number;
  gone: boolean;
}

/** The exchanges kept: the newest `limit` (and at most KEPT_BYTES_LIMIT of bodies), in the order their requests arrived. */
class Ring {
  private readonly items: Kept[] = [];
  private head = 0;
  private bytes = 0;
  dropped = 0;
  private readonly limit: number;
  private readonly byteLimit: number;
  constructor(limit: number, byteLimit: number) {
    this.limit = limit;
    this.byteLimit = byteLimit;
  }
  push(rec: RecordedBytes): Kept {
    const kept: Kept = { rec, bytes: -1, gone: false };
    this.items.push(kept);
    this.evict();
    return kept;
  }
  /** An exchange's bodies arrived: they count against the byte budget from now on. */
  account(kept: Kept): void {
    // An exchange dropped while it was still flowing no longer counts.
    if (kept.gone) return;
    kept.bytes = keptBytes(kept.rec);
    this.bytes += kept.bytes;
    this.evict();
  }
  private evict(): void {
    while (this.items.length - this.head > this.limit || (this.bytes > this.byteLimit && this.items.length - this.head > 1)) {
      const oldest = this.items[this.head]!;
      if (oldest.bytes >= 0) this.bytes -= oldest.bytes;
      oldest.gone = true;
      this.items[this.head] = undefined as unknown as Kept;
      this.head += 1;
      this.dropped += 1;
    }
    // Compacted now and then, so dropping the oldest stays cheap (no shift per exchange).
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items.splice(0, this.head);
      this.head = 0;
    }
  }
  get all(): readonly RecordedBytes[] {
    return this.items.slice(this.head).map((kept) => kept.rec);
  }
}

export function exchangeOfBytes(rec: RecordedBytes, index: number, bodyLimit: number): TrafficExchange {
  const url = new URL(rec.url);
  const ex: TrafficExchange = { index, startedAt: rec.startedAt.toISOString(), method: rec.method, url: rec.url, path: `${url.pathname}${url.search}`, requestHeaders: rec.requestHeaders, responseHeaders: rec.responseHeaders };
  if (rec.durationMs !== undefined) ex.durationMs = rec.durationMs;
  if (rec.requestBody !== undefined && rec.requestBody.length > 0) {
    // A request's byte order mark is part of what was sent (a server may refuse it), unlike an answer's, which a client reads past.
    const sent = contentText(rec.requestBody, rec.requestHeaders['content-encoding'], bodyLimit, true);
    ex.requestBody = sent.text;
    if (sent.truncated || rec.requestTruncated) ex.requestBodyTruncated = true;
  }
  if (rec.status !== undefined) {
    ex.status = rec.status;
    const body = contentText(rec.responseBody ?? Buffer.alloc(0), rec.responseHeaders['content-encoding'], bodyLimit);
    ex.responseBody = body.text;
    if (body.truncated || rec.responseTruncated) ex.responseBodyTruncated = true;
  }
  if (rec.error !== undefined) ex.error = rec.error;
  // What the client did not wait for was not recorded: the answer (a stream, mostly) is a part at most.
  if (rec.error === CLIENT_CLOSED && rec.status !== undefined) {
    ex.streamEnd = 'aborted';
    ex.responseBodyTruncated = true;
  }
  return ex;
}

const CLIENT_CLOSED = 'the client closed the connection';

/** A request target that is not a path (absolute-form, `*`, or none a URL parser reads) is not the upstream's to answer. */
function refuseTarget(res: ServerResponse): void {
  res.writeHead(400, { 'content-type': 'text/plain', connection: 'close' });
  res.end('apicert proxy: only a request target that is a path (starting with "/") is forwarded, to the upstream\n');
}

/** What every exchange of one proxy shares: its ring, limits and live hand-over. */
interface Forwarding {
  ring: Ring;
  bodyLimit: number;
  onExchange: ((rec: RecordedBytes, index: number) => void) | undefined;
}

const FLIGHT = Symbol('apicert.flight');
type Answering = ServerResponse & { [FLIGHT]?: Flight };

/** The client went away before the answer ended: the upstream request ends with it. One function for every exchange (no closure, no once-wrapper per exchange). */
function clientClosed(this: Answering): void {
  const flight = this[FLIGHT];
  if (flight === undefined || this.writableFinished) return;
  flight.abandon();
}

/**
 * One exchange in flight: undici's dispatch handler for its upstream request, streaming the answer
 * to the client as it comes (chunks go straight from the upstream socket to the client, with
 * backpressure: the upstream is paused while the client is slow), and its record. No body stream,
 * abort signal or promise is built per request (undici's request API cost the proxy more than the
 * forwarding did), and the exchange is this one object, not a closure per callback: the proxy pays
 * for every allocation an exchange makes. `finish` runs once the answer ended, failed, or the
 * client went away.
 */
class Flight implements Dispatcher.DispatchHandler {
  private size = 0;
  private finished = false;
  private controller: Dispatcher.DispatchController | undefined;
  private readonly res: Answering;
  private readonly rec: RecordedBytes;
  private readonly kept: Kept;
  private readonly index: number;
  private readonly started: number;
  private readonly forwarding: Forwarding;
  /** The request body's prefix, when the request has a body. */
  readonly request: BodyPrefix | undefined;
  private readonly answer: BodyPrefix;
  constructor(res: ServerResponse, rec: RecordedBytes, index: number, started: number, hasBody: boolean, forwarding: Forwarding) {
    this.res = res;
    this.rec = rec;
    this.index = index;
    this.started = started;
    this.forwarding = forwarding;
    this.kept = forwarding.ring.push(rec);
    this.request = hasBody ? new BodyPrefix(forwarding.bodyLimit) : undefined;
    this.answer = new BodyPrefix(forwarding.bodyLimit);
    this.res[FLIGHT] = this;
    res.on('close', clientClosed);
  }
  abandon(): void {
    this.controller?.abort(new Error(CLIENT_CLOSED));
    this.finish();
  }
  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    const rec = this.rec;
    // The upstream may answer before it has read the whole request: the prefix is taken last.
    if (this.request !== undefined) {
      rec.requestBody = this.request.bytes;
      if (this.request.truncated) rec.requestTruncated = true;
    }
    if (rec.status !== undefined) {
      rec.responseBody = this.answer.bytes;
      if (this.answer.truncated) {
        rec.responseTruncated = true;
        rec.responseSize = this.size;
      }
    }
    rec.durationMs = Math.round(performance.now() - this.started);
    this.forwarding.ring.account(this.kept);
    this.forwarding.onExchange?.(rec, this.index);
  }
  onRequestStart(c: Dispatcher.DispatchController): void {
    this.controller = c;
    if (this.res.destroyed) c.abort(new Error(CLIENT_CLOSED));
  }
  onResponseStart(c: Dispatcher.DispatchController, status: number, headers: Record<string, string | string[] | undefined>): void {
    this.rec.status = status;
    this.rec.responseHeaders = flatHeaders(headers);
    this.res.writeHead(status, forwardable(headers));
    // A stream's headers go out at once (its first event may be long in coming); any other answer's go with its body.
    if (String(headers['content-type'] ?? '').startsWith('text/event-stream')) this.res.flushHeaders();
    this.controller = c;
  }
  onResponseData(c: Dispatcher.DispatchController, chunk: Buffer): void {
    this.size += chunk.length;
    this.answer.add(chunk);
    if (!this.res.write(chunk) && !this.res.destroyed) {
      c.pause();
      this.res.once('drain', () => c.resume());
    }
  }
  onResponseEnd(): void {
    this.res.end();
    this.finish();
  }
  onResponseError(_c: Dispatcher.DispatchController, error: Error): void {
    this.rec.error = error.message;
    if (!this.res.headersSent && !this.res.destroyed) {
      this.res.writeHead(502, { 'content-type': 'text/plain' });
      this.res.end('apicert proxy: the upstream did not answer\n');
    } else this.res.destroy();
    this.finish();
  }
}

export interface RunningProxy {
  url: string;
  /** What was recorded so far (the newest `maxExchanges`), as the judge reads it. */
  exchanges(): TrafficExchange[];
  recorded(): readonly RecordedBytes[];
  dropped(): number;
  close(): Promise<void>;
}

export async function startProxy(options: Omit<ProxyOptions, 'durationMs' | 'harOut' | 'onListening' | 'onStopped'>): Promise<RunningProxy> {
  const upstream = new URL(options.upstream);
  const origin = upstream.origin;
  const agent = await upstreamDispatcher(options.network);
  const ring = new Ring(options.maxExchanges, options.maxKeptBytes ?? KEPT_BYTES_LIMIT);
  const forwarding: Forwarding = { ring, bodyLimit: options.bodyLimit, onExchange: options.onExchange };

  let arrivals = 0;
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    const path = req.url ?? '/';
    // A reverse proxy has one upstream. Only a path (origin-form) is forwarded, always to the
    // upstream's origin and as sent: a leading "//" or "/\" stays part of the path, where
    // resolving it as a URL (`new URL(path, upstream)`) would have named another host.
    if (path.charCodeAt(0) !== 47) {
      refuseTarget(res);
      return;
    }
    const index = arrivals;
    arrivals += 1;
    const url = origin + path;
    const requestHeaders = flatHeaders(req.headers);
    // Recorded as the upstream received it: Host names the upstream (the proxy replaces the client's), as a recording made there would show.
    requestHeaders.host = upstream.host;
    const rec: RecordedBytes = { startedAt: new Date(), method: req.method ?? 'GET', url, requestHeaders, responseHeaders: {} };
    const hasBody = (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0') || req.headers['transfer-encoding'] !== undefined;
    const flight = new Flight(res, rec, index, started, hasBody, forwarding);
    const sent = forwardable(req.headers);
    const prefix = flight.request;
    agent.dispatch(
      {
        origin,
        path,
        method: rec.method as Dispatcher.HttpMethod,
        headers: options.network ? { ...headersFor(options.network, new URL(url)), ...sent } : sent,
        body: prefix ? req.pipe(new Transform({ transform: (chunk: Buffer, _encoding, done) => done(null, (prefix.add(chunk), chunk)) })) : null,
        headersTimeout: 0,
        bodyTimeout: 0,
      },
      flight,
    );
  };

  const server = createServer(handle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exchanges: () => ring.all.map((rec, i) => exchangeOfBytes(rec, i, options.bodyLimit)),
    recorded: () => ring.all,
    dropped: () => ring.dropped,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // Streams still open end with the proxy: their recording ends where they were cut.
      const grace = setTimeout(() => server.closeAllConnections(), 500);
      await closed;
      clearTimeout(grace);
      await agent.close().catch(() => undefined);
    },
  };
}

/** Runs the proxy until SIGINT, SIGTERM or the duration; then judges what it recorded. */
export async function runProxy<T>(options: ProxyOptions & { judge: (exchanges: TrafficExchange[], startedAt: Date) => Promise<T> }): Promise<T> {
  const startedAt = new Date();
  const proxy = await startProxy(options);
  options.onListening?.(proxy.url);
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      clearTimeout(timer);
      resolve();
    };
    const timer = options.durationMs !== undefined ? setTimeout(stop, options.durationMs) : undefined;
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await proxy.close();
  await options.onStopped?.();
  if (options.harOut) await writeFile(options.harOut, `${JSON.stringify(harDocument(proxy.recorded().map(harEntryOf), HARNESS_VERSION), null, 1)}\n`, { mode: 0o600 });
  return options.judge(proxy.exchanges(), startedAt);
}
