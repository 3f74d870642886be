/** A deployment's HTTP layer refusing a malformed message before any endpoint, as the surfaces' variants take it. */
import type { ServerResponse } from 'node:http';

/**
 * A message with more than one Host line (RFC 9112 §3.2: "A server MUST respond with a 400") refused as
 * Go's net/http writes it: a text/plain sentence and the connection closed, with `headers` beside
 * (what the front still adds). Returns true when it answered; a message with one Host line is left alone.
 */
export function refuseManyHosts(res: ServerResponse, headers: Record<string, string> = {}): boolean {
  const raw = res.req?.rawHeaders ?? [];
  if (raw.filter((name, i) => i % 2 === 0 && name.toLowerCase() === 'host').length <= 1) return false;
  const text = '400 Bad Request: too many Host headers';
  res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8', connection: 'close', ...headers, 'content-length': Buffer.byteLength(text) });
  res.end(text);
  return true;
}
