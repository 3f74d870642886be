/** Streamable HTTP > Security Warning: what the MCP endpoint does with a request from another site's page. */
import { type CheckContext, type Exchange, type Judge, pathOnly } from '../../../rule/index.ts';
import { admitted, limitAwareSection } from '../support/limiter.ts';
import { McpCallers, mcpEndpoint } from '../support/traffic.ts';
import { SESSION_HEADER } from '../../../contract/mcp/transport.ts';
import { deleteSession, mcpPath, sendInitialize, SPEC_URL } from '../support/session.ts';

const rule = limitAwareSection({ surface: 'mcp', document: 'mcp-2025-03-26', needs: { credentials: ['mcp:primary'] } });

/**
 * A reserved name (RFC 2606): no deployment can really trust it, so whatever a deployment's
 * allow-list holds, this origin is not on it.
 */
export const FOREIGN_ORIGIN = 'https://apicert-probe.invalid';
/** The same site over plain http: an allow-list that only looks at secure origins lets it through. */
export const FOREIGN_HTTP_ORIGIN = 'http://apicert-probe.invalid';
export const FOREIGN_HOST = 'apicert-probe.invalid';

/**
 * The target's own origin with the reserved name appended to its host (`http://127.0.0.1.apicert-probe.invalid`,
 * with and without the target's port): an allow-list matched by prefix (`startsWith`, a pattern with
 * no end anchor) takes it for the target's own, though it is another site's. None for a target
 * whose host cannot take a label after it (an IPv6 literal).
 */
export function lookalikeOrigins(baseUrl: string): string[] {
  const url = new URL(baseUrl);
  if (url.hostname.startsWith('[')) return [];
  const host = `${url.hostname.replace(/\.$/, '')}.${FOREIGN_HOST}`;
  const bare = `${url.protocol}//${host}`;
  return url.port === '' ? [bare] : [bare, `${bare}:${url.port}`];
}

const SECURITY_WARNING = 'Transports > Streamable HTTP > Security Warning';

/** A name under the reserved `.invalid` (RFC 2606): no deployment can trust it, whatever its allow-list holds. */
function reservedName(hostname: string): boolean {
  return /(^|\.)invalid\.?$/i.test(hostname.replace(/:\d+$/, ''));
}

function originHost(origin: string): string {
  try {
    return new URL(origin).hostname;
  } catch {
    return '';
  }
}

/** Every request to the MCP endpoint carrying a credential the endpoint takes, whose header `name` names a host `foreign` selects. */
function* foreignRequests(j: Judge, name: 'origin' | 'host', foreign: (value: string) => boolean): Generator<Exchange & { status: number }> {
  const callers = new McpCallers(j);
  const endpoint = mcpEndpoint(j);
  for (const ex of j.exchanges) {
    if (pathOnly(ex) !== endpoint) continue;
    const value = ex.requestHeaders[name];
    if (ex.status !== undefined && value !== undefined && foreign(value) && callers.authorised(ex)) yield ex as Exchange & { status: number };
    callers.note(ex);
  }
}

/** Opens (and ends) a session with a foreign header, so the judgement has its answer. */
async function initializeWith(ctx: CheckContext, name: string, value: string): Promise<void> {
  const reply = await sendInitialize(ctx, { label: `initialize with ${name}: ${value}`, headers: { [name.toLowerCase()]: value } });
  await deleteSession(ctx, reply.sessionId, ctx.primary('mcp'));
}

export const originRefused = rule({
  id: 'mcp.transport.origin',
  title: 'A request carrying an Origin no deployment can trust (a page on another site) is refused with a 4xx',
  level: 'required',
  spec: {
    section: SECURITY_WARNING,
    quote: 'Servers MUST validate the Origin header on all incoming connections to prevent DNS rebinding attacks',
    url: SPEC_URL.transports,
  },
  judgement: {
    record: 'a request to the MCP endpoint whose Origin is a reserved name no deployment can trust (under .invalid), with a credential the endpoint takes',
    judge(j) {
      const answered: Record<string, number> = {};
      for (const ex of foreignRequests(j, 'origin', (origin) => reservedName(originHost(origin)))) {
        const origin = ex.requestHeaders.origin!;
        answered[`${ex.method} ${origin}`] = ex.status;
        j.check(
          ex,
          ex.status >= 400 && ex.status < 500,
          `a ${ex.method} with Origin: ${origin} (a reserved name no deployment can trust) was served: answered HTTP ${ex.status}, expected a 4xx: a server that validates Origin refuses it on every request, so a page on any site could drive this endpoint from a browser`,
        );
      }
      if (Object.keys(answered).length > 0) j.observe('requests with a foreign Origin', answered);
    },
  },
  async provoke(ctx: CheckContext) {
    for (const origin of [FOREIGN_ORIGIN, FOREIGN_HTTP_ORIGIN, ...lookalikeOrigins(ctx.target.baseUrl)]) await initializeWith(ctx, 'Origin', origin);
    await otherMethodsWithForeignOrigin(ctx);
  },
});

/**
 * "On all incoming connections": a GET (a 405 for it is a 4xx too) and a DELETE of a session
 * opened for the purpose, each from the foreign site; a DELETE it refused leaves the session to
 * the ordinary cleanup.
 */
async function otherMethodsWithForeignOrigin(ctx: CheckContext): Promise<void> {
  const primary = ctx.primary('mcp');
  const opened = await sendInitialize(ctx, { label: 'initialize a session to DELETE from a foreign Origin' });
  const session: Record<string, string> = opened.sessionId === undefined ? {} : { [SESSION_HEADER]: opened.sessionId };
  const origin = { origin: FOREIGN_ORIGIN };
  // Bounded: a stream that is (wrongly) opened is dropped after its first event or two seconds.
  await admitted(ctx, () => ctx.http.stream({ method: 'GET', path: mcpPath(ctx), credential: primary, headers: { accept: 'text/event-stream', ...session, ...origin }, label: `GET with Origin: ${FOREIGN_ORIGIN}`, maxMs: 2_000, onEvent: () => 'disconnect' }));
  if (opened.sessionId === undefined) return;
  const deleted = await admitted(ctx, () => ctx.http.send({ method: 'DELETE', path: mcpPath(ctx), credential: primary, headers: { ...session, ...origin }, label: `DELETE the session with Origin: ${FOREIGN_ORIGIN}` }));
  if (deleted.status < 200 || deleted.status >= 300) await deleteSession(ctx, opened.sessionId, primary);
}

export const hostObservation = rule({
  id: 'mcp.transport.host',
  title: 'What the MCP endpoint answers to a request whose Host is a foreign name (recorded, not gated)',
  // MCP 2025-03-26 names only Origin; checking Host too is a common DNS-rebinding defence, not a requirement.
  level: 'observation',
  spec: {
    section: SECURITY_WARNING,
    quote: 'Servers MUST validate the Origin header on all incoming connections to prevent DNS rebinding attacks',
    url: SPEC_URL.transports,
  },
  judgement: {
    record: 'a request to the MCP endpoint whose Host is a reserved name (under .invalid), with a credential the endpoint takes',
    judge(j) {
      for (const ex of foreignRequests(j, 'host', reservedName)) {
        const host = ex.requestHeaders.host!;
        j.check(ex, ex.status < 500, `a request with Host: ${host} was answered HTTP ${ex.status}, a server error`);
        const served = ex.status >= 200 && ex.status < 300;
        j.observe(`a request with Host: ${host}`, ex.status, served ? 'served: the Host header is not checked' : 'refused: the Host header is checked');
      }
    },
  },
  async provoke(ctx: CheckContext) {
    await initializeWith(ctx, 'Host', FOREIGN_HOST);
  },
});
