/**
 * A recorded exchange is the one journal's exchange (src/rule/journal.ts): the HAR reader and the
 * proxy fill the same type the probe client does.
 */
import type { Exchange } from '../rule/index.ts';

export type TrafficExchange = Exchange;
export { mediaType, pathOnly } from '../rule/index.ts';

/** Headers as one lower-cased record; repeated names joined with ", " like the probe client does. */
export function headerRecord(pairs: Iterable<readonly [string, string]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of pairs) addHeader(out, name, value);
  return out;
}

/** One header into a `headerRecord`: lower-cased, joined with ", " to the same name's earlier values. */
export function addHeader(out: Record<string, string>, name: string, value: string): void {
  appendHeader(out, name.toLowerCase(), value);
}

/**
 * Node and undici header objects (values may be arrays or buffers) as one record, as `headerRecord`
 * makes it. In one pass, without a pair per value: the proxy records every exchange's headers with it.
 */
export function flatHeaders(raw: Record<string, unknown> | null | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!raw) return out;
  for (const name of Object.keys(raw)) {
    const value = raw[name];
    if (value === undefined || value === null) continue;
    const key = name.toLowerCase();
    if (Array.isArray(value)) for (const v of value) appendHeader(out, key, v);
    else appendHeader(out, key, value);
  }
  return out;
}

/** One header under a name already lower-cased, joined with ", " to its earlier values. */
export function appendHeader(out: Record<string, string>, key: string, value: unknown): void {
  const text = typeof value === 'string' ? value : Buffer.isBuffer(value) ? value.toString('latin1') : String(value);
  out[key] = out[key] === undefined ? text : `${out[key]}, ${text}`;
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

  /** Bytes kept so far. */
  get kept(): number {
    return this.size;
  }

  get bytes(): Buffer {
    // A lone chunk is already this prefix's own copy (most bodies arrive in one).
    if (this.chunks.length === 1) return this.chunks[0]!;
    return Buffer.concat(this.chunks, this.size);
  }
}

/**
 * The request target a recorded URL holds, as sent: its path and query, without the fragment. WHATWG's
 * URL would remove dot segments (`/v8/./missions` becomes `/v8/missions`) and re-encode, but a
 * deployment may route the target as written (RFC 3986 leaves dot-segment removal to reference
 * resolution): the catalogue's path forms are judged by the path they were sent to. `url` has been
 * parsed already; a URL with no path is `/`.
 */
export function targetOf(url: string): string {
  const authority = /^[a-z][a-z\d+.-]*:\/\/[^/?#]*/i.exec(url);
  const rest = authority ? url.slice(authority[0].length) : url;
  const fragment = rest.indexOf('#');
  const target = fragment === -1 ? rest : rest.slice(0, fragment);
  return target.startsWith('/') ? target : `/${target}`;
}
