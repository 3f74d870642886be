/**
 * The proxy's forwarding, at the level of HTTP/1.1 messages: each request is read with llhttp
 * (src/passive/http1.ts), its head written again for the upstream, its body passed on piece by
 * piece; the answer comes back the same way. node:http and undici built four objects and two
 * streams per exchange around the same parser, and the proxy's thread cost as much as the fake
 * and client it stood between (docs/recordings.md, "The proxy").
 *
 * What changes on the way, and only that (RFC 9110, 7.6.1; RFC 9112): hop-by-hop headers and the
 * headers Connection names are dropped both ways; Host names the upstream; the framing of each
 * side is its own (a chunked body is chunked again, under the codings it came with, without its
 * trailer fields, which RFC 9112 7.1.2 lets a recipient that removes the chunked coding discard; a
 * close-delimited answer is chunked for an HTTP/1.1 client). Pipelined requests are answered in
 * order, one at a time, each sent upstream once the client has taken what was written to it. A
 * request that asks to upgrade is forwarded without its Upgrade, and the connection closes after
 * its answer. What RFC 9112 makes every server refuse (no Host, two Hosts) is refused here, as
 * node:http did, and an absolute-form target naming the proxy is forwarded as its path.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { headersFor, type Network } from '../profile/network.ts';
import { appendHeader, BodyPrefix, mediaType } from './exchange.ts';
import type { RecordedBytes } from './har.ts';
import { MessageReader, type Head, type ParseError } from './http1.ts';
import type { UpstreamConnection, UpstreamPool, UpstreamUser } from './upstream.ts';
import type { StreamWatch, StreamWatching } from './stream-watch.ts';

export const CLIENT_CLOSED = 'the client closed the connection';
/** The proxy stopped (its grace ran out) while the exchange was in flight: the client did not leave, it was cut. */
export const PROXY_STOPPED = 'the proxy stopped before the answer ended';
export const UPSTREAM_CLOSED = 'the upstream closed the connection before its answer ended';

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-authenticate', 'proxy-authorization', 'host']);

/** A client connection idle this long is closed, as node:http's keepAliveTimeout did. */
const CLIENT_IDLE_MS = 5_000;

/** Where each exchange's record goes: `begin` as its request arrives, `end` once it completed. */
export interface Recorder<Entry> {
  bodyLimit: number;
  begin(rec: RecordedBytes): Entry;
  /**
   * How many of `bytes` more body bytes the exchange may keep now (at most `bytes`): what is kept in
   * flight counts against the same budget as what is kept once done.
   */
  keep(entry: Entry, bytes: number): number;
  end(entry: Entry): void;
}

/** A head's header lines: as the record keeps them, and those that pass on as text, with what framing says. */
interface Lines {
  /** Lower-cased names, repeated lines joined with ", " (as the HAR reader and the probe client record them). */
  record: Record<string, string>;
  /** The lines that pass (hop-by-hop ones and those Connection names left out), as received. */
  text: string;
  chunked: boolean;
  /** The Transfer-Encoding value when there is one. */
  codings: string | undefined;
  contentLength: boolean;
}

/** Names the Connection header lists besides "keep-alive" and "close": hop-by-hop for this message only. */
function namedByConnection(value: string | undefined): Set<string> | undefined {
  if (value === undefined || value === 'keep-alive' || value === 'close') return undefined;
  let named: Set<string> | undefined;
  for (const token of value.split(',')) {
    const name = token.trim().toLowerCase();
    if (name !== 'keep-alive' && name !== 'close' && name !== '') (named ??= new Set()).add(name);
  }
  return named;
}

/** One pass over the lines (a proxy does this twice per exchange); a second only when Connection names more headers. */
function linesOf(raw: string[]): Lines {
  const record: Record<string, string> = {};
  let text = '';
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    const value = raw[i + 1]!;
    appendHeader(record, name, value);
    if (!HOP_BY_HOP.has(name)) text += `${raw[i]}: ${value}\r\n`;
  }
  const named = namedByConnection(record.connection);
  if (named !== undefined) {
    text = '';
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i]!.toLowerCase();
      if (!HOP_BY_HOP.has(name) && !named.has(name)) text += `${raw[i]}: ${raw[i + 1]}\r\n`;
    }
  }
  const codings = record['transfer-encoding'];
  return { record, text, chunked: codings !== undefined && /(?:^|,)\s*chunked\s*$/i.test(codings), codings, contentLength: record['content-length'] !== undefined };
}

const CRLF = Buffer.from('\r\n');

/** Methods a proxy may send again when the connection failed before any answer (RFC 9110, 9.2.2). */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE']);
const LAST_CHUNK = '0\r\n\r\n';
/**
 * A body piece this small is written as Latin-1 text (which keeps every byte) with the rest of what
 * one read of the answer gave (its head, chunk framing, other pieces): one write per read, cheaper
 * than corking the socket around several.
 */
const SMALL_PIECE = 16 * 1024;

/** What one proxy's exchanges share. */
export interface Forwarder<Entry> {
  upstream: URL;
  pool: UpstreamPool;
  recorder: Recorder<Entry>;
  network: Network | undefined;
  /** How event streams are watched for their terminal event (the close grace); without it none is. */
  streams?: StreamWatching;
}

/** An answer the proxy gives itself: to an exchange it could not forward, or whose upstream did not answer. */
interface Refusal {
  status: number;
  reason: string;
  text: string;
}

/** A request target that is neither a path nor an absolute URI naming this proxy (authority-form, `*`, another host) is not the upstream's to answer. */
const NOT_A_PATH: Refusal = { status: 400, reason: 'Bad Request', text: 'apicert proxy: only a request target that is a path (starting with "/"), or an absolute URI naming this proxy, is forwarded, to the upstream\n' };
/** RFC 9110 15.5.20: a request for another authority than the proxy's, which it forwards to its upstream only. */
const MISDIRECTED: Refusal = { status: 421, reason: 'Misdirected Request', text: 'apicert proxy: an absolute URI naming another host is not forwarded; this proxy forwards to its upstream only\n' };
/**
 * RFC 9112 3.2: "A server MUST respond with a 400 (Bad Request) status code to any HTTP/1.1 request
 * message that lacks a Host header field and to any request message that contains more than one Host
 * header field line". Without a body, as node:http answers it: the HTTP layer's refusal, not the API's.
 */
const HOST_REQUIRED: Refusal = { status: 400, reason: 'Bad Request', text: '' };

/** Host header lines among a head's raw lines. */
function hostLines(raw: readonly string[]): number {
  let n = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === 4 && raw[i]!.toLowerCase() === 'host') n += 1;
  return n;
}

/** Names a client may reach a loopback listener by. */
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * The path an absolute-form target sends the upstream (RFC 9112 3.2.2: a server MUST accept that
 * form), when it names this proxy: its listening port on a loopback name. A refusal when it names
 * another authority or is no URI; the target itself when it is a path already.
 */
function pathOf(target: string, socket: Socket): string | Refusal {
  if (target.charCodeAt(0) === 47) return target;
  const absolute = /^http:\/\/([^/?#]*)([^#]*)/i.exec(target);
  if (!absolute) return NOT_A_PATH;
  let url: URL;
  try {
    url = new URL(`http://${absolute[1]}/`);
  } catch {
    return NOT_A_PATH;
  }
  if (!LOOPBACK.has(url.hostname) || Number(url.port || 80) !== socket.localPort) return MISDIRECTED;
  const rest = absolute[2]!;
  return rest.startsWith('/') ? rest : `/${rest}`;
}
const NO_ANSWER: Refusal = { status: 502, reason: 'Bad Gateway', text: 'apicert proxy: the upstream did not answer\n' };

/** The refusal as plain text; `close` ends the connection after it. */
function plainAnswer(refusal: Refusal, close: boolean): string {
  const type = refusal.text === '' ? '' : 'content-type: text/plain\r\n';
  return `HTTP/1.1 ${refusal.status} ${refusal.reason}\r\n${type}content-length: ${Buffer.byteLength(refusal.text)}\r\n${close ? 'connection: close\r\n' : ''}\r\n${refusal.text}`;
}

/** One client connection: its requests in arrival order; the first is answered, the rest wait. */
class Downstream<Entry> {
  readonly socket: Socket;
  readonly forwarder: Forwarder<Entry>;
  private readonly reader: MessageReader;
  readonly queue: Array<Flight<Entry> | Refusal> = [];
  /** The request whose body is being read now. */
  private reading: Flight<Entry> | undefined;
  /** No more requests are read (after an upgrade request, a refusal, a parse error or the client's end); the connection closes once the queue is answered. */
  private stopped = false;
  /** An upstream asked to wait for the request body it is given. */
  private blocked = false;
  /** The upstream connection corked while a chunk is read, so a head and its body leave in one write. */
  private corked: UpstreamConnection | undefined;
  private reads = false;
  /** The queued exchange that was started (its request went to an upstream, or its refusal to the client). */
  private current: Flight<Entry> | Refusal | undefined;
  /** A 'drain' listener waits for the client to take what was written to it. */
  private awaitingDrain = false;
  /** The proxy stops: an exchange cut now was cut by the proxy, not left by its client. */
  private stopping = false;
  idleSince = performance.now();

  constructor(socket: Socket, forwarder: Forwarder<Entry>) {
    this.socket = socket;
    this.forwarder = forwarder;
    socket.setNoDelay(true);
    this.reader = new MessageReader('request', {
      head: (head) => this.head(head),
      body: (piece) => this.reading?.requestPiece(piece),
      end: () => {
        this.reading?.requestEnded();
        this.reading = undefined;
      },
    });
    socket.on('data', (chunk: Buffer) => this.data(chunk));
    socket.on('end', () => {
      // A client that ends its side has left, as node:http takes it: what it still waits for is abandoned.
      this.closed();
      socket.end();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => this.closed());
  }

  private data(chunk: Buffer): void {
    if (this.stopped) return;
    this.reads = true;
    const error = this.reader.read(chunk);
    this.reads = false;
    if (this.corked) {
      this.corked.uncork();
      this.corked = undefined;
    }
    if (error) this.malformed(error);
  }

  /** Corks `conn` until the chunk being read is read (a head and the body after it leave together). */
  corkWhileReading(conn: UpstreamConnection): void {
    if (!this.reads || this.corked === conn) return;
    this.corked?.uncork();
    conn.cork();
    this.corked = conn;
  }

  private head(head: Head): boolean {
    if (this.stopped) return true;
    // Only a path (origin-form, or an absolute URI naming this proxy) is forwarded, always to the upstream's origin and as sent: a leading "//" or "/\" stays part of the path.
    const path = pathOf(head.url, this.socket);
    if (typeof path !== 'string' || (head.version === '1.1' && hostLines(head.raw) !== 1)) {
      this.enqueue(typeof path !== 'string' ? path : HOST_REQUIRED);
      this.stop();
      return true;
    }
    const flight = new Flight(this, path === head.url ? head : { ...head, url: path });
    this.reading = flight;
    this.enqueue(flight);
    if (head.upgrade) this.stop();
    return false;
  }

  private enqueue(item: Flight<Entry> | Refusal): void {
    this.queue.push(item);
    if (this.queue.length === 1) this.next();
    this.flow();
  }

  /**
   * The first queued exchange starts, unless the client has not taken what was written to it yet:
   * then on its 'drain'. A client that pipelines requests and reads no answer holds the proxy to
   * what its socket buffers, not to every answer (bounded memory for a hostile client).
   */
  private next(): void {
    const item = this.queue[0];
    if (item === undefined || item === this.current || this.socket.destroyed) return;
    if (this.socket.writableNeedDrain) {
      this.awaitDrain();
      return;
    }
    this.current = item;
    if (item instanceof Flight) item.dispatch();
    else this.socket.end(plainAnswer(item, true), 'latin1');
  }

  private awaitDrain(): void {
    if (this.awaitingDrain) return;
    this.awaitingDrain = true;
    this.socket.once('drain', () => {
      this.awaitingDrain = false;
      this.next();
      this.flow();
    });
  }

  /** The first exchange was answered: the next one's turn. */
  answered(flight: Flight<Entry>, reusable: boolean): void {
    if (this.queue[0] === flight) this.queue.shift();
    if (this.current === flight) this.current = undefined;
    this.idleSince = performance.now();
    this.blocked = false;
    if (!reusable) this.stop();
    if (this.queue.length > 0) this.next();
    else if (this.stopped && !this.socket.destroyed) this.socket.end();
    this.flow();
  }

  /**
   * Reading pauses while requests wait their turn, an upstream cannot take the body yet, or the
   * client has not taken its answers; a body on its way to the upstream is still read then (the
   * upstream's own backpressure holds it), since a client may send it whole before it reads.
   */
  flow(): void {
    const draining = this.socket.writableNeedDrain && (this.reading === undefined || this.reading !== this.current);
    if (this.queue.length > 1 || this.blocked || draining) {
      this.socket.pause();
      if (draining) this.awaitDrain();
    } else if (!this.stopped) this.socket.resume();
  }

  block(blocked: boolean): void {
    this.blocked = blocked;
    this.flow();
  }

  private stop(): void {
    this.stopped = true;
    if (this.queue.length === 0 && !this.socket.destroyed) this.socket.end();
  }

  /** Bytes that are not an HTTP/1.1 request: answered as node:http answers them, and the connection closes. */
  private malformed(error: ParseError): void {
    this.stopped = true;
    const reading = this.reading;
    this.reading = undefined;
    // A request cut inside its body was already forwarded: the upstream's request ends with the client's.
    if (reading !== undefined) {
      reading.clientGone();
      this.socket.destroy();
      return;
    }
    const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
    if (this.queue.length === 0) this.socket.end(`HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : 'Bad Request'}\r\nconnection: close\r\n\r\n`, 'latin1');
  }

  private closed(): void {
    this.stopped = true;
    this.current = undefined;
    const why = this.stopping ? PROXY_STOPPED : CLIENT_CLOSED;
    for (const item of this.queue.splice(0)) if (item instanceof Flight) item.clientGone(why);
    this.reader.close();
  }

  /** The proxy stops: an idle connection goes now, a busy one once `force`. */
  end(force: boolean): void {
    if (force || (this.queue.length === 0 && !this.reads)) {
      this.stopping = true;
      this.socket.destroy();
    }
  }
}

/**
 * One exchange: its record, its request on its way to the upstream, and its answer on its way
 * back. It is the upstream connection's user while in flight. `finish` runs once the answer
 * ended, failed, or the client went away.
 */
class Flight<Entry> implements UpstreamUser {
  private readonly down: Downstream<Entry>;
  private readonly requestHead: Head;
  private readonly rec: RecordedBytes;
  private readonly entry: Entry;
  private readonly started = performance.now();
  private readonly request: BodyPrefix | undefined;
  private readonly answer: BodyPrefix;
  private readonly requestChunked: boolean;
  private readonly headText: string;
  private conn: UpstreamConnection | undefined;
  /** Body pieces read before this exchange's turn came (pipelining). */
  private waiting: Buffer[] | undefined;
  private requestDone = false;
  private responded = false;
  private interim = false;
  private answerChunked = false;
  /** The upstream keeps its connection open after this answer; the client keeps its own unless told "close". */
  private upstreamKeepAlive = false;
  private clientKeepAlive = true;
  private retried = false;
  private reusedConn = false;
  private finished = false;
  private size = 0;
  /** What the read of the answer under way gave the client so far, written once the read is done (`flush`). */
  private out = '';
  /** The answer is an event stream: one its client lets go of was read as far as the client wanted, not broken off. */
  private eventStream = false;
  /** When its first terminal event passed (`StreamWatch`), for a 2xx stream a closing rule reads. */
  private watch: StreamWatch | undefined;
  /** The upstream connection waits for the client to take what was written to it (`slowClient`). */
  private paused = false;
  /** It waited so after the terminal event: the upstream's close may be unread in it, so the close grace is not judged. */
  private heldAfterTerminal = false;

  constructor(down: Downstream<Entry>, head: Head) {
    this.down = down;
    this.requestHead = head;
    const { upstream, recorder, network } = down.forwarder;
    const url = upstream.origin + head.url;
    const lines = linesOf(head.raw);
    const requestHeaders = lines.record;
    // Recorded as the upstream received it: Host names the upstream, as a recording made there would show.
    requestHeaders.host = upstream.host;
    this.rec = { startedAt: new Date(), method: head.method ?? 'GET', url, requestHeaders, responseHeaders: {} };
    this.entry = recorder.begin(this.rec);
    this.requestChunked = lines.chunked;
    const hasBody = lines.chunked || (requestHeaders['content-length'] !== undefined && requestHeaders['content-length'] !== '0');
    this.request = hasBody ? new BodyPrefix(recorder.bodyLimit) : undefined;
    this.answer = new BodyPrefix(recorder.bodyLimit);
    let extra = '';
    if (network) {
      // The profile's headers for the upstream (a WAF token, say), unless the client sent the same header; the record leaves them out.
      const profile = headersFor(network, new URL(url));
      for (const name in profile) if (requestHeaders[name.toLowerCase()] === undefined) extra += `${name}: ${profile[name]}\r\n`;
    }
    const { pool } = down.forwarder;
    this.headText = `${this.rec.method} ${pool.targetPrefix}${head.url} HTTP/1.1\r\nhost: ${upstream.host}\r\n${lines.text}${extra}${pool.proxyHeaders}${lines.chunked ? `transfer-encoding: ${lines.codings}\r\n` : ''}\r\n`;
  }

  /** Its turn: the request goes to an upstream connection, with what of its body was read meanwhile. */
  dispatch(): void {
    const conn = this.down.forwarder.pool.take(this);
    this.conn = conn;
    this.reusedConn = conn.reused;
    if (this.request !== undefined) this.down.corkWhileReading(conn);
    conn.write(this.headText);
    const waiting = this.waiting;
    this.waiting = undefined;
    if (waiting) for (const piece of waiting) this.send(piece);
    if (this.requestDone && this.requestChunked) conn.write(LAST_CHUNK);
  }

  requestPiece(piece: Buffer): void {
    if (this.finished) return;
    if (this.request !== undefined) this.keep(this.request, piece);
    if (this.conn === undefined) (this.waiting ??= []).push(piece);
    else this.send(piece);
  }

  private send(piece: Buffer): void {
    const conn = this.conn!;
    if (this.requestChunked) conn.write(`${piece.length.toString(16)}\r\n`);
    let more = conn.write(piece);
    if (this.requestChunked) more = conn.write(CRLF);
    if (!more) this.down.block(true);
  }

  requestEnded(): void {
    this.requestDone = true;
    if (this.conn !== undefined && this.requestChunked && !this.finished) this.conn.write(LAST_CHUNK);
  }

  // The answer, as the upstream connection reads it.

  arrived(chunk: Buffer, conn: UpstreamConnection): void {
    const error = conn.read(chunk);
    this.flush();
    if (error && !this.finished) this.failed(`the upstream's answer is not HTTP/1.1: ${error.reason ?? error.code}`);
  }

  head(head: Head): boolean {
    if (this.finished) return true;
    if (head.status >= 100 && head.status < 200) {
      // An interim answer (100 Continue, 103 Early Hints) goes on to the client; 101 cannot, as no upgrade was forwarded.
      if (head.status === 101) {
        this.failed('the upstream switched protocols, which the proxy did not ask for');
        return true;
      }
      this.interim = true;
      // HTTP/1.0 clients are sent no interim answers (RFC 9110, 15.2).
      if (this.requestHead.version !== '1.0') this.down.socket.write(`HTTP/1.1 ${head.status} ${head.reason}\r\n${linesOf(head.raw).text}\r\n`, 'latin1');
      return true;
    }
    this.responded = true;
    const rec = this.rec;
    rec.status = head.status;
    const lines = linesOf(head.raw);
    rec.responseHeaders = lines.record;
    const noBody = this.requestHead.method === 'HEAD' || head.status === 204 || head.status === 304;
    const http10 = this.requestHead.version === '1.0';
    // Each side's framing is its own: a chunked or close-delimited answer is chunked for an HTTP/1.1 client, and ends with the connection for an HTTP/1.0 one.
    const delimitedByClose = !noBody && !lines.contentLength;
    this.answerChunked = delimitedByClose && !http10;
    this.upstreamKeepAlive = head.keepAlive;
    const closeAfter = !this.requestHead.keepAlive || this.requestHead.upgrade || (delimitedByClose && http10);
    let framing = '';
    if (this.answerChunked) framing = lines.chunked ? `transfer-encoding: ${lines.codings}\r\n` : 'transfer-encoding: chunked\r\n';
    // RFC 9112 6.1: an answer to HEAD, and a 304, may carry the Transfer-Encoding a GET would have had (to an HTTP/1.1 client only); it frames no body here.
    else if (lines.codings !== undefined && !http10 && (this.requestHead.method === 'HEAD' || head.status === 304)) framing = `transfer-encoding: ${lines.codings}\r\n`;
    if (closeAfter) framing += 'connection: close\r\n';
    else if (http10) framing += 'connection: keep-alive\r\n';
    this.out += `HTTP/1.1 ${head.status} ${head.reason}\r\n${lines.text}${framing}\r\n`;
    this.clientKeepAlive = !closeAfter;
    if (!noBody && mediaType(rec.responseHeaders) === 'text/event-stream') {
      this.eventStream = true;
      this.watch = this.down.forwarder.streams?.watch(rec);
    }
    return noBody;
  }

  body(piece: Buffer): void {
    if (this.finished) return;
    this.size += piece.length;
    const kept = this.keep(this.answer, piece);
    // Only what the record keeps: the judging reads its terminal event there, or lacks the rest.
    if (this.watch !== undefined && kept > 0) this.watchKept(kept === piece.length ? piece : piece.subarray(0, kept));
    if (piece.length <= SMALL_PIECE) {
      this.out += this.answerChunked ? `${piece.length.toString(16)}\r\n${piece.toString('latin1')}\r\n` : piece.toString('latin1');
      return;
    }
    const client = this.down.socket;
    client.cork();
    this.flush();
    if (this.answerChunked) client.write(`${piece.length.toString(16)}\r\n`, 'latin1');
    let more = client.write(piece);
    if (this.answerChunked) more = client.write(CRLF);
    client.uncork();
    if (!more) this.slowClient();
  }

  /** Bytes the record kept of the stream, to its watch; a terminal event read while the upstream waits for the client leaves the grace unjudged. */
  private watchKept(bytes: Buffer): void {
    const watch = this.watch!;
    const before = watch.terminalAt;
    watch.add(bytes);
    if (before === undefined && watch.terminalAt !== undefined && this.paused) this.heldAfterTerminal = true;
  }

  /** Keeps what the recorder's byte budget allows of `piece` (of the `bodyLimit` prefix) in `prefix`, and says how many bytes it kept. A body cut by the budget is a prefix. */
  private keep(prefix: BodyPrefix, piece: Buffer): number {
    if (prefix.truncated) return 0;
    const { recorder } = this.down.forwarder;
    const wanted = Math.min(piece.length, recorder.bodyLimit - prefix.kept);
    const granted = wanted > 0 ? recorder.keep(this.entry, wanted) : 0;
    if (granted > 0) prefix.add(granted === piece.length ? piece : piece.subarray(0, granted));
    if (granted < piece.length) prefix.truncated = true;
    return granted;
  }

  /** Writes what the read gave the client so far. */
  private flush(): void {
    if (this.out === '') return;
    const out = this.out;
    this.out = '';
    const client = this.down.socket;
    if (!client.destroyed && !client.write(out, 'latin1')) this.slowClient();
  }

  /** The client cannot take more now: the upstream connection stops reading until it can. */
  private slowClient(): void {
    const client = this.down.socket;
    const conn = this.conn;
    if (conn === undefined || client.destroyed) return;
    conn.pause();
    this.paused = true;
    if (this.watch?.terminalAt !== undefined) this.heldAfterTerminal = true;
    // Only while it is still this exchange's: a connection given back was resumed, and may be paused for another client now.
    client.once('drain', () => {
      this.paused = false;
      if (this.conn === conn) conn.resume();
    });
  }

  end(): void {
    if (this.finished) return;
    if (this.interim) {
      this.interim = false;
      return;
    }
    if (this.answerChunked) this.out += LAST_CHUNK;
    this.flush();
    const conn = this.conn!;
    this.conn = undefined;
    this.finish();
    // The upstream may answer before it has read the whole request: then its connection cannot carry another.
    // The client's next exchange starts once the connection was handed back (after llhttp returned from the chunk).
    conn.release(this.upstreamKeepAlive && this.requestDone, () => this.down.answered(this, this.clientKeepAlive));
  }

  drained(): void {
    this.down.block(false);
  }

  closed(error: Error | undefined): void {
    if (this.finished) return;
    this.conn = undefined;
    // A reused connection the upstream had closed while idle: a request without a body is sent again, once, on a new one.
    if (!this.responded && this.request === undefined && !this.retried && this.reusedConn && IDEMPOTENT.has(this.rec.method)) {
      this.retried = true;
      this.dispatch();
      return;
    }
    // After the status, the answer was broken off: said as such, whatever the socket's error was.
    if (this.responded) this.failed(error === undefined ? UPSTREAM_CLOSED : `${UPSTREAM_CLOSED} (${error.message})`);
    else this.failed(error?.message ?? UPSTREAM_CLOSED);
  }

  private failed(message: string): void {
    if (this.finished) return;
    this.drop(message);
    const client = this.down.socket;
    if (!this.responded && !client.destroyed) {
      client.write(plainAnswer(NO_ANSWER, !this.requestDone), 'latin1');
      this.finish();
      this.down.answered(this, this.requestDone);
      return;
    }
    client.destroy();
    this.finish();
  }

  /** The client went away (or the proxy stopped) before the answer ended: the upstream request ends with it. */
  clientGone(why: string = CLIENT_CLOSED): void {
    if (this.finished) return;
    if (this.eventStream) this.stoppedReading(why === PROXY_STOPPED ? 'timeout' : 'client-disconnect');
    else this.drop(why);
    this.finish();
  }

  /**
   * An event stream its reader stopped reading: its client let go of it (as apicert's own reader does
   * at a terminal event or a bound), or the proxy stopped (apicert's own end of the reading, a time
   * bound as --duration is). Its events were read whole as far as they came; the server did not end
   * it. When that came more than the close grace after its terminal event, the server held it open
   * past the grace (`grace-expired`), unless the upstream connection waited for a slow client then.
   */
  private stoppedReading(end: 'client-disconnect' | 'timeout'): void {
    const rec = this.rec;
    rec.readerStopped = true;
    rec.readerEnd = end;
    const streams = this.down.forwarder.streams;
    const terminalAt = this.watch?.terminalAt;
    if (streams !== undefined && terminalAt !== undefined && !this.heldAfterTerminal && performance.now() - terminalAt > streams.graceMs) rec.closeGraceMs = streams.graceMs;
    const conn = this.conn;
    this.conn = undefined;
    conn?.destroy();
  }

  /** The exchange ends in `error`: its upstream connection, if it has one, cannot carry another. */
  private drop(error: string): void {
    this.rec.error = error;
    const conn = this.conn;
    this.conn = undefined;
    conn?.destroy();
  }

  private finish(): void {
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
    this.down.forwarder.recorder.end(this.entry);
  }
}

export interface Listening {
  server: Server;
  /** Stops listening; idle connections close now, the rest after `graceMs`. */
  close(graceMs: number): Promise<void>;
}

/** Listens on loopback and forwards every connection's requests to the upstream. */
export async function listen<Entry>(forwarder: Forwarder<Entry>, port: number): Promise<Listening> {
  const clients = new Set<Downstream<Entry>>();
  /** Each open client connection's 'close', where what it had in flight is recorded as cut. */
  const closing = new Set<Promise<void>>();
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    const down = new Downstream(socket, forwarder);
    clients.add(down);
    const closed = new Promise<void>((resolve) =>
      socket.once('close', () => {
        clients.delete(down);
        closing.delete(closed);
        resolve();
      }),
    );
    closing.add(closed);
  });
  // Idle client connections close after CLIENT_IDLE_MS, idle upstream ones after the pool's own time.
  const sweeper = setInterval(() => {
    const now = performance.now();
    for (const down of clients) if (down.queue.length === 0 && now - down.idleSince > CLIENT_IDLE_MS) down.end(false);
    forwarder.pool.sweep(now);
  }, 1_000);
  sweeper.unref();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    server,
    close: async (graceMs) => {
      clearInterval(sweeper);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const down of clients) down.end(false);
      // Streams still open end with the proxy: their recording ends where they were cut.
      const grace = setTimeout(() => {
        for (const down of clients) down.end(true);
      }, graceMs);
      await closed;
      clearTimeout(grace);
      // The server closes once its sockets were destroyed, a turn before their own 'close' (where the exchanges cut are recorded): the record is whole only after those.
      await Promise.all(closing);
      forwarder.pool.close();
    },
  };
}
