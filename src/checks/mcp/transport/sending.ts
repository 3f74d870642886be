/** Streamable HTTP > Sending Messages to the Server: what a POST is answered with. */
import { type CheckContext, section } from '../../../rule/index.ts';
import {
  closeSession,
  newRequestId,
  notification,
  openSession,
  postMcp,
  request,
  responses,
  SPEC_URL,
  withSession,
  type McpReply,
  type McpSession,
} from '../support/session.ts';

const rule = section({ surface: 'mcp', document: 'mcp-2025-03-26', needs: { credentials: ['mcp:primary'] } });

function describe(reply: McpReply): string {
  return `HTTP ${reply.res.status}, ${reply.kind === 'empty' ? 'no body' : `a ${reply.mediaType || 'untyped'} body`}`;
}

/** Input the server may refuse with an HTTP error; when it accepts it, the answer must be 202 without a body. */
function judgeAccepted(ctx: CheckContext, what: string, reply: McpReply, mayRefuse: boolean): void {
  const { status } = reply.res;
  if (mayRefuse && status >= 400 && status < 500) {
    ctx.observe(`${what} refused`, status, 'the server may refuse input it cannot accept with an HTTP error status');
    return;
  }
  if (ctx.check(status === 202, `${what} was answered ${describe(reply)}, expected 202 Accepted`, reply.res))
    ctx.check(reply.res.text.length === 0, `${what} was answered 202 with a body (${reply.res.text.length} characters), expected no body`, reply.res);
}

export const accepted202 = rule({
  id: 'mcp.transport.accepted-202',
  title: 'A POST carrying only a notification or only a response is answered 202 Accepted with no body',
  level: 'required',
  spec: {
    section: 'Transports > Streamable HTTP > Sending Messages to the Server',
    quote:
      'If the input consists solely of (any number of) JSON-RPC responses or notifications: If the server accepts the input, the server MUST return HTTP status code 202 Accepted with no body. … If the server cannot accept the input, it MUST return an HTTP error status code (e.g., 400 Bad Request).',
    url: SPEC_URL.transports,
  },
  async check(ctx: CheckContext) {
    const session: McpSession = await openSession(ctx, { sendInitialized: false });
    try {
      // The lifecycle's own notification: a server cannot refuse it and still be usable.
      const initialized = await postMcp(ctx, notification('notifications/initialized'), { session, label: 'notifications/initialized' });
      judgeAccepted(ctx, 'notifications/initialized', initialized, false);
      const cancelled = await postMcp(ctx, notification('notifications/cancelled', { requestId: newRequestId('never-sent'), reason: 'apicert probe' }), {
        session,
        label: 'notifications/cancelled for an unknown request',
      });
      judgeAccepted(ctx, 'notifications/cancelled for a request the server never saw', cancelled, true);
      const response = await postMcp(ctx, { jsonrpc: '2.0', id: newRequestId('unsolicited'), result: {} }, { session, label: 'a JSON-RPC response' });
      judgeAccepted(ctx, 'a JSON-RPC response to a request the server never sent', response, true);
    } finally {
      await closeSession(ctx, session);
    }
  },
});

const JSON_OR_SSE = ['application/json', 'text/event-stream'];

export const requestResponse = rule({
  id: 'mcp.transport.request-response',
  title: 'A POST carrying a request is answered application/json (one response bearing its id) or text/event-stream',
  level: 'required',
  spec: {
    section: 'Transports > Streamable HTTP > Sending Messages to the Server',
    quote:
      'If the input contains any number of JSON-RPC requests, the server MUST either return Content-Type: text/event-stream, to initiate an SSE stream, or Content-Type: application/json, to return one JSON object.',
    url: SPEC_URL.transports,
  },
  async check(ctx: CheckContext) {
    await withSession(ctx, async (session) => {
      for (const method of ['ping', 'tools/list']) {
        const id = newRequestId(method.replace('/', '-'));
        const reply = await postMcp(ctx, request(id, method), { session, label: method });
        if (!ctx.check(reply.res.status >= 200 && reply.res.status < 300, `${method} was answered HTTP ${reply.res.status}, expected a 2xx`)) continue;
        ctx.check(JSON_OR_SSE.includes(reply.mediaType), `${method} was answered with content-type "${reply.res.contentType}", expected application/json or text/event-stream`);
        const found = responses(reply);
        ctx.observe(`${method} framing`, reply.kind);
        // application/json carries "one JSON object"; an SSE stream only SHOULD carry the response
        // (mcp.sse.closes-after-response judges that), but what it carries must answer this request.
        if (reply.kind === 'sse' && found.length === 0) continue;
        if (ctx.check(found.length === 1, `${method} was answered with ${found.length} JSON-RPC responses, expected exactly one`))
          ctx.check(found[0]?.id === id, `the response to ${method} carries id ${JSON.stringify(found[0]?.id)}, expected ${JSON.stringify(id)}`);
      }
    });
  },
});
