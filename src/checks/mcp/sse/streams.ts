/** Streamable HTTP > Sending Messages (SSE responses) and Resumability and Redelivery (event ids). */
import { type CheckContext, type Exchange, pathOnly, section } from '../../../rule/index.ts';
import { SESSION_HEADER } from '../../../contract/mcp/transport.ts';
import { isEventStream, keptEvents } from '../../../traffic/read.ts';
import { mcpEndpoint, sentMessages, sessionUnknown } from '../support/traffic.ts';
import { newRequestId, postMcp, request, responseTo, safeTool, SPEC_URL, withSession, type McpReply, type McpSession } from '../support/session.ts';

const rule = section({ surface: 'mcp', document: 'mcp-2025-03-26', needs: { credentials: ['mcp:primary'], fixtures: ['mcp.safeTool'] } });

/** Calls the fixture tool; with `progress`, a streaming server has a reason to send more than one event. */
async function callTool(ctx: CheckContext, session: McpSession, label: string, options: { progress: boolean; awaitClose?: boolean }): Promise<McpReply & { requestId: string }> {
  const tool = safeTool(ctx);
  const id = newRequestId('call');
  const params: Record<string, unknown> = { name: tool.name, arguments: tool.arguments };
  if (options.progress) params._meta = { progressToken: newRequestId('progress') };
  const post: Parameters<typeof postMcp>[2] = { session, label, awaitClose: options.awaitClose ?? false };
  return { ...(await postMcp(ctx, request(id, 'tools/call', params), post)), requestId: id };
}

export const eventIdsUnique = rule({
  id: 'mcp.sse.event-ids-unique',
  title: 'SSE event ids, where present, are unique across every stream of a session',
  level: 'required',
  spec: {
    section: 'Transports > Resumability and Redelivery',
    quote: 'If present, the ID MUST be globally unique across all streams within that session—or all streams with that specific client, if session management is not in use.',
    url: SPEC_URL.transports,
  },
  judgement: {
    record: 'SSE streams from the MCP endpoint whose events carry ids, in one session',
    none: 'the server answered with no SSE stream whose events carry ids (a JSON body, or events without ids, which MCP allows: "If present")',
    judge(j) {
      const seen = new Map<string, Map<string, Exchange>>();
      const endpoint = mcpEndpoint(j);
      for (const ex of j.exchanges) {
        if (pathOnly(ex) !== endpoint || ex.status !== 200 || !isEventStream(ex)) continue;
        // An id recorded was sent, and one used twice within what was kept is used twice: the events
        // kept of a stream the client broke off (a GET stream it closed) are judged as they are.
        const events = keptEvents(j, ex);
        if (!events) continue;
        // The answer to an initialize that assigns an Mcp-Session-Id opens that session ("by including it in an
        // Mcp-Session-Id header on the HTTP response containing the InitializeResult"), even one sent in another session.
        const assigned = (sentMessages(ex) ?? []).some((m) => m.method === 'initialize') ? ex.responseHeaders[SESSION_HEADER] : undefined;
        const id = assigned ?? ex.requestHeaders[SESSION_HEADER] ?? ex.responseHeaders[SESSION_HEADER];
        // Without a session, "all streams with that specific client": one bucket per credential, never one for every client.
        const session = id === undefined ? `client:${ex.credential ?? ex.requestHeaders.authorization ?? ''}` : `session:${id}`;
        if (id !== undefined && sessionUnknown(id)) {
          j.lacks(ex, 'its Mcp-Session-Id: the recorder replaced it with a marker, so its session is unknown');
          continue;
        }
        const ids = seen.get(session) ?? new Map<string, Exchange>();
        seen.set(session, ids);
        for (const e of events) {
          if (e.id === undefined || e.id === '') continue;
          const before = ids.get(e.id);
          j.check(ex, before === undefined, `event id ${e.id} was already used${before && before.index !== ex.index ? ` on the stream of exchange #${before.index}` : ' on this stream'} in the same session`, before ? [before] : []);
          ids.set(e.id, ex);
        }
      }
    },
  },
  async provoke(ctx: CheckContext) {
    await withSession(ctx, async (session) => {
      for (let i = 1; i <= 3; i += 1) await callTool(ctx, session, `tools/call #${i} (with a progress token)`, { progress: true });
    });
  },
});

export const closesAfterResponse = rule({
  id: 'mcp.sse.closes-after-response',
  title: 'An SSE response carries the response to its request and the server closes it after that last response (SHOULD)',
  level: 'should',
  spec: {
    section: 'Transports > Sending Messages to the Server',
    quote:
      'The SSE stream SHOULD eventually include one JSON-RPC response per each JSON-RPC request sent in the POST body. … After all JSON-RPC responses have been sent, the server SHOULD close the SSE stream.',
    url: SPEC_URL.transports,
  },
  activeOnly: 'a recording keeps the events of a stream, not whether the server closed it after its last response (the probe waits up to safety.streamTimeoutMs to see it)',
  async check(ctx: CheckContext) {
    await withSession(ctx, async (session) => {
      const reply = await callTool(ctx, session, 'tools/call (read until the server closes)', { progress: false, awaitClose: true });
      if (reply.kind !== 'sse') ctx.notApplicable(`the server answered tools/call with ${reply.mediaType || 'no content type'}, not an SSE stream`);
      const answered = responseTo(reply, reply.requestId) !== undefined;
      // "SHOULD eventually include" sets no time: a stream apicert's reader stopped before the response has not ended without it.
      if (!answered && reply.end !== undefined && reply.end !== 'server') ctx.inconclusive(`apicert's reader stopped the SSE stream (${reply.end}) before any response to tools/call ${reply.requestId}: the response may yet come ("SHOULD eventually include"; safety.streamTimeoutMs lengthens the read)`);
      ctx.expect(answered, `the SSE stream ended (${reply.end ?? 'closed'}) without a response to tools/call ${reply.requestId}`);
      // "SHOULD close" sets no time, so no wait of apicert's own (safety.streamCloseGraceMs) decides it: the read goes on to
      // the stream timeout, and only a stream still open then has not met the SHOULD.
      const timeout = ctx.profile.safety.streamTimeoutMs;
      if (reply.end !== 'server' && reply.end !== 'timeout') ctx.inconclusive(`apicert's reader stopped the SSE stream (${reply.end}) after the response to tools/call, before the server closed it or safety.streamTimeoutMs (${timeout} ms) ran out`);
      ctx.expect(reply.end === 'server', `the SSE stream was still open when apicert's stream timeout ran out (safety.streamTimeoutMs: ${timeout} ms from the request), after the response to tools/call; MCP sets no time for the close, so a longer safety.streamTimeoutMs waits longer`, reply.res);
      ctx.observe('events on the tools/call stream', reply.events.length);
      if (reply.closeAfterResponseMs !== undefined) ctx.observe('close after the response (ms)', reply.closeAfterResponseMs);
    });
  },
});
