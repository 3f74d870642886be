import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { SESSION_HEADER } from '../../contract/mcp/transport.ts';
import type { FakeCaller } from '../auth.ts';
import type { FakeContext } from '../context.ts';
import type { RouteRequest } from '../http.ts';
import { authenticate, BAD_REQUEST } from './auth.ts';
import { writeEmpty, writeTransportError } from './respond.ts';
import type { McpSession, SessionStore } from './session-store.ts';
import type { McpSurface } from './surface.ts';

const SESSION_NOT_FOUND = -32001;

/** Under the variant, the requests a session serves before the server ends it: fewer than the catalogue's long session sends. */
export const ENDS_AFTER_REQUESTS = 20;

/** Under the variant that ends sessions early (a per-session quota): the catalogue's session and most checks' outlive it, so each must go on in a new session. */
export const ENDS_EARLY_AFTER_REQUESTS = 3;

/**
 * By default the fake ends a session once it has served this many requests ("The server MAY
 * terminate the session at any time"): more than any check's session but
 * mcp.session.ended-stays-404's own long one, so the rule has a session the server ended to judge.
 */
export const SESSION_REQUEST_CAP = 100;

/** Every visible ASCII character (0x21-0x7E), punctuation included. */
const VISIBLE = Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i)).join('');

/** A JWT-shaped id (header.payload.signature, base64url), one of the forms MCP names. */
function jwtShapedId(): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const body = `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ sid: randomUUID(), iss: 'apicert-reference-fake', iat: Math.floor(Date.now() / 1000), nonce: randomBytes(24).toString('base64url') })}`;
  return `${body}.${createHmac('sha256', randomBytes(32)).update(body).digest('base64url')}`;
}

/** A long id using every visible character: quotes, backslash, comma and semicolon included. */
function punctuationId(): string {
  const random = randomBytes(300).toString('hex');
  return `${VISIBLE}${random}`.slice(0, 600);
}

/**
 * The id of a new session; undefined lets the store pick a UUID (visible ASCII, as the transport
 * requires). `initialize` is the request that opens it: under the fault the id is its hash, which
 * is "a cryptographic hash" as MCP names one, but of nothing secret, so the same request repeats it.
 */
export function newSessionId(fake: FakeContext, initialize?: unknown): string | undefined {
  if (fake.faults.has('mcp.session.id-unique/request-hash-id')) return createHash('sha256').update(JSON.stringify(initialize ?? null)).digest('hex');
  if (fake.faults.has('mcp.session.id-visible-ascii/contains-space')) return `apicert session ${randomUUID()}`;
  if (fake.variants.has('mcp.session/jwt-ids')) return jwtShapedId();
  if (fake.variants.has('mcp.session/punctuation-ids')) return punctuationId();
  return undefined;
}

/** Without session management, one stand-in per caller, so SSE event ids stay unique across all its streams. */
const stateless = new WeakMap<SessionStore, Map<string, McpSession>>();

function statelessSession(sessions: SessionStore, principal: string): McpSession {
  const byPrincipal = stateless.get(sessions) ?? new Map<string, McpSession>();
  stateless.set(sessions, byPrincipal);
  const session = byPrincipal.get(principal) ?? sessions.ephemeral(principal);
  byPrincipal.set(principal, session);
  return session;
}

/** Whether the fake manages no sessions: a legal choice (the variant), or under the fault a server whose profile says it requires them. */
function managesNoSessions(fake: FakeContext): boolean {
  return fake.variants.has('mcp.session/no-sessions') || fake.faults.has('mcp.session.id-visible-ascii/no-session-assigned');
}

/** Whether the deployment the embedded profile describes requires sessions (fixtures.mcp.requiresSession): unless it is stateless, or assigns ids without requiring them, by choice. */
export function requiresSessions(fake: FakeContext): boolean {
  return !fake.variants.has('mcp.session/no-sessions') && !idsNotRequired(fake);
}

/** Session ids assigned but not required (a variant): a request without one, or with one never issued, is served as the caller's session-less traffic. */
function idsNotRequired(fake: FakeContext): boolean {
  return fake.variants.has('mcp.session/ids-not-required');
}

/** The headers of an initialize answer: the new session's id, unless the fake manages no sessions. */
export function sessionHeaders(fake: FakeContext, session: McpSession): Record<string, string> {
  return managesNoSessions(fake) ? {} : { [SESSION_HEADER]: session.id };
}

/** A session refusal: a JSON-RPC error by default, a plain-text body under the variant (MCP names only the status). */
function refuse(fake: FakeContext, r: RouteRequest, status: number, code: number, message: string): undefined {
  if (fake.variants.has('mcp.session/plain-refusals')) {
    r.res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(message) });
    r.res.end(message);
  } else writeTransportError(r.res, status, code, message);
  return undefined;
}

/** The session a non-initialize request belongs to; answers 400 or 404 itself when there is none. */
export function sessionOf({ fake, sessions }: McpSurface, r: RouteRequest, caller: FakeCaller): McpSession | undefined {
  const id = r.header(SESSION_HEADER);
  if (managesNoSessions(fake)) return statelessSession(sessions, caller.principal);
  if (id === undefined) {
    if (idsNotRequired(fake)) return statelessSession(sessions, caller.principal);
    if (fake.faults.has('mcp.session.missing-400/served-without-session')) return sessions.ephemeral(caller.principal);
    if (fake.variants.has('mcp.session/missing-404')) return refuse(fake, r, 404, SESSION_NOT_FOUND, `Not Found: send the ${SESSION_HEADER} header that initialize returned.`);
    return refuse(fake, r, 400, BAD_REQUEST, `Bad Request: send the ${SESSION_HEADER} header that initialize returned.`);
  }
  const session = sessions.get(id);
  if (!session || session.principal !== caller.principal) {
    if (!sessions.wasIssued(id) && fake.faults.has('mcp.session.never-issued/served')) return sessions.ephemeral(caller.principal);
    // A terminated session is still owed 404; only an id never issued is served like no id.
    if (!sessions.wasIssued(id) && idsNotRequired(fake)) return statelessSession(sessions, caller.principal);
    if (!sessions.wasIssued(id) && fake.variants.has('mcp.session/never-issued-400')) {
      return refuse(fake, r, 400, BAD_REQUEST, 'Bad Request: no session with this id was ever issued.');
    }
    return refuse(fake, r, 404, SESSION_NOT_FOUND, 'Session not found: send a new initialize request without a session id.');
  }
  const cap = requestCap(fake);
  if (cap !== undefined && (session.requests += 1) > cap) {
    // "The server MAY terminate the session at any time, after which it MUST respond … with HTTP 404 Not Found."
    sessions.end(session.id);
    if (fake.faults.has(DELETE_AFTER_END)) endedHere(sessions).add(session.id);
    return refuse(fake, r, 404, SESSION_NOT_FOUND, 'Session not found: the server ended this session; send a new initialize request without a session id.');
  }
  if (fake.variants.has('mcp.session/id-on-every-response')) r.res.setHeader(SESSION_HEADER, session.id);
  return session;
}

/** The methods the endpoint allows, for the Allow header of a 405. */
export function allowedMethods(fake: FakeContext): string {
  return fake.variants.has('mcp.session/delete-405') ? 'POST' : 'POST, DELETE';
}

/** Under the fault, a DELETE of a session the server ended itself is answered as if the session were live. */
const DELETE_AFTER_END = 'mcp.session.ended-stays-404/delete-after-end-204';

/** How many requests a session serves before the fake ends it, or undefined under the variant that keeps every session until its DELETE. */
function requestCap(fake: FakeContext): number | undefined {
  if (fake.variants.has('mcp.session/ends-after-requests')) return ENDS_AFTER_REQUESTS;
  if (fake.variants.has('mcp.session/ends-early')) return ENDS_EARLY_AFTER_REQUESTS;
  return fake.variants.has('mcp.session/kept-open') ? undefined : SESSION_REQUEST_CAP;
}

/** The sessions the fake ended itself, under the fault only (bounded like the store's own record of ended sessions). */
const ended = new WeakMap<SessionStore, Set<string>>();

function endedHere(sessions: SessionStore): Set<string> {
  const set = ended.get(sessions) ?? new Set<string>();
  ended.set(sessions, set);
  if (set.size > 1_000) set.delete(set.values().next().value!);
  return set;
}

/** DELETE /mcp: ends the caller's session. */
export function deleteSession(surface: McpSurface, r: RouteRequest): void {
  const caller = authenticate(surface.fake, r, surface.sessions);
  if (!caller) return;
  const id = r.header(SESSION_HEADER);
  if (id !== undefined && surface.fake.faults.has(DELETE_AFTER_END) && endedHere(surface.sessions).has(id)) {
    writeEmpty(r.res, 204);
    return;
  }
  const session = sessionOf(surface, r, caller);
  if (!session) return;
  if (surface.fake.variants.has('mcp.session/delete-405')) {
    writeTransportError(r.res, 405, BAD_REQUEST, 'Method Not Allowed: this server does not let clients end sessions.', { allow: allowedMethods(surface.fake) });
    return;
  }
  if (!surface.fake.faults.has('mcp.session.delete-terminates/delete-ignored')) surface.sessions.end(session.id);
  writeEmpty(r.res, 204);
}
