/**
 * An MCP 405 lists the endpoint's methods (RFC 9110 15.5.6). MCP uses POST, GET and DELETE only:
 * OPTIONS, a safe method (RFC 9110 9.3.7), is one an endpoint may refuse with 405, and the
 * gateway's GET is one (a server that opens a stream, or serves OPTIONS for CORS, leaves nothing to judge).
 */
import { SESSION_HEADER } from '../../../contract/mcp/transport.ts';
import { pathOnly } from '../../../rule/index.ts';
import { allowRule } from '../../shared/http-fields.ts';
import { admitted } from '../support/limiter.ts';
import { mcpEndpoint } from '../support/traffic.ts';
import { mcpPath, withSession } from '../support/session.ts';
import { getEndpoint } from './get.ts';

export const allowOn405 = allowRule({
  id: 'mcp.transport.allow-on-405',
  surface: 'mcp',
  onSurface: (j, ex) => pathOnly(ex) === mcpEndpoint(j),
  needs: { credentials: ['mcp:primary'] },
  async provoke(ctx) {
    await getEndpoint(ctx);
    await withSession(ctx, async (session) => {
      const headers: Record<string, string> = session.id === undefined ? {} : { [SESSION_HEADER]: session.id };
      await admitted(ctx, () => ctx.http.send({ method: 'OPTIONS', path: mcpPath(ctx), credential: session.credential, headers, label: `OPTIONS ${mcpPath(ctx)} in a session` }));
    });
  },
});
