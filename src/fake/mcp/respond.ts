import type { ServerResponse } from 'node:http';
import type { RouteRequest } from '../http.ts';

/** Whether the Accept header lists `type`; `lenient` counts a missing header as accepting anything. */
export function accepts(r: RouteRequest, type: string, lenient: boolean): boolean {
  const accept = r.header('accept');
  if (accept === undefined) return lenient;
  return accept.includes(type) || accept.includes('*/*');
}

/** Writes a JSON body; /mcp has its own versioning, so no /v8 contract header. */
export function writeJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}, contentType = 'application/json'): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'content-type': contentType, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** A transport-level refusal (auth, session, unparsable body): a JSON-RPC error whose id could not be known. */
export function writeTransportError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  writeJson(res, status, { jsonrpc: '2.0', id: null, error: { code, message } }, headers);
}

export function writeEmpty(res: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...headers, 'content-length': 0 });
  res.end();
}

export function sseEvent(id: string | undefined, message: unknown): string {
  return `${id === undefined ? '' : `id: ${id}\n`}event: message\ndata: ${JSON.stringify(message)}\n\n`;
}
