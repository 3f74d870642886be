/** Streamable HTTP > Sending Messages to the Server: what a POST is answered with. */
import { type CheckContext, mediaType } from '../../../rule/index.ts';
import { limitAware, limitAwareSection } from '../support/limiter.ts';
import { isResponseLike } from '../../../contract/mcp/jsonrpc.ts';
import { requestJson, wholeBody } from '../../../traffic/read.ts';
import { isRecord } from '../../../util/json.ts';
import { answeredResponses, isHttpErrorStatus, isRequestMessage, ordinaryMcpPosts, responsesShown, sentAsClientsMust, sentMessages, wellFormedCalls } from '../support/traffic.ts';
import { SessionHistory } from '../support/session-history.ts';
import {
  newRequestId,
  notification,
  postMcp,
  request,
  SPEC_URL,
  withSession,
  type McpSession,
} from '../support/session.ts';

const rule = limitAwareSection({ surface: 'mcp', document: 'mcp-2025-03-26', needs: { credentials: ['mcp:primary'] } });

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
  judgement: {
    record: 'a POST to the MCP endpoint carrying only notifications or responses, sent as MCP asks of a client (JSON, an Accept listing both types) in a session the server had opened and not ended',
    judge(j) {
      const sessions = new SessionHistory(j);
      for (const ex of ordinaryMcpPosts(j)) {
        const sent = sentMessages(ex);
        if (!sent || sent.length === 0 || ex.status === undefined) continue;
        // A server may refuse a wrong Accept (406), a missing session id (400) or an ended session (404) before it reads the input.
        if (!sentAsClientsMust(ex) || !sessions.inOpenSession(ex)) continue;
        if (sent.some((m) => typeof m.method === 'string' && 'id' in m) || !sent.every((m) => typeof m.method === 'string' || isResponseLike(m))) continue;
        const what = sent.map((m) => (typeof m.method === 'string' ? m.method : 'a JSON-RPC response')).join(', ');
        // The lifecycle's own notification cannot be refused by a usable server; other input may be refused with an HTTP error status.
        const mayRefuse = !sent.every((m) => m.method === 'notifications/initialized');
        if (mayRefuse && isHttpErrorStatus(ex.status)) {
          j.observe(`${what} refused`, ex.status, 'the server may refuse input it cannot accept with an HTTP error status');
          continue;
        }
        if (!j.check(ex, ex.status === 202, `${what} was answered ${ex.status}, expected 202 Accepted`)) continue;
        const body = wholeBody(j, ex);
        if (body !== undefined) j.check(ex, body.length === 0, `${what} was answered 202 with a body (${body.length} characters), expected no body`);
      }
    },
  },
  async provoke(ctx: CheckContext) {
    await withSession(
      ctx,
      async (session: McpSession) => {
        await postMcp(ctx, notification('notifications/initialized'), { session, label: 'notifications/initialized' });
        await postMcp(ctx, notification('notifications/cancelled', { requestId: newRequestId('never-sent'), reason: 'apicert probe' }), { session, label: 'notifications/cancelled for an unknown request' });
        await postMcp(ctx, { jsonrpc: '2.0', id: newRequestId('unsolicited'), result: {} }, { session, label: 'a JSON-RPC response' });
      },
      { sendInitialized: false },
    );
  },
});

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
  // MCP frames an HTTP error answer carrying JSON-RPC responses (the limiter's 429 too): only a bare refusal is the limit's.
  judgement: limitAware({
    record: 'a POST to the MCP endpoint of well-formed JSON-RPC carrying requests (no initialize), sent as MCP asks of a client, answered 2xx; or, in a 2025-03-26 session it had initialized, answered with an HTTP error status and JSON-RPC responses',
    judge(j) {
      const sessions = new SessionHistory(j);
      for (const ex of ordinaryMcpPosts(j)) {
        const calls = wellFormedCalls(ex);
        if (!calls || ex.status === undefined || !calls.some(isRequestMessage) || calls.some((m) => m.method === 'initialize') || sessions.laterRevision(ex)) continue;
        // In a session the client had initialized, an HTTP error answer too, when it answers the requests (below);
        // elsewhere a missing or ended session, or the lifecycle, may be refused first, so only an answer that took the input (2xx) is held to it.
        const served = ex.status >= 200 && ex.status < 300;
        if (!served && !sessions.inOperatingSession(ex)) continue;
        const sent = requestJson(ex);
        const only = isRecord(sent) ? sent : undefined;
        const what = only ? String(only.method) : `a batch of ${calls.length}`;
        // "The server MAY terminate the session at any time, after which it MUST respond … with HTTP 404 Not Found" (no content type named): an ending the traffic cannot show before it.
        if (ex.status === 404) {
          j.observe(`${what} answered 404`, 'the session ended', 'the server may terminate a session at any time, after which it answers 404');
          continue;
        }
        const type = mediaType(ex.responseHeaders);
        const framed = type === 'application/json' || type === 'text/event-stream';
        // The sentence frames the answer to the requests. MCP itself refuses requests with bare HTTP
        // statuses (400 without a session, 404 after one ended), and the gateway's failures are
        // application/problem+json (its per-principal 429): an HTTP error answer carrying no JSON-RPC
        // response refused the input rather than answering it. One carrying responses answers the
        // requests, and is held to the sentence.
        if (!served && !framed) {
          const carried = responsesShown(ex);
          if (carried === undefined) {
            j.lacks(ex, `whether the HTTP ${ex.status} answer carries JSON-RPC responses: its body is not there`);
            continue;
          }
          if (carried.length === 0) {
            j.observe(`${what} refused`, { status: ex.status, contentType: type || null }, 'an HTTP error answer without JSON-RPC refuses the requests; MCP frames only an answer to them');
            continue;
          }
        }
        if (!j.check(ex, framed, `${what} was answered HTTP ${ex.status}${served ? '' : ' with JSON-RPC responses'} with content-type "${type}", expected application/json or text/event-stream`)) continue;
        j.observe(`${what} framing`, type === 'text/event-stream' ? 'sse' : 'json');
        // What a single request's answer carries is judged on a 2xx; a batch's responses are mcp.batch.requests'.
        if (!only || !('id' in only) || ex.status < 200 || ex.status >= 300) continue;
        const found = answeredResponses(j, ex, [only.id]);
        // application/json carries "one JSON object"; an SSE stream only SHOULD carry the response
        // (mcp.sse.closes-after-response judges that), but what it carries must answer this request.
        if (!found || (type === 'text/event-stream' && found.length === 0)) continue;
        if (j.check(ex, found.length === 1, `${what} was answered with ${found.length} JSON-RPC responses, expected exactly one`))
          j.check(ex, found[0]?.id === only.id, `the response to ${what} carries id ${JSON.stringify(found[0]?.id)}, expected ${JSON.stringify(only.id)}`);
      }
    },
  }, (ex) => (responsesShown(ex)?.length ?? 0) > 0),
  async provoke(ctx: CheckContext) {
    await withSession(ctx, async (session) => {
      for (const method of ['ping', 'tools/list']) await postMcp(ctx, request(newRequestId(method.replace('/', '-')), method), { session, label: method });
    });
  },
});
