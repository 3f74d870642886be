import { randomUUID } from 'node:crypto';
import { SESSION_HEADER } from '../../contract/mcp/transport.ts';
import type { FakeCaller } from '../auth.ts';
import type { FakeContext } from '../context.ts';
import type { RouteRequest } from '../http.ts';
import { authenticate, BAD_REQUEST } from './auth.ts';
import { writeEmpty, writeTransportError } from './respond.ts';
import type { McpSession } from './session-store.ts';
import type { McpSurface } from './surface.ts';

const SESSION_NOT_FOUND = -32001;

/** The id of a new session; undefined lets the store pick a UUID (visible ASCII, as the transport requires). */
export function newSessionId(fake: FakeContext): string | undefined {
  return fake.faults.has('mcp.session.id-visible-ascii/contains-space') ? `apicert session ${randomUUID()}` : undefined;
}

/** The session a non-initialize request belongs to; answers 400 or 404 itself when there is none. */
export function sessionOf({ fake, sessions }: McpSurface, r: RouteRequest, caller: FakeCaller): McpSession | undefined {
  const id = r.header(SESSION_HEADER);
  if (id === undefined) {
    if (fake.faults.has('mcp.session.missing-400/served-without-session')) return sessions.ephemeral(caller.principal);
    writeTransportError(r.res, 400, BAD_REQUEST, `Bad Request: send the ${SESSION_HEADER} header that initialize returned.`);
    return undefined;
  }
  const session = sessions.get(id);
  if (!session || session.principal !== caller.principal) {
    if (!sessions.wasIssued(id) && fake.faults.has('mcp.session.unknown-404/never-issued-400')) {
      writeTransportError(r.res, 400, BAD_REQUEST, 'Bad Request: malformed session id.');
    } else {
      writeTransportError(r.res, 404, SESSION_NOT_FOUND, 'Session not found: send a new initialize request without a session id.');
    }
    return undefined;
  }
  return session;
}

/** DELETE /mcp: ends the caller's session. */
export function deleteSession(surface: McpSurface, r: RouteRequest): void {
  const caller = authenticate(surface.fake, r);
  if (!caller) return;
  const session = sessionOf(surface, r, caller);
  if (!session) return;
  if (!surface.fake.faults.has('mcp.session.delete-terminates/delete-ignored')) surface.sessions.end(session.id);
  writeEmpty(r.res, 204);
}
