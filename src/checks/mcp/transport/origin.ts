/** Streamable HTTP > Security Warning: what the MCP endpoint does with a request from another site's page. */
import { type CheckContext, section } from '../../../rule/index.ts';
import { deleteSession, sendInitialize, SPEC_URL } from '../support/session.ts';

const rule = section({ surface: 'mcp', document: 'mcp-2025-03-26', needs: { credentials: ['mcp:primary'] } });

/**
 * A reserved name (RFC 2606): no deployment can really trust it, so whatever a deployment's
 * allow-list holds, this origin is not on it.
 */
export const FOREIGN_ORIGIN = 'https://apicert-probe.invalid';
/** The same site over plain http: an allow-list that only looks at secure origins lets it through. */
export const FOREIGN_HTTP_ORIGIN = 'http://apicert-probe.invalid';
export const FOREIGN_HOST = 'apicert-probe.invalid';

const SECURITY_WARNING = 'Transports > Streamable HTTP > Security Warning';

export const originRefused = rule({
  id: 'mcp.transport.origin',
  title: 'A request carrying an Origin no deployment can trust (a page on another site) is refused with a 4xx',
  level: 'required',
  spec: {
    section: SECURITY_WARNING,
    quote: 'Servers MUST validate the Origin header on all incoming connections to prevent DNS rebinding attacks',
    url: SPEC_URL.transports,
  },
  async check(ctx: CheckContext) {
    const answered: Record<string, number> = {};
    for (const origin of [FOREIGN_ORIGIN, FOREIGN_HTTP_ORIGIN]) {
      const reply = await sendInitialize(ctx, { label: `initialize with Origin: ${origin}`, headers: { origin } });
      await deleteSession(ctx, reply.sessionId, ctx.primary('mcp'));
      const { status } = reply.res;
      answered[origin] = status;
      ctx.check(
        status >= 400 && status < 500,
        `initialize with Origin: ${origin} (a reserved name no deployment can trust) was served: answered HTTP ${status}, expected a 4xx: a server that validates Origin refuses it, so a page on any site could drive this endpoint from a browser`,
        reply.res,
      );
    }
    ctx.observe('initialize with a foreign Origin', answered);
  },
});

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
  async check(ctx: CheckContext) {
    const reply = await sendInitialize(ctx, { label: `initialize with Host: ${FOREIGN_HOST}`, headers: { host: FOREIGN_HOST } });
    await deleteSession(ctx, reply.sessionId, ctx.primary('mcp'));
    ctx.expect(reply.res.status < 500, `initialize with Host: ${FOREIGN_HOST} was answered HTTP ${reply.res.status}, a server error`);
    const served = reply.res.status >= 200 && reply.res.status < 300;
    ctx.observe(`initialize with Host: ${FOREIGN_HOST}`, reply.res.status, served ? 'served: the Host header is not checked' : 'refused: the Host header is checked');
  },
});
