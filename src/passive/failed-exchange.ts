/**
 * An exchange that failed, as a recording shows it: the proxy's record (src/passive/proxy.ts) and a
 * HAR entry with an error (src/passive/har.ts, which reads the proxy's own HAR too) are decided here
 * once, so `apicert proxy` and `judge-traffic` on its HAR judge the same exchange alike.
 */
import type { StreamEnd } from '../rule/index.ts';
import type { TrafficExchange } from './exchange.ts';

/**
 * `failure` ended the exchange. When an answer had begun (a status was recorded), whatever broke it
 * off (the client left, or the proxy stopped, before an answer that is no event stream ended; the
 * upstream closed the connection mid-body or broke its framing, or sent fewer bytes than its
 * Content-Length, which RFC 9112 6.3 calls incomplete), what was kept of it is a prefix at most, and
 * it did not end as a stream ends: untestable for whatever needs the whole body or the stream's end
 * ("What a recording lacks is untestable", docs/recordings.md). An event stream its client let go
 * of, or the proxy's stop cut, is no failure: its reader stopped reading it (`stoppedByReader`).
 * Call it once the body was read into `ex`.
 */
export function failedExchange(ex: TrafficExchange, failure: string): void {
  ex.error = failure;
  if (ex.status === undefined) return;
  ex.streamEnd = 'aborted';
  if (ex.responseBody !== undefined) ex.responseBodyTruncated = true;
}

/**
 * An event stream its reader stopped reading after its answer began, as apicert's own reader records
 * it (`StreamEnd`): `client-disconnect` (a client let go), `timeout` (apicert's own stop of the
 * reading: the proxy's), or `grace-expired` when that came more than the close grace after its
 * terminal event (`closeGraceMs`). What was read is whole as far as it came; the server did not end
 * the stream (`readerStoppedStream`). The HAR reader reads the same from `_apicertStreamEnd`.
 */
export function stoppedByReader(ex: TrafficExchange, end: Exclude<StreamEnd, 'server'> | undefined, closeGraceMs: number | undefined): void {
  if (closeGraceMs !== undefined) {
    ex.streamEnd = 'grace-expired';
    ex.closeGraceMs = closeGraceMs;
    return;
  }
  ex.streamEnd = end === undefined || end === 'grace-expired' ? 'client-disconnect' : end;
}
