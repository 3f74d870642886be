/**
 * GET on the MCP endpoint. MCP 2025-03-26 lets a server open an SSE stream or answer 405; the
 * /v8 seed picks 405 for this gateway (server-to-client push is disabled). Two rules, so a
 * generic MCP server fails only the gateway's own choice, and says so.
 */
import { type CheckContext, type Exchange, type Judge, mediaType } from '../../../rule/index.ts';
import { admitted, limitAwareSection } from '../support/limiter.ts';
import { answerJson } from '../../../traffic/read.ts';
import { SessionHistory } from '../support/session-history.ts';
import { ordinaryMcpRequests } from '../support/traffic.ts';
import { SESSION_HEADER } from '../../../contract/mcp/transport.ts';
import { isObject, mcpPath, SPEC_URL, withSession } from '../support/session.ts';

const gatewayRule = limitAwareSection({ surface: 'mcp', document: 'v8-integration-gateway.md', needs: { credentials: ['mcp:primary'] } });
const mcpRule = limitAwareSection({ surface: 'mcp', document: 'mcp-2025-03-26', needs: { credentials: ['mcp:primary'] } });

/** One bounded GET in a fresh session: a stream that is opened is dropped after its first event or two seconds. */
export async function getEndpoint(ctx: CheckContext): Promise<void> {
  await withSession(ctx, async (session) => {
    const headers: Record<string, string> = { accept: 'text/event-stream', ...(session.id === undefined ? {} : { [SESSION_HEADER]: session.id }) };
    await admitted(ctx, () => ctx.http.stream({ method: 'GET', path: mcpPath(ctx), credential: session.credential, headers, label: `GET ${mcpPath(ctx)}`, maxMs: 2_000, onEvent: () => 'disconnect' }));
  });
}

/**
 * Each GET an ordinary client sent to the MCP endpoint asking for an event stream, in a session the
 * server had opened and not ended (or carrying none, on a server that showed it assigns none):
 * what a server must answer with a stream or 405, not a session refusal.
 */
function eachGet(j: Judge, judge: (ex: Exchange & { status: number }, contentType: string) => void): void {
  const sessions = new SessionHistory(j);
  for (const ex of ordinaryMcpRequests(j, 'GET')) {
    if (ex.status === undefined || !(ex.requestHeaders.accept ?? '').toLowerCase().includes('text/event-stream') || !sessions.inOpenSession(ex)) continue;
    judge(ex as Exchange & { status: number }, ex.responseHeaders['content-type'] ?? '');
  }
}

const GET_RECORD = 'a GET to the MCP endpoint accepting text/event-stream, by an authorised client, in a session the server opened and had not ended';

export const get405 = gatewayRule({
  id: 'mcp.transport.get-405',
  title: 'GET /mcp answers 405 Method Not Allowed with no JSON success body (the /v8 gateway seed\'s rule: MCP itself also allows an SSE stream)',
  level: 'required',
  spec: {
    section: 'Endpoints; Errors',
    quote: '`405 Method Not Allowed`, no JSON success body (server-to-client push is disabled)',
  },
  judgement: {
    record: GET_RECORD,
    judge(j) {
      eachGet(j, (ex, contentType) => {
        j.check(
          ex,
          ex.status === 405,
          `answered ${ex.status}${contentType ? ` (${contentType})` : ''}, expected 405: the /v8 gateway seed disables server-to-client push on /mcp (MCP 2025-03-26 alone would also allow an SSE stream, which mcp.transport.get-stream-or-405 judges)`,
        );
        // Only a JSON body can carry a JSON-RPC success; it is read whole.
        if (mediaType(ex.responseHeaders) !== 'application/json') return;
        const body = answerJson(j, ex);
        if (body !== undefined) j.check(ex, !(isObject(body) && 'result' in body), `answered ${ex.status} with a JSON-RPC success body (a "result"), expected none (the /v8 gateway seed's rule)`);
      });
    },
  },
  async provoke(ctx: CheckContext) {
    await getEndpoint(ctx);
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
  judgement: {
    record: GET_RECORD,
    judge(j) {
      eachGet(j, (ex, contentType) => {
        // By the content type the server gave: a probe that read the answer as a stream keeps events even of a JSON answer.
        const stream = ex.status >= 200 && ex.status < 300 && mediaType(ex.responseHeaders) === 'text/event-stream';
        j.check(ex, stream || ex.status === 405, `answered ${ex.status}${contentType ? ` (${contentType})` : ''}, expected an SSE stream (text/event-stream) or 405`);
        j.observe('GET on the MCP endpoint', stream ? 'SSE stream' : ex.status);
      });
    },
  },
  async provoke(ctx: CheckContext) {
    await getEndpoint(ctx);
  },
});
