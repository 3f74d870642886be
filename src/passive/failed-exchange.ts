/**
 * An exchange that failed, as a recording shows it: the proxy's record (src/passive/proxy.ts) and a
 * HAR entry with an error (src/passive/har.ts, which reads the proxy's own HAR too) are decided here
 * once, so `apicert proxy` and `judge-traffic` on its HAR judge the same exchange alike.
 */
import type { TrafficExchange } from './exchange.ts';

/**
 * `failure` ended the exchange. When an answer had begun (a status was recorded), whatever broke it
 * off (the client left, the proxy stopped, the upstream closed the connection mid-body or broke its
 * framing, or sent fewer bytes than its Content-Length, which RFC 9112 6.3 calls incomplete), what
 * was kept of it is a prefix at most, and it did not end as a stream ends: untestable for whatever
 * needs the whole body or the stream's end ("What a recording lacks is untestable", docs/recordings.md).
 * Call it once the body was read into `ex`.
 */
export function failedExchange(ex: TrafficExchange, failure: string): void {
  ex.error = failure;
  if (ex.status === undefined) return;
  ex.streamEnd = 'aborted';
  if (ex.responseBody !== undefined) ex.responseBodyTruncated = true;
}
