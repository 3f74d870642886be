import type { FakeCaller } from '../auth.ts';
import type { FakeContext } from '../context.ts';
import type { RouteRequest } from '../http.ts';
import { echoedToken } from './redaction.ts';
import { writeTransportError } from './respond.ts';
import type { SessionStore } from './session-store.ts';
import { SESSION_HEADER } from '../../contract/mcp/transport.ts';

/** Codes the MCP SDKs use for transport refusals that JSON-RPC itself does not name. */
export const BAD_REQUEST = -32000;

/** The challenge of an /mcp 401 (RFC 9110 15.5.2): none, or another scheme than the gateway's, under a fault. */
function challengeHeaders(fake: FakeContext): Record<string, string> {
  if (fake.faults.has('mcp.auth.challenge/no-challenge')) return {};
  return { 'www-authenticate': fake.faults.has('mcp.auth.challenge/basic-only') ? 'Basic realm="apicert-fake-mcp"' : 'Bearer' };
}

/** The caller of an /mcp request (its Origin already checked by the transport); answers 401 itself and returns undefined when refused. */
export function authenticate(fake: FakeContext, r: RouteRequest, sessions: SessionStore): FakeCaller | undefined {
  const caller = fake.tokens.lookup(r.header('authorization'));
  // "If a token comes, verify it": a request with none passes as an anonymous caller.
  if (r.header('authorization') === undefined && fake.faults.has('mcp.auth.expired-401/missing-token-served')) return { principal: 'anonymous', tenant: '', scopes: new Set(), expired: false };
  if (fake.faults.has('mcp.auth.expired-401/session-skips-auth') && (!caller || caller.expired)) {
    // "Authenticate the handshake, trust the session id": a live session's id stands in for its owner's token.
    const live = sessions.get(r.header(SESSION_HEADER) ?? '');
    if (live) return { principal: live.principal, tenant: '', scopes: new Set(), expired: false };
  }
  if (caller?.expired && fake.faults.has('mcp.auth.expired-401/expired-accepted')) return caller;
  if (!caller || caller.expired) {
    const message = caller ? `The bearer token has expired.${echoedToken(fake, r.header('authorization'))}` : 'A valid bearer token is required: send Authorization: Bearer <token>.';
    writeTransportError(r.res, 401, BAD_REQUEST, message, challengeHeaders(fake));
    return undefined;
  }
  return caller;
}
