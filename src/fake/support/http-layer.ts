/** A deployment's HTTP layer refusing a malformed message before any endpoint, as the surfaces' variants take it. */
import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * A message with more than one Host line (RFC 9112 §3.2: "A server MUST respond with a 400") refused as
 * Go's net/http writes it: a text/plain sentence and the connection closed, with `headers` beside
 * (what the front still adds). Returns true when it answered; a message with one Host line is left alone.
 */
export function refuseManyHosts(res: ServerResponse, headers: Record<string, string> = {}, style: 'go' | 'fastify' = 'go'): boolean {
  const raw = res.req?.rawHeaders ?? [];
  if (raw.filter((name, i) => i % 2 === 0 && name.toLowerCase() === 'host').length <= 1) return false;
  const [type, text] = style === 'go' ? ['text/plain; charset=utf-8', '400 Bad Request: too many Host headers'] : ['application/json', FASTIFY_CLIENT_ERROR];
  res.writeHead(400, { 'content-type': type, connection: 'close', ...headers, 'content-length': Buffer.byteLength(text) });
  res.end(text);
  return true;
}

/** What Fastify's default client-error handler writes for a message its parser refuses (checked on fastify 5.12 with a raw socket). */
const FASTIFY_CLIENT_ERROR = '{"error":"Bad Request","message":"Client Error","statusCode":400}';

/**
 * A message Node's parser refuses (whitespace before a colon, a bad Content-Length, ...) answered as
 * Fastify's default client-error handler answers it: 400 `application/json`, not a problem document,
 * and the connection closed. Without it Node writes a bodiless 400.
 */
export function answerClientErrorsAsFastify(server: Server): void {
  server.on('clientError', (_error: Error, socket: Socket) => {
    if (socket.writable) socket.end(`HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(FASTIFY_CLIENT_ERROR)}\r\nConnection: close\r\n\r\n${FASTIFY_CLIENT_ERROR}`);
    else socket.destroy();
  });
}
