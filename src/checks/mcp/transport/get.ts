/** Endpoints (the /v8 seed): GET /mcp is refused, server-to-client push is disabled on this gateway. */
import { type CheckContext, section } from '../../../rule/index.ts';
import { SESSION_HEADER } from '../../../contract/mcp/transport.ts';
import { isObject, MCP_PATH, withSession } from '../support/session.ts';

const rule = section({ surface: 'mcp', document: 'v8-integration-gateway.md', needs: { credentials: ['mcp:primary'] } });

export const get405 = rule({
  id: 'mcp.transport.get-405',
  title: 'GET /mcp answers 405 Method Not Allowed with no JSON success body',
  level: 'required',
  spec: {
    section: 'Endpoints; Errors',
    quote: '`405 Method Not Allowed`, no JSON success body (server-to-client push is disabled)',
  },
  async check(ctx: CheckContext) {
    await withSession(ctx, async (session) => {
      const headers: Record<string, string> = session.id === undefined ? {} : { [SESSION_HEADER]: session.id };
      // Bounded: a stream that is (wrongly) opened is dropped after its first event or two seconds.
      const res = await ctx.http.stream({ method: 'GET', path: MCP_PATH, credential: session.credential, headers, label: 'GET /mcp', maxMs: 2_000, onEvent: () => 'disconnect' });
      ctx.expect(res.status === 405, `GET /mcp answered ${res.status}${res.contentType ? ` (${res.contentType})` : ''}, expected 405 Method Not Allowed`);
      const success = isObject(res.json) && 'result' in res.json;
      ctx.expect(!success, 'GET /mcp answered 405 with a JSON-RPC success body (a "result"), expected none');
      ctx.observe('Allow header on the 405', res.headers.allow ?? null);
    });
  },
});
