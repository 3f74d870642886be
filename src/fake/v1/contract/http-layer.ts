/** The HTTP layer in front of /v1, where a deployment's front refuses a malformed message before any endpoint. */
import type { ServerResponse } from 'node:http';
import type { FakeContext } from '../../context.ts';

/**
 * Under the variant, a message with more than one Host line (RFC 9112 §3.2: "A server MUST respond with
 * a 400") is refused by the HTTP layer before any endpoint, as Go's net/http writes it: a text/plain
 * sentence and the connection closed. Returns true when it answered.
 */
export function httpLayerRefusal(fake: FakeContext, res: ServerResponse): boolean {
  const raw = res.req?.rawHeaders ?? [];
  const hosts = raw.filter((name, i) => i % 2 === 0 && name.toLowerCase() === 'host').length;
  if (hosts <= 1 || !fake.variants.has('v1.contract/http-layer-400-text')) return false;
  const text = '400 Bad Request: too many Host headers';
  res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8', connection: 'close', 'content-length': Buffer.byteLength(text) });
  res.end(text);
  return true;
}
