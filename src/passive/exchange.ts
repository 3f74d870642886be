/**
 * One recorded exchange as the passive judge sees it: what any recorder captures (a browser's HAR,
 * mitmproxy, apicert's proxy, apicert's own certify run), and nothing apicert alone would know.
 * Bodies are prefixes: a recorder may keep only the first bytes, or none.
 */
export interface TrafficExchange {
  /** Position in the recording, from 0. */
  index: number;
  /** When the request started (ISO 8601), when the recorder said. */
  startedAt?: string;
  /** Request to end of response; absent when the recorder kept no timings. */
  durationMs?: number;
  method: string;
  /** The full URL as recorded. */
  url: string;
  /** Path with query, below the origin. */
  path: string;
  /** Lower-cased names; repeated headers joined with ", ". */
  requestHeaders: Record<string, string>;
  /** The request body as text; undefined when the recording has none. */
  requestBody?: string;
  requestBodyTruncated?: boolean;
  /** Absent when the exchange got no answer (the recorder saw an error). */
  status?: number;
  responseHeaders: Record<string, string>;
  /** The decoded response body (a stream is its whole text); undefined when the recording holds no content. */
  responseBody?: string;
  /** The recorder kept only a prefix of the body (or said the content was cut). */
  responseBodyTruncated?: boolean;
  /** Transport trouble the recorder noted instead of (or after) an answer. */
  error?: string;
  /** The client walked away before the answer ended (a browser's `net::ERR_ABORTED`): what was recorded of the body is a part at most. */
  aborted?: string;
  /** What the recorder says the request was for (`fetch`, `eventsource`, `document`), when it says. */
  resourceType?: string;
  /**
   * What the recording does not hold of this exchange, each with why. A judgement that needs a part
   * listed here is untestable for that exchange (the reason says what the recorder left out), never
   * a pass on nothing or a comparison with an empty body.
   */
  lacks?: Lack[];
}

/** A part of an exchange the recorder did not keep. */
export interface Lack {
  part: 'request-body' | 'response-body' | 'stream' | 'header';
  /** For `header`: the lower-cased name. */
  header?: string;
  why: string;
}

/** What the recording lacks of `ex` that a judgement needs, or undefined when it holds it all. */
export function lackOf(ex: Pick<TrafficExchange, 'lacks'>, part: Lack['part'], header?: string): Lack | undefined {
  return ex.lacks?.find((l) => l.part === part && (header === undefined || l.header === header));
}

export function markLack(ex: TrafficExchange, lack: Lack): void {
  if (lackOf(ex, lack.part, lack.header)) return;
  (ex.lacks ??= []).push(lack);
}

/** The path without its query. */
export function pathOnly(ex: Pick<TrafficExchange, 'path'>): string {
  const q = ex.path.indexOf('?');
  return q === -1 ? ex.path : ex.path.slice(0, q);
}

export function mediaType(headers: Record<string, string>): string {
  return (headers['content-type'] ?? '').split(';', 1)[0]!.trim().toLowerCase();
}

/** Headers as one lower-cased record; repeated names joined with ", " like the probe client does. */
export function headerRecord(pairs: Iterable<readonly [string, string]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of pairs) {
    const key = name.toLowerCase();
    out[key] = out[key] === undefined ? value : `${out[key]}, ${value}`;
  }
  return out;
}

/** Node and undici header objects (values may be arrays or buffers) as one record. */
export function flatHeaders(raw: Record<string, unknown> | null | undefined): Record<string, string> {
  const pairs: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(raw ?? {})) {
    if (value === undefined || value === null) continue;
    for (const v of Array.isArray(value) ? value : [value]) pairs.push([name, Buffer.isBuffer(v) ? v.toString('latin1') : String(v)]);
  }
  return headerRecord(pairs);
}

/**
 * Keeps at most `limit` bytes of a body as it passes, for a recorder that must not grow with
 * what flows through it (a stream may run for hours).
 */
export class BodyPrefix {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  truncated = false;
  private readonly limit: number;
  constructor(limit: number) {
    this.limit = limit;
  }

  add(chunk: Uint8Array): void {
    const room = this.limit - this.size;
    if (room <= 0) {
      if (chunk.length > 0) this.truncated = true;
      return;
    }
    const part = chunk.length > room ? Buffer.from(chunk.subarray(0, room)) : Buffer.from(chunk);
    if (chunk.length > room) this.truncated = true;
    this.chunks.push(part);
    this.size += part.length;
  }

  get bytes(): Buffer {
    return Buffer.concat(this.chunks, this.size);
  }
}
