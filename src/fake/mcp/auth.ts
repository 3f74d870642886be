import type { FakeCaller } from '../auth.ts';
import type { FakeContext } from '../context.ts';
import type { RouteRequest } from '../http.ts';
import { writeTransportError } from './respond.ts';

/** Codes the MCP SDKs use for transport refusals that JSON-RPC itself does not name. */
export const BAD_REQUEST = -32000;

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/**
 * "Servers MUST validate the Origin header": browsers send one, so a page on another site
 * (DNS rebinding) is refused; clients that are not browsers send none and pass.
 */
function originAllowed(r: RouteRequest): boolean {
  const origin = r.header('origin');
  if (origin === undefined) return true;
  let host: string;
  try {
    host = new URL(origin).hostname;
  } catch {
    host = '';
  }
  if (LOOPBACK_HOSTS.has(host)) return true;
  writeTransportError(r.res, 403, BAD_REQUEST, `Forbidden: Origin ${origin} is not allowed to call /mcp.`);
  return false;
}

/** The caller of an /mcp request; answers 403 (Origin) or 401 itself and returns undefined when refused. */
export function authenticate(fake: FakeContext, r: RouteRequest): FakeCaller | undefined {
  if (!originAllowed(r)) return undefined;
  const caller = fake.tokens.lookup(r.header('authorization'));
  if (!caller || caller.expired) {
    const message = caller ? 'The bearer token has expired.' : 'A valid bearer token is required: send Authorization: Bearer <token>.';
    writeTransportError(r.res, 401, BAD_REQUEST, message, { 'www-authenticate': 'Bearer' });
    return undefined;
  }
  return caller;
}
