/**
 * GET on the MCP endpoint. MCP 2025-03-26 lets a server open an SSE stream or answer 405; the
 * /v8 seed picks 405 for this gateway (server-to-client push is disabled). Two rules, so a
 * generic MCP server fails only the gateway's own choice, and says so.
 */
import { type CheckContext, type StreamResponse, section } from '../../../rule/index.ts';
import { SESSION_HEADER } from '../../../contract/mcp/transport.ts';
import { isObject, mcpPath, SPEC_URL, withSession } from '../support/session.ts';

const gatewayRule = section({ surface: 'mcp', document: 'v8-integration-gateway.md', needs: { credentials: ['mcp:primary'] } });
const mcpRule = section({ surface: 'mcp', document: 'mcp-2025-03-26', needs: { credentials: ['mcp:primary'] } });

/** One bounded GET in a fresh session: a stream that is opened is dropped after its first event or two seconds. */
async function getEndpoint(ctx: CheckContext, what: (res: StreamResponse) => void): Promise<void> {
  await withSession(ctx, async (session) => {
    const headers: Record<string, string> = { accept: 'text/event-stream', ...(session.id === undefined ? {} : { [SESSION_HEADER]: session.id }) };
    const res = await ctx.http.stream({ method: 'GET', path: mcpPath(ctx), credential: session.credential, headers, label: `GET ${mcpPath(ctx)}`, maxMs: 2_000, onEvent: () => 'disconnect' });
    what(res);
  });
}

export const get405 = gatewayRule({
  id: 'mcp.transport.get-405',
  title: 'GET /mcp answers 405 Method Not Allowed with no JSON success body (the /v8 gateway seed\'s rule: MCP itself also allows an SSE stream)',
  level: 'required',
  spec: {
    section: 'Endpoints; Errors',
    quote: '`405 Method Not Allowed`, no JSON success body (server-to-client push is disabled)',
  },
  async check(ctx: CheckContext) {
    await getEndpoint(ctx, (res) => {
      ctx.expect(
        res.status === 405,
        `GET ${mcpPath(ctx)} answered ${res.status}${res.contentType ? ` (${res.contentType})` : ''}, expected 405: the /v8 gateway seed disables server-to-client push on /mcp (MCP 2025-03-26 alone would also allow an SSE stream, which mcp.transport.get-stream-or-405 judges)`,
      );
      const success = isObject(res.json) && 'result' in res.json;
      ctx.expect(!success, `GET ${mcpPath(ctx)} answered 405 with a JSON-RPC success body (a "result"), expected none (the /v8 gateway seed's rule)`);
      ctx.observe('Allow header on the 405', res.headers.allow ?? null);
    });
  },
});

export const getStreamOr405 = mcpRule({
  id: 'mcp.transport.get-stream-or-405',
  title: 'GET on the MCP endpoint opens an SSE stream or answers 405 Method Not Allowed',
  level: 'required',
  spec: {
    section: 'Transports > Streamable HTTP > Listening for Messages from the Server',
    quote:
      'The client MAY issue an HTTP GET to the MCP endpoint. … The server MUST either return Content-Type: text/event-stream in response to this HTTP GET, or else return HTTP 405 Method Not Allowed, indicating that the server does not offer an SSE stream at this endpoint.',
    url: SPEC_URL.transports,
  },
  async check(ctx: CheckContext) {
    await getEndpoint(ctx, (res) => {
      const stream = res.status >= 200 && res.status < 300 && res.contentType.startsWith('text/event-stream');
      ctx.expect(stream || res.status === 405, `GET ${mcpPath(ctx)} answered ${res.status}${res.contentType ? ` (${res.contentType})` : ''}, expected an SSE stream (text/event-stream) or 405`);
      ctx.observe('GET on the MCP endpoint', stream ? 'SSE stream' : 405);
    });
  },
});
