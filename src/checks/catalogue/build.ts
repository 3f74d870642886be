/** What operators share: the base request changed in one place, as undici or raw-socket requests. */
import type { ProbeRequest, RawRequest } from '../../rule/index.ts';
import type { Because, CatalogueExpect, Case, HttpTarget, Sent } from './types.ts';

type Built = Omit<Case, 'operator' | 'family' | 'endpoint'>;

export function bodyOf(req: ProbeRequest): string | undefined {
  return req.json !== undefined ? JSON.stringify(req.json) : req.rawBody;
}

export function hasBody(t: HttpTarget): boolean {
  return bodyOf(t.base) !== undefined;
}

/** The base as an undici request with some fields changed. */
export function http(t: HttpTarget, change: (r: ProbeRequest) => void): Sent {
  const request: ProbeRequest = { ...t.base, headers: { ...t.base.headers } };
  change(request);
  return { kind: 'http', request };
}

/** The base as header lines for a raw request (Content-Type added when there is a body). */
export function baseLines(t: HttpTarget): Array<[string, string]> {
  const lines: Array<[string, string]> = Object.entries(t.base.headers ?? {});
  if (hasBody(t) && !lines.some(([n]) => n.toLowerCase() === 'content-type')) lines.push(['Content-Type', 'application/json']);
  return lines;
}

/** The base written on a raw socket, with some fields changed. */
export function raw(t: HttpTarget, change: (r: RawRequest & { headers: Array<[string, string]> }) => void = () => undefined): Sent {
  const body = bodyOf(t.base);
  const request: RawRequest & { headers: Array<[string, string]> } = { method: t.base.method, target: t.base.path, headers: baseLines(t), credential: t.base.credential, ...(body !== undefined ? { body } : {}) };
  change(request);
  return { kind: 'raw', request };
}

/** A case whose expectation is the base's: the operator changed only how the same request is written. */
export function same(t: HttpTarget, label: string, sent: Sent, because: Because, refusedAs?: readonly number[]): Built {
  const out: Built = { label, sent, expect: t.baseExpect, because };
  if (refusedAs && t.baseExpect === 'accept') out.refusedAs = refusedAs;
  return out;
}

export function open(label: string, sent: Sent, why: string, permits?: readonly number[]): Built {
  const out: Built = { label, sent, expect: 'any', because: { source: 'open', sentence: why } };
  if (permits) out.permits = permits;
  return out;
}

export function stated(label: string, sent: Sent, expect: CatalogueExpect, because: Because, status?: number): Built {
  const out: Built = { label, sent, expect, because };
  if (status !== undefined) out.status = status;
  return out;
}

/** The path with a query string appended (or extended). */
export function withQuery(path: string, query: string): string {
  return path.includes('?') ? `${path}&${query}` : `${path}?${query}`;
}

export const isGet = (t: HttpTarget): boolean => t.endpoint.method === 'GET';
export const always = (): boolean => true;
