/** Streamable HTTP > Security Warning: what /mcp does with a request from another site's page. */
import { type CheckContext, section } from '../../../rule/index.ts';
import { deleteSession, sendInitialize, SPEC_URL } from '../support/session.ts';

const rule = section({ surface: 'mcp', document: 'mcp-2025-03-26', needs: { credentials: ['mcp:primary'] } });

/** A reserved name (RFC 2606), so the origin can never be one a deployment really trusts. */
const FOREIGN_ORIGIN = 'https://apicert-foreign-page.invalid';

export const originObservation = rule({
  id: 'mcp.transport.origin',
  title: 'What /mcp answers to initialize carrying the Origin of a foreign web page (recorded, not gated)',
  // Which origins a deployment trusts is its own configuration, so refusal cannot be required from outside.
  level: 'observation',
  spec: {
    section: 'Transports > Streamable HTTP > Security Warning',
    quote: 'Servers MUST validate the Origin header on all incoming connections to prevent DNS rebinding attacks',
    url: SPEC_URL.transports,
  },
  async check(ctx: CheckContext) {
    const reply = await sendInitialize(ctx, { label: `initialize with Origin: ${FOREIGN_ORIGIN}`, headers: { origin: FOREIGN_ORIGIN } });
    await deleteSession(ctx, reply.sessionId, ctx.primary('mcp'));
    ctx.expect(reply.res.status < 500, `initialize with a foreign Origin was answered HTTP ${reply.res.status}, a server error`);
    const served = reply.res.status >= 200 && reply.res.status < 300;
    ctx.observe(`initialize with Origin: ${FOREIGN_ORIGIN}`, reply.res.status, served ? 'served: a page on any site can drive /mcp from a browser' : 'refused');
  },
});
