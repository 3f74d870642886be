/**
 * The proxy's connections to its one upstream: plain TCP, TLS with the profile's CA and client
 * certificate, or through a forward proxy (to which plain HTTP goes in absolute form, and HTTPS
 * through a CONNECT tunnel undici opens, as for a run's requests). Each connection reads answers
 * with llhttp (src/passive/http1.ts) for the exchange in flight on it. Idle connections wait for
 * the next request, newest first, and close after `idleMs`, when the upstream closes them, or when
 * the upstream sends what nobody asked for: bytes past the end of an answer, in the read that ended
 * it or while the connection waits (RFC 9112 6.3: "A client MUST NOT process, cache, or forward
 * such extra data as a separate response").
 */
import { connect as tcpConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { Client } from 'undici';
import type { UpstreamRoute } from '../probe/dispatcher.ts';
import { addressOf } from '../probe/raw.ts';
import { MessageReader, type Head, type MessageEvents, type ParseError } from './http1.ts';

/** The exchange in flight on a connection: it reads the answer, and hears when the connection fails or can take more. */
export interface UpstreamUser extends MessageEvents {
  /** A chunk of the answer arrived: the user reads it with `conn.read` (and may cork its client around that). */
  arrived(chunk: Buffer, conn: UpstreamConnection): void;
  /** The upstream ended or broke the connection before the answer ended. */
  closed(error: Error | undefined): void;
  /** The connection can take more bytes again (after a write returned false). */
  drained(): void;
}

function basicAuth(proxy: URL): string | undefined {
  if (!proxy.username && !proxy.password) return undefined;
  return `Basic ${Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString('base64')}`;
}

/** A connection not made within `ms` fails, as undici's connect timeout does for a run. */
function bounded<T extends Socket>(socket: T, made: 'connect' | 'secureConnect', ms: number, where: string): T {
  const timer = setTimeout(() => socket.destroy(new Error(`connect timed out after ${ms} ms: ${where}`)), ms);
  socket.once(made, () => clearTimeout(timer));
  socket.once('close', () => clearTimeout(timer));
  return socket;
}

export class UpstreamConnection {
  /** Undefined while a tunnel is being opened; writes wait in `queued` until then. */
  private socket: Socket | undefined;
  private queued: Array<string | Buffer> | undefined;
  user: UpstreamUser | undefined;
  /** It carried an exchange before: the upstream may have closed it meanwhile. */
  reused = false;
  idleSince = 0;
  private gone = false;
  private readonly pool: UpstreamPool;
  private readonly reader: MessageReader;
  /** A chunk is being read (llhttp is executing it). */
  private reading = false;
  /** The user's answer ended inside the read under way: what to do with the connection once the read returned. */
  private released: { reuse: boolean; then: () => void } | undefined;
  /** A head followed the end of the answer inside the same read. */
  private overran = false;

  constructor(pool: UpstreamPool, socket: Socket | Promise<Socket>) {
    this.pool = pool;
    this.reader = new MessageReader('response', {
      head: (head: Head) => {
        if (this.released !== undefined) {
          this.overran = true;
          return true;
        }
        if (this.user) return this.user.head(head);
        // An answer nobody asked for: the connection cannot be trusted with the next request.
        this.destroy();
        return true;
      },
      body: (piece: Buffer) => this.user?.body(piece),
      end: () => this.user?.end(),
    });
    if (socket instanceof Promise) {
      this.queued = [];
      socket.then(
        (ready) => {
          if (this.gone) ready.destroy();
          else this.attach(ready);
        },
        (error: Error) => this.broken(error),
      );
    } else this.attach(socket);
  }

  private attach(socket: Socket): void {
    this.socket = socket;
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      if (this.user) this.user.arrived(chunk, this);
      else this.destroy();
    });
    socket.on('drain', () => this.user?.drained());
    let failure: Error | undefined;
    socket.on('error', (error: Error) => {
      failure = error;
    });
    // A close-delimited answer ends with the connection; any other cut short is a failure, which the
    // user names (the upstream closed the connection before its answer ended), not llhttp ("Parse Error").
    socket.on('end', () => {
      if (this.user) this.reader.finish();
    });
    socket.on('close', () => this.broken(failure));
    const queued = this.queued;
    this.queued = undefined;
    if (queued) for (const part of queued) socket.write(part, 'latin1');
  }

  /** Reads a chunk of the answer for the user; a ParseError when it is not HTTP/1.1. */
  read(chunk: Buffer): ParseError | undefined {
    this.reading = true;
    const error = this.reader.read(chunk);
    this.reading = false;
    const released = this.released;
    if (released !== undefined) {
      this.released = undefined;
      // Only now, with llhttp returned from the chunk: given back while it ran, the connection would
      // be taken by the next request, and the rest of the chunk read as that request's answer.
      const clean = error === undefined && !this.overran && this.reader.between();
      this.overran = false;
      this.handBack(released.reuse && clean, released.then);
    }
    return error;
  }

  /**
   * The user's answer ended: the connection waits for the next exchange when `reuse` and nothing
   * followed the answer in what was read, else it closes; then `then` runs (the client's next
   * exchange may take this very connection).
   */
  release(reuse: boolean, then: () => void): void {
    this.user = undefined;
    if (this.reading) this.released = { reuse, then };
    else this.handBack(reuse, then);
  }

  private handBack(reuse: boolean, then: () => void): void {
    if (reuse && this.usable) this.pool.give(this);
    else this.destroy();
    then();
  }

  private broken(error: Error | undefined): void {
    if (this.gone) return;
    this.gone = true;
    this.reader.close();
    this.pool.forget(this);
    const user = this.user;
    this.user = undefined;
    user?.closed(error);
  }

  get usable(): boolean {
    return !this.gone && (this.socket === undefined || (!this.socket.destroyed && !this.socket.readableEnded));
  }

  /** Writes (a head as Latin-1 text, body bytes as they are); false when the caller should wait for `drained`. */
  write(part: string | Buffer): boolean {
    if (this.socket === undefined) {
      this.queued?.push(part);
      return true;
    }
    return this.socket.write(part, 'latin1');
  }

  cork(): void {
    this.socket?.cork();
  }

  uncork(): void {
    this.socket?.uncork();
  }

  private paused = false;

  /** Stops reading while the client cannot take more of the answer. */
  pause(): void {
    this.paused = true;
    this.socket?.pause();
  }

  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    this.socket?.resume();
  }

  /** Ends the connection now (what was in flight on it is abandoned). */
  destroy(): void {
    this.user = undefined;
    if (this.socket) this.socket.destroy();
    else this.broken(undefined);
  }
}

export class UpstreamPool {
  private readonly idle: UpstreamConnection[] = [];
  private readonly all = new Set<UpstreamConnection>();
  private readonly upstream: URL;
  private readonly route: UpstreamRoute;
  private readonly idleMs: number;
  private tunnels: Client | undefined;
  /**
   * Through a forward proxy, plain HTTP goes to the proxy in absolute form with the proxy's
   * credentials, as undici sends it for a run (and as proxies allow by default, where CONNECT is
   * often kept to port 443); HTTPS goes through a CONNECT tunnel.
   */
  readonly targetPrefix: string;
  readonly proxyHeaders: string;

  constructor(upstream: URL, route: UpstreamRoute, idleMs: number) {
    this.upstream = upstream;
    this.route = route;
    this.idleMs = idleMs;
    const forwarded = route.proxy !== undefined && upstream.protocol !== 'https:';
    this.targetPrefix = forwarded ? upstream.origin : '';
    const auth = forwarded ? basicAuth(route.proxy!) : undefined;
    this.proxyHeaders = auth ? `proxy-authorization: ${auth}\r\n` : '';
  }

  /** A connection for one exchange: the newest idle one, else a new one. */
  take(user: UpstreamUser): UpstreamConnection {
    let conn = this.idle.pop();
    while (conn !== undefined && !conn.usable) conn = this.idle.pop();
    conn ??= this.open();
    conn.user = user;
    return conn;
  }

  /** The exchange on it ended cleanly and both sides keep it open: it waits for the next. */
  give(conn: UpstreamConnection): void {
    conn.user = undefined;
    if (!conn.usable) return;
    // Its last answer may have paused it for a slow client: the next exchange reads it from the start.
    conn.resume();
    conn.reused = true;
    conn.idleSince = performance.now();
    this.idle.push(conn);
  }

  forget(conn: UpstreamConnection): void {
    this.all.delete(conn);
    const at = this.idle.indexOf(conn);
    if (at >= 0) this.idle.splice(at, 1);
  }

  /** Closes the connections idle for longer than `idleMs` (the oldest are first). */
  sweep(now: number): void {
    while (this.idle.length > 0 && now - this.idle[0]!.idleSince > this.idleMs) this.idle.shift()!.destroy();
  }

  close(): void {
    for (const conn of [...this.all]) conn.destroy();
    this.idle.length = 0;
    void this.tunnels?.destroy().catch(() => undefined);
  }

  private open(): UpstreamConnection {
    const { proxy } = this.route;
    const socket = proxy === undefined ? this.connect(this.upstream, undefined) : this.upstream.protocol === 'https:' ? this.tunnel(proxy) : this.connect(proxy, undefined);
    const conn = new UpstreamConnection(this, socket);
    this.all.add(conn);
    return conn;
  }

  /** A connection to `to` (the upstream, or a forward proxy), TLS when it is https (inside `through` when given). */
  private connect(to: URL, through: Socket | undefined): Socket {
    const { route } = this;
    const { host, port } = addressOf(to);
    if (to.protocol !== 'https:') return through ?? bounded(tcpConnect({ host, port }), 'connect', route.connectTimeoutMs, `${host}:${port}`);
    // The client certificate is the upstream's to ask for; a proxy is only shown the CA.
    const files = to === this.upstream ? route.tls : route.tls?.ca ? { ca: route.tls.ca } : undefined;
    const secure = tlsConnect({ host, port, ...(through ? { socket: through } : {}), ...(isIP(host) ? {} : { servername: host }), ALPNProtocols: ['http/1.1'], ...files });
    return bounded(secure, 'secureConnect', route.connectTimeoutMs, `${host}:${port}`);
  }

  /** A CONNECT tunnel through the forward proxy to the upstream, with TLS to the upstream inside it. */
  private async tunnel(proxy: URL): Promise<Socket> {
    this.tunnels ??= new Client(proxy.origin, { connect: { timeout: this.route.connectTimeoutMs, ...(this.route.tls?.ca ? { ca: this.route.tls.ca } : {}) } });
    const authority = `${this.upstream.hostname}:${addressOf(this.upstream).port}`;
    const auth = basicAuth(proxy);
    const { socket, statusCode } = await this.tunnels.connect({ path: authority, headers: { host: authority, ...(auth ? { 'proxy-authorization': auth } : {}) } });
    if (statusCode !== 200) {
      socket.destroy();
      throw new Error(`the forward proxy refused the tunnel to ${authority} (${statusCode})`);
    }
    return this.connect(this.upstream, socket as Socket);
  }
}
