/**
 * `apicert proxy`: a reverse proxy on loopback that forwards every request and answer unchanged
 * and keeps a bounded record of each exchange for the passive judge.
 *
 * The forwarding is src/passive/forward.ts (HTTP/1.1 messages read with Node's own llhttp and
 * passed on piece by piece, with backpressure both ways) over the connections of
 * src/passive/upstream.ts (TCP, TLS with the profile's CA and client certificate, or a forward
 * proxy's tunnel). This file keeps the record: the newest `maxExchanges` exchanges, at most
 * `bodyLimit` bytes of each body and `maxKeptBytes` of all bodies at once (those in flight
 * included), and hands each exchange to live judging as it completes.
 *
 * Unchanged means: method, path, query, headers and bodies pass as they are, except the
 * hop-by-hop headers (RFC 9110, 7.6.1), which belong to each connection, and Host, which names the
 * upstream. An event stream reaches the client chunk by chunk as the upstream sends it.
 */
import type { AddressInfo } from 'node:net';
import { upstreamRoute } from '../probe/dispatcher.ts';
import type { Network } from '../profile/network.ts';
import { contentText, unreadableBody } from './content.ts';
import { targetOf, type TrafficExchange } from './exchange.ts';
import { failedExchange, stoppedByReader } from './failed-exchange.ts';
import { listen, type Recorder } from './forward.ts';
import type { RecordedBytes } from './har.ts';
import { hiddenHar, writeHar, type SecretHiding } from './recorder.ts';
import { UpstreamPool } from './upstream.ts';
import { streamWatching } from './stream-watch.ts';
import { HARNESS_VERSION } from '../runner/certify.ts';
import type { Profile } from '../profile/schema.ts';

export interface ProxyOptions {
  upstream: string;
  port?: number;
  /** Stop after this long; otherwise when `runProxy`'s `stop` aborts. */
  durationMs?: number;
  bodyLimit: number;
  maxExchanges: number;
  /** Bytes of bodies kept at once across every exchange (KEPT_BYTES_LIMIT by default). */
  maxKeptBytes?: number;
  /** Written after the record is judged; a failure to write it goes to `onHarFailed` (thrown without it), so it never costs the judgement. */
  harOut?: string;
  onHarFailed?: (error: unknown) => void;
  /** How `harOut` hides the traffic's secrets, from the exchanges recorded; undefined keeps them (the file is then readable by its owner only). */
  harHiding?: (exchanges: readonly TrafficExchange[]) => SecretHiding | undefined;
  onListening?: (url: string) => void;
  /** Called once the proxy stopped listening, before the record is judged (live judging ends here). */
  onStopped?: () => void | Promise<void>;
  /** Called as each exchange completes (its answer ended, failed, or the client left), with its place in arrival order, for live judging. */
  onExchange?: (rec: RecordedBytes, index: number) => void;
  /** The profile's network settings for the upstream (CA, client certificate, proxy, headers per surface, which the record leaves out). */
  network?: Network;
  /** The profile: its safety.streamCloseGraceMs (and /v1 terminal events) say when a stream was held open past its terminal event. */
  profile?: Profile;
}

/** Bytes of bodies the proxy keeps at once, whatever the two limits above would allow. */
export const KEPT_BYTES_LIMIT = 128 * 1024 * 1024;

/** An exchange in the ring: its place in arrival order, its bodies' bytes kept so far, whether it ended, and whether it was dropped. */
interface Kept {
  rec: RecordedBytes;
  index: number;
  bytes: number;
  done: boolean;
  gone: boolean;
}

/**
 * The exchanges kept: the newest `limit`, in the order their requests arrived, and at most
 * `byteLimit` bytes of bodies at once, those of exchanges still in flight included. Bytes are kept
 * as they arrive, within the budget: ended exchanges are dropped for them, the one that ended
 * first first; when only exchanges in flight hold the budget, a body is kept as far as it reached
 * (a prefix, like one cut at `--body-limit`). An exchange dropped while in flight keeps its bytes
 * counted until it ends, since its flight still holds them.
 */
class Ring {
  private readonly items: Kept[] = [];
  private head = 0;
  /** Ended exchanges in the order they ended: dropping them is what frees bytes. */
  private readonly ended: Kept[] = [];
  private endedHead = 0;
  /** Exchanges in the ring (not dropped). */
  private size = 0;
  private bytes = 0;
  dropped = 0;
  /** Exchanges that arrived, kept or not: the next one's index. */
  private arrivals = 0;
  private readonly limit: number;
  private readonly byteLimit: number;
  constructor(limit: number, byteLimit: number) {
    this.limit = limit;
    this.byteLimit = byteLimit;
  }
  push(rec: RecordedBytes): Kept {
    const kept: Kept = { rec, index: this.arrivals, bytes: 0, done: false, gone: false };
    this.arrivals += 1;
    this.items.push(kept);
    this.size += 1;
    while (this.size > this.limit) this.drop(this.oldest()!);
    this.compact();
    return kept;
  }
  /** How many of `n` more body bytes `kept` may keep now. */
  keep(kept: Kept, n: number): number {
    while (this.bytes + n > this.byteLimit) {
      const first = this.firstEnded();
      if (first === undefined) break;
      this.drop(first);
    }
    const granted = Math.max(0, Math.min(n, this.byteLimit - this.bytes));
    kept.bytes += granted;
    this.bytes += granted;
    return granted;
  }
  /** An exchange ended: dropped in flight, its bytes go now; kept, it may be dropped for bytes from now on. */
  account(kept: Kept): void {
    if (kept.gone) {
      this.bytes -= kept.bytes;
      kept.bytes = 0;
      return;
    }
    kept.done = true;
    this.ended.push(kept);
  }
  private drop(kept: Kept): void {
    kept.gone = true;
    this.size -= 1;
    this.dropped += 1;
    if (kept.done) {
      this.bytes -= kept.bytes;
      kept.bytes = 0;
    }
  }
  private oldest(): Kept | undefined {
    while (this.head < this.items.length && this.items[this.head]!.gone) this.head += 1;
    return this.items[this.head];
  }
  private firstEnded(): Kept | undefined {
    while (this.endedHead < this.ended.length && this.ended[this.endedHead]!.gone) this.endedHead += 1;
    return this.ended[this.endedHead];
  }
  /** Dropped entries are let go now and then, so dropping the oldest stays cheap (no shift per exchange). */
  private compact(): void {
    this.oldest();
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items.splice(0, this.head);
      this.head = 0;
    }
    this.firstEnded();
    if (this.endedHead > 1024 && this.endedHead * 2 > this.ended.length) {
      this.ended.splice(0, this.endedHead);
      this.endedHead = 0;
    }
  }
  /** The exchanges kept, each with its place in arrival order. */
  get all(): readonly Kept[] {
    const out: Kept[] = [];
    for (let i = this.head; i < this.items.length; i += 1) if (!this.items[i]!.gone) out.push(this.items[i]!);
    return out;
  }
}

export function exchangeOfBytes(rec: RecordedBytes, index: number, bodyLimit: number): TrafficExchange {
  const ex: TrafficExchange = { index, startedAt: rec.startedAt.toISOString(), method: rec.method, url: rec.url, path: targetOf(rec.url), requestHeaders: rec.requestHeaders, responseHeaders: rec.responseHeaders };
  if (rec.durationMs !== undefined) ex.durationMs = rec.durationMs;
  if (rec.requestBody !== undefined && rec.requestBody.length > 0) {
    // A request's byte order mark is part of what was sent (a server may refuse it), unlike an answer's, which a client reads past.
    const sent = contentText(rec.requestBody, rec.requestHeaders['content-encoding'], bodyLimit, true);
    if (sent.undecodable !== undefined) ex.requestBodyMissing = unreadableBody("request's", sent.undecodable);
    else {
      ex.requestBody = sent.text;
      if (sent.truncated || rec.requestTruncated) ex.requestBodyTruncated = true;
    }
  }
  if (rec.status !== undefined) {
    ex.status = rec.status;
    const body = contentText(rec.responseBody ?? Buffer.alloc(0), rec.responseHeaders['content-encoding'], bodyLimit);
    if (body.undecodable !== undefined) ex.responseBodyMissing = unreadableBody("answer's", body.undecodable);
    else {
      ex.responseBody = body.text;
      if (body.truncated || rec.responseTruncated) ex.responseBodyTruncated = true;
    }
  }
  if (rec.error !== undefined) failedExchange(ex, rec.error);
  else if (rec.readerStopped) stoppedByReader(ex, rec.readerEnd, rec.closeGraceMs);
  return ex;
}

export interface RunningProxy {
  url: string;
  /** What was recorded so far (the newest `maxExchanges`), as the judge reads it, each numbered by its place in arrival order. */
  exchanges(): TrafficExchange[];
  recorded(): readonly RecordedBytes[];
  dropped(): number;
  close(): Promise<void>;
}

/** Upstream connections idle this long are closed (undici's pool did the same before). */
const UPSTREAM_IDLE_MS = 4_000;

export async function startProxy(options: Omit<ProxyOptions, 'durationMs' | 'harOut' | 'onHarFailed' | 'harHiding' | 'onListening' | 'onStopped'>): Promise<RunningProxy> {
  const upstream = new URL(options.upstream);
  const pool = new UpstreamPool(upstream, await upstreamRoute(options.network, upstream), UPSTREAM_IDLE_MS);
  const ring = new Ring(options.maxExchanges, options.maxKeptBytes ?? KEPT_BYTES_LIMIT);
  const onExchange = options.onExchange;
  const recorder: Recorder<Kept> = {
    bodyLimit: options.bodyLimit,
    begin: (rec) => ring.push(rec),
    keep: (kept, bytes) => ring.keep(kept, bytes),
    end: (kept) => {
      ring.account(kept);
      onExchange?.(kept.rec, kept.index);
    },
  };
  const listening = await listen({ upstream, pool, recorder, network: options.network, streams: streamWatching(options.profile) }, options.port ?? 0);
  const { port } = listening.server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    // Numbered by arrival, as live judging numbers them: once the record dropped some, the report still names an exchange as a live finding did.
    exchanges: () => ring.all.map((kept) => exchangeOfBytes(kept.rec, kept.index, options.bodyLimit)),
    recorded: () => ring.all.map((kept) => kept.rec),
    dropped: () => ring.dropped,
    close: () => listening.close(500),
  };
}

/**
 * Runs the proxy until `stop` aborts (the caller's SIGINT or SIGTERM handler, held until its report is
 * written) or the duration; then judges what it recorded, told how many exchanges the record dropped,
 * and writes `harOut` after (`judge` may write the report first: a HAR that cannot be written costs
 * the HAR only).
 */
export async function runProxy<T>(options: ProxyOptions & { stop: AbortSignal; judge: (exchanges: TrafficExchange[], startedAt: Date, dropped: number) => Promise<T> }): Promise<T> {
  const startedAt = new Date();
  const proxy = await startProxy(options);
  options.onListening?.(proxy.url);
  await new Promise<void>((resolve) => {
    const signal = options.stop;
    const stop = () => {
      signal.removeEventListener('abort', stop);
      clearTimeout(timer);
      resolve();
    };
    const timer = options.durationMs !== undefined ? setTimeout(stop, options.durationMs) : undefined;
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
  });
  await proxy.close();
  await options.onStopped?.();
  const exchanges = proxy.exchanges();
  let judged: T;
  try {
    judged = await options.judge(exchanges, startedAt, proxy.dropped());
  } catch (error) {
    // The report failed (a folder gone, a full disk): the recording may still be written, and the report's error is the one said.
    if (options.harOut) await recordingOf(proxy, exchanges, options).catch(() => undefined);
    throw error;
  }
  if (options.harOut) await recordingOf(proxy, exchanges, options);
  return judged;
}

/** Writes `--har-out`: its failure goes to `onHarFailed` when given, so the report judged before it stands. */
async function recordingOf(proxy: RunningProxy, exchanges: readonly TrafficExchange[], options: ProxyOptions): Promise<void> {
  try {
    const hiding = options.harHiding?.(exchanges);
    await writeHar(options.harOut!, hiddenHar(proxy.recorded(), HARNESS_VERSION, hiding, options.maxKeptBytes ?? KEPT_BYTES_LIMIT));
  } catch (error) {
    if (!options.onHarFailed) throw error;
    options.onHarFailed(error);
  }
}
