/** What operators share: the base request changed in one place, as undici or raw-socket requests. */
import type { ProbeRequest, RawRequest } from '../../rule/index.ts';
import type { Sentence } from '../../contract/sentence.ts';
import type { Built, HttpTarget, Sent, Stated } from './types.ts';
import { newKey } from '../../util/ids.ts';

/**
 * A MiB of `a`, made once and flat: `'a'.repeat` builds a tree of joins that every case holding it
 * walked to flatten, and then again every judging that compared or parsed such a body.
 */
export const MIB_OF_A = Buffer.alloc(1 << 20, 'a').toString('latin1');

export function bodyOf(req: ProbeRequest): string | undefined {
  return req.json !== undefined ? JSON.stringify(req.json) : req.rawBody;
}

export function hasBody(t: HttpTarget): boolean {
  return bodyOf(t.base) !== undefined;
}

/**
 * The base's headers with an idempotency key of the case's own: the cases of one operator share a
 * base, and under one key every case after the first would be a replay or a 409 ("The same key
 * with a different body gives `409`"), never reaching the handler with its own body.
 */
function headersOf(t: HttpTarget): Record<string, string> {
  const headers = { ...t.base.headers };
  if (headers['idempotency-key'] !== undefined) headers['idempotency-key'] = newKey();
  return headers;
}

/** The base as an undici request with some fields changed. */
export function http(t: HttpTarget, change: (r: ProbeRequest) => void): Sent {
  const request: ProbeRequest = { ...t.base, headers: headersOf(t) };
  change(request);
  return { kind: 'http', request };
}

/** The base as header lines for a raw request (Content-Type added when there is a body). */
export function baseLines(t: HttpTarget): Array<[string, string]> {
  const lines: Array<[string, string]> = Object.entries(headersOf(t));
  if (hasBody(t) && !lines.some(([n]) => n.toLowerCase() === 'content-type')) lines.push(['Content-Type', 'application/json']);
  return lines;
}

/** The base written on a raw socket, with some fields changed. */
export type EditableRaw = Omit<RawRequest, 'headers'> & { headers: Array<[string, string]> };

export function raw(t: HttpTarget, change: (r: EditableRaw) => void = () => undefined): Sent {
  const body = bodyOf(t.base);
  const request: EditableRaw = { method: t.base.method, target: t.base.path, headers: baseLines(t), credential: t.base.credential, ...(body !== undefined ? { body } : {}) };
  change(request);
  return { kind: 'raw', request };
}

/** A case whose expectation is the base's: the operator changed only how the same request is written. */
export function same(label: string, sent: Sent, because: Sentence): Built {
  return { label, sent, same: because };
}

export function open(label: string, sent: Sent, why: string, permits?: readonly number[]): Built {
  return permits ? { label, sent, why, permits } : { label, sent, why };
}

export function stated(label: string, sent: Sent, kind: Stated['kind'], because: Sentence, status?: number): Built {
  return { label, sent, stated: status === undefined ? { kind, because } : { kind, because, status } };
}

/** The path with a query string appended (or extended). */
export function withQuery(path: string, query: string): string {
  return path.includes('?') ? `${path}&${query}` : `${path}?${query}`;
}

export const isGet = (t: HttpTarget): boolean => t.endpoint.method === 'GET';
export const always = (): boolean => true;
