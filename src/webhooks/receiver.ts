/**
 * The HTTP receiver the harness runs during a certification: each endpoint path is one registered
 * endpoint (one a check owns, or one several checks share, each following the run it started),
 * every delivery is kept with its raw bytes and the receiver's clock, and answered as a careful
 * service would (the verifier's status), unless the check scripts another answer (a 500 to force a
 * retry, a redirect to a trap): for the whole endpoint, or for the deliveries of one run.
 * Node-only; bounded in bodies, deliveries and waiting time.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serviceKey } from '../rule/index.ts';
import { isRecord } from '../util/json.ts';
import { MemoryEventStore, verifyWebhook, type VerifyResult } from './verify.ts';

const MAX_BODY_BYTES = 1024 * 1024;
export const MAX_DELIVERIES_PER_ENDPOINT = 2_000;
/**
 * Bytes of delivery bodies the receiver keeps at once, across its endpoints: a target that floods it
 * (2,000 deliveries of 1 MiB to each endpoint) cannot take apicert past the memory it promises a
 * hostile target. A delivery past it is answered as any other, and counted as dropped.
 */
export const MAX_KEPT_DELIVERY_BYTES = 64 * 1024 * 1024;
/**
 * How long a delivery of a run nobody has claimed waits for its answer while a check is still
 * starting a run it will answer its own way: a sender may deliver a run's first events before
 * the request that started it has answered with its id. Well short of the attempt timeouts senders use (the fake's is 3 s).
 */
export const CLAIM_HOLD_MS = 2_000;
/** Runs an endpoint answers their own way, and runs it counts dropped deliveries of: bounded. */
const MAX_RUNS_FOLLOWED = 1_000;

export interface ReceivedDelivery {
  receivedAt: number;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  rawBody: Buffer;
  /** The parsed body, or undefined when it is not JSON. */
  body: unknown;
  /** The value of `Service-Webhook-Id`, for grouping attempts. */
  eventId: string | undefined;
  /** 1 for the first delivery of this event id to this endpoint, 2 for its first retry, ... */
  attempt: number;
  /** What the receiver's verifier made of it, once a secret is known. */
  verification?: VerifyResult;
  answered: number;
}

/** A scripted answer; return undefined to answer with the verifier's status. */
export type Responder = (delivery: ReceivedDelivery) => { status: number; headers?: Record<string, string> } | undefined;

/** The run a delivery's body names (`run_id`, a string), if any. */
export function runIdOf(delivery: Pick<ReceivedDelivery, 'body'>): string | undefined {
  const id = isRecord(delivery.body) ? delivery.body.run_id : undefined;
  return typeof id === 'string' ? id : undefined;
}

export interface ReceiverOptions {
  /** Where to listen: loopback for the embedded fake, the profile's receiverListen for a real target. */
  host: string;
  port: number;
  /** The URL senders must use; defaults to the listening origin. */
  publicUrl?: string;
  /** Open a second loopback listener that plays an unsafe redirect target. */
  loopbackTrap?: boolean;
  /** Told of every delivery to an endpoint once it is answered (kept or not): `certify --har-out` records them. */
  onDelivery?: (delivery: AnsweredDelivery) => void;
}

/** A delivery to one of the receiver's endpoints as it came and as it was answered. */
export interface AnsweredDelivery {
  receivedAt: number;
  method: string;
  /** The endpoint's URL as the sender was given it. */
  url: string;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  rawBody: Buffer;
  status: number;
  responseHeaders: Record<string, string>;
}

export class ReceiverEndpoint {
  readonly deliveries: ReceivedDelivery[] = [];
  readonly trapHits: ReceivedDelivery[] = [];
  readonly token: string;
  readonly url: string;
  readonly trapUrl: string;
  secret: string | undefined;
  respond: Responder | undefined;
  readonly store = new MemoryEventStore(10_000);
  /** Deliveries answered but not kept (the count or the receiver's byte bound was reached): what was kept is not all that came. */
  dropped = 0;
  /** Of those, by the run each named ('' for none, or past MAX_RUNS_FOLLOWED runs): a shared endpoint's rule reads only its run's. */
  private readonly droppedByRun = new Map<string, number>();
  /** The answers checks scripted for the deliveries of their own runs. */
  private readonly byRun = new Map<string, Responder>();
  /** Checks starting a run they will answer their own way, whose id is not known yet. */
  private claiming = 0;
  private readonly waiters = new Set<() => void>();
  private readonly claimWaiters = new Set<() => void>();

  constructor(token: string, url: string, trapUrl: string, respond?: Responder) {
    this.token = token;
    this.url = url;
    this.trapUrl = trapUrl;
    this.respond = respond;
  }

  /** Resolves true once `until(deliveries)` holds, false after `timeoutMs`. */
  waitFor(until: (deliveries: readonly ReceivedDelivery[]) => boolean, timeoutMs: number): Promise<boolean> {
    if (until(this.deliveries)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const check = () => {
        if (!until(this.deliveries)) return;
        finish(true);
      };
      const finish = (result: boolean) => {
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(result);
      };
      const timer = setTimeout(() => finish(false), timeoutMs);
      this.waiters.add(check);
    });
  }

  /**
   * Starts a run with `start` and answers that run's deliveries with `respond`. Until `start` has
   * given the run's id, a delivery of a run nobody claimed waits (CLAIM_HOLD_MS at most), so the
   * run's first deliveries get its answer even when they arrive before its id.
   */
  async answering(respond: Responder, start: () => Promise<string>): Promise<string> {
    this.claiming += 1;
    try {
      const runId = await start();
      if (this.byRun.size >= MAX_RUNS_FOLLOWED) this.byRun.delete(this.byRun.keys().next().value!);
      this.byRun.set(runId, respond);
      return runId;
    } finally {
      this.claiming -= 1;
      for (const waiter of [...this.claimWaiters]) waiter();
    }
  }

  /** Deliveries not kept that may belong to the run: its own and those naming none; every one without a run. */
  droppedOf(runId?: string): number {
    if (runId === undefined) return this.dropped;
    return (this.droppedByRun.get(runId) ?? 0) + (this.droppedByRun.get('') ?? 0);
  }

  /** @internal the answer the check scripted for this delivery: the endpoint's, else its run's (once claimed). */
  async responderFor(delivery: ReceivedDelivery): Promise<Responder | undefined> {
    if (this.respond) return this.respond;
    const runId = runIdOf(delivery);
    if (runId === undefined) return undefined;
    if (!this.byRun.has(runId) && this.claiming > 0) await this.claimed(runId);
    return this.byRun.get(runId);
  }

  private claimed(runId: string): Promise<void> {
    return new Promise((resolve) => {
      const check = () => {
        if (this.byRun.has(runId) || this.claiming === 0) finish();
      };
      const finish = () => {
        clearTimeout(timer);
        this.claimWaiters.delete(check);
        resolve();
      };
      // A held answer never keeps the process alive after the run.
      const timer = setTimeout(finish, CLAIM_HOLD_MS).unref();
      this.claimWaiters.add(check);
    });
  }

  /** @internal called by the receiver for a delivery it answered without keeping. */
  drop(delivery: ReceivedDelivery): void {
    this.dropped += 1;
    const run = runIdOf(delivery);
    const key = run !== undefined && (this.droppedByRun.has(run) || this.droppedByRun.size < MAX_RUNS_FOLLOWED) ? run : '';
    this.droppedByRun.set(key, (this.droppedByRun.get(key) ?? 0) + 1);
  }

  /** @internal called by the receiver after each delivery. */
  notify(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}

function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        resolve(undefined);
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function flatten(raw: IncomingMessage['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

function parseJson(buffer: Buffer): unknown {
  try {
    return JSON.parse(buffer.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

function originOf(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** How checks reach the run's receiver through their context. */
export const WEBHOOK_RECEIVER = serviceKey<WebhookReceiver>('webhook-receiver');

export class WebhookReceiver {
  private readonly endpoints = new Map<string, ReceiverEndpoint>();
  private readonly servers: Server[];
  /** Body bytes of the deliveries kept, across endpoints (MAX_KEPT_DELIVERY_BYTES). */
  private keptBytes = 0;
  /** The origin the receiver listens on (what a fake must be allowed to call). */
  readonly origin: string;
  readonly publicUrl: string;
  private readonly trapBase: string;
  /**
   * The public URL's path (`/in` of `https://hooks.example.net/in`), '' for none. A forwarder may keep
   * it (`/in/hooks/<token>` arrives) or strip it (`/hooks/<token>`): the receiver takes both, and no
   * other prefix.
   */
  private readonly prefix: string;
  private readonly onDelivery: ((delivery: AnsweredDelivery) => void) | undefined;

  private constructor(servers: Server[], origin: string, publicUrl: string, trapBase: string, onDelivery?: (delivery: AnsweredDelivery) => void) {
    this.servers = servers;
    this.onDelivery = onDelivery;
    this.origin = origin;
    this.publicUrl = publicUrl.replace(/\/+$/, '');
    this.trapBase = trapBase.replace(/\/+$/, '');
    this.prefix = new URL(this.publicUrl).pathname.replace(/\/+$/, '');
  }

  /** A request path with the public URL's path taken off its front, when it starts with it. */
  private unprefixed(path: string): string {
    return this.prefix !== '' && path.startsWith(`${this.prefix}/`) ? path.slice(this.prefix.length) : path;
  }

  static async start(options: ReceiverOptions): Promise<WebhookReceiver> {
    const servers: Server[] = [];
    let receiver: WebhookReceiver | undefined;
    const handler = (trap: boolean) => (req: IncomingMessage, res: ServerResponse) => {
      receiver!.handle(req, res, trap).catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
        else res.destroy();
      });
    };
    const main = createServer(handler(false));
    servers.push(main);
    const port = await listen(main, options.host, options.port);
    const origin = originOf(options.host, port);
    const publicUrl = options.publicUrl ?? origin;
    let trapBase: string;
    if (options.loopbackTrap) {
      const trap = createServer(handler(true));
      servers.push(trap);
      trapBase = `${originOf(options.host, await listen(trap, options.host, 0))}/trap`;
    } else {
      // Downgrading the public URL to plain http is an unsafe target that still reaches this receiver.
      const url = new URL(publicUrl);
      url.protocol = 'http:';
      trapBase = `${url.toString().replace(/\/+$/, '')}/trap`;
    }
    for (const s of servers) s.keepAliveTimeout = 2_000;
    receiver = new WebhookReceiver(servers, origin, publicUrl, trapBase, options.onDelivery);
    return receiver;
  }

  /** A fresh endpoint path: one check's, or one several checks share (each answering its own runs: `answering`). */
  endpoint(respond?: Responder): ReceiverEndpoint {
    const token = randomBytes(9).toString('base64url');
    const endpoint = new ReceiverEndpoint(token, `${this.publicUrl}/hooks/${token}`, `${this.trapBase}/${token}`, respond);
    this.endpoints.set(token, endpoint);
    return endpoint;
  }

  private async handle(req: IncomingMessage, res: ServerResponse, onTrapListener: boolean): Promise<void> {
    const path = this.unprefixed((req.url ?? '/').split('?')[0]!);
    const match = /^\/(hooks|trap)\/([A-Za-z0-9_-]+)$/.exec(path);
    const endpoint = match ? this.endpoints.get(match[2]!) : undefined;
    if (!match || !endpoint || req.method !== 'POST' || (onTrapListener && match[1] !== 'trap')) {
      res.writeHead(404).end();
      return;
    }
    const raw = await readBody(req);
    if (raw === undefined) {
      res.writeHead(413).end();
      return;
    }
    const headers = flatten(req.headers);
    const eventId = headers['service-webhook-id'];
    const list = match[1] === 'trap' ? endpoint.trapHits : endpoint.deliveries;
    const delivery: ReceivedDelivery = {
      receivedAt: Date.now(),
      headers,
      rawBody: raw,
      body: parseJson(raw),
      eventId,
      attempt: 1 + list.filter((d) => d.eventId !== undefined && d.eventId === eventId).length,
      answered: 0,
    };
    if (endpoint.secret !== undefined && match[1] === 'hooks') {
      delivery.verification = await verifyWebhook({ rawBody: raw, headers, secret: endpoint.secret, now: delivery.receivedAt, store: endpoint.store });
    }
    const scripted = match[1] === 'hooks' ? (await endpoint.responderFor(delivery))?.(delivery) : { status: 204 };
    const status = scripted?.status ?? (delivery.verification ? delivery.verification.status : 204);
    // Like a careful service, only an event answered 2xx counts as persisted: a scripted failure gives the claim back.
    if ((status < 200 || status > 299) && delivery.verification?.ok && !delivery.verification.duplicate && eventId !== undefined) endpoint.store.release(eventId);
    delivery.answered = status;
    if (list.length < MAX_DELIVERIES_PER_ENDPOINT && this.keptBytes + raw.length <= MAX_KEPT_DELIVERY_BYTES) {
      list.push(delivery);
      this.keptBytes += raw.length;
    } else endpoint.drop(delivery);
    res.writeHead(status, scripted?.headers ?? {}).end();
    // A trap hit is a request the sender should never have made, not a delivery to judge.
    if (match[1] === 'hooks') this.onDelivery?.({ receivedAt: delivery.receivedAt, method: req.method, url: endpoint.url, headers, rawBody: raw, status, responseHeaders: scripted?.headers ?? {} });
    endpoint.notify();
  }

  close(): Promise<void> {
    this.endpoints.clear();
    return Promise.all(
      this.servers.map(
        (s) =>
          new Promise<void>((resolve) => {
            s.closeAllConnections();
            s.close(() => resolve());
          }),
      ),
    ).then(() => undefined);
  }
}
