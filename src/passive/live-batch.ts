/**
 * How completed exchanges cross from the proxy's forwarding thread to its judging thread: a batch
 * is one JSON string (each exchange an array of its fields) and one buffer holding every body,
 * moved, not copied. A structured clone of the exchanges' objects (and a transfer per body) cost
 * the forwarding thread more than forwarding them did; JSON and one copy of the bodies into a
 * buffer of their own cost a fraction of it.
 */
import type { RecordedBytes } from './har.ts';

/**
 * One exchange: index, start (ms since the epoch), duration, method, url, request headers,
 * request body length (-1: none), request cut, status, response headers, response body length
 * (-1: none), response cut, response size, error (null where the record has none), and how its
 * reader stopped a stream (its `readerEnd` and `closeGraceMs`; null where it did not).
 */
type ReaderStop = [RecordedBytes['readerEnd'] | null, number | null];
type Sent = [number, number, number | null, string, string, Record<string, string>, number, boolean, number | null, Record<string, string>, number, boolean, number | null, string | null, ReaderStop | null];

export interface PackedBatch {
  batch: string;
  bodies: ArrayBuffer;
}

/** The exchanges as one string and one buffer (transfer `bodies`: the recorder keeps its own). */
export function packBatch(items: ReadonlyArray<{ rec: RecordedBytes; index: number }>): PackedBatch {
  let size = 0;
  for (const { rec } of items) size += (rec.requestBody?.length ?? 0) + (rec.responseBody?.length ?? 0);
  // Not from Node's pool: the buffer must be one of its own to be moved.
  const bodies = new Uint8Array(size);
  let at = 0;
  const put = (body: Buffer | undefined): number => {
    if (body === undefined) return -1;
    bodies.set(body, at);
    at += body.length;
    return body.length;
  };
  const sent = items.map(({ rec, index }): Sent => [
    index,
    rec.startedAt.getTime(),
    rec.durationMs ?? null,
    rec.method,
    rec.url,
    rec.requestHeaders,
    put(rec.requestBody),
    rec.requestTruncated === true,
    rec.status ?? null,
    rec.responseHeaders,
    put(rec.responseBody),
    rec.responseTruncated === true,
    rec.responseSize ?? null,
    rec.error ?? null,
    rec.readerStopped ? [rec.readerEnd ?? null, rec.closeGraceMs ?? null] : null,
  ]);
  return { batch: JSON.stringify(sent), bodies: bodies.buffer };
}

/** The exchanges of a packed batch, each body a view of the one buffer they came in. */
export function unpackBatch({ batch, bodies }: PackedBatch): Array<{ rec: RecordedBytes; index: number }> {
  let at = 0;
  const body = (length: number): Buffer | undefined => {
    if (length < 0) return undefined;
    const view = Buffer.from(bodies, at, length);
    at += length;
    return view;
  };
  return (JSON.parse(batch) as Sent[]).map(([index, started, durationMs, method, url, requestHeaders, requestLength, requestTruncated, status, responseHeaders, responseLength, responseTruncated, responseSize, error, stop]) => {
    const rec: RecordedBytes = { startedAt: new Date(started), method, url, requestHeaders, responseHeaders };
    if (durationMs !== null) rec.durationMs = durationMs;
    const requestBody = body(requestLength);
    if (requestBody) rec.requestBody = requestBody;
    if (requestTruncated) rec.requestTruncated = true;
    if (status !== null) rec.status = status;
    const responseBody = body(responseLength);
    if (responseBody) rec.responseBody = responseBody;
    if (responseTruncated) rec.responseTruncated = true;
    if (responseSize !== null) rec.responseSize = responseSize;
    if (error !== null) rec.error = error;
    if (stop !== null) {
      rec.readerStopped = true;
      if (stop[0] !== null) rec.readerEnd = stop[0];
      if (stop[1] !== null) rec.closeGraceMs = stop[1];
    }
    return { rec, index };
  });
}
