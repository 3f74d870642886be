/** Streamable HTTP > Sending Messages (SSE responses), Multiple Connections and Resumability and Redelivery (event ids). */
import { type CheckContext, type Exchange, pathOnly } from '../../../rule/index.ts';
import { limitAwareSection, stopIfLimited } from '../support/limiter.ts';
import { SESSION_HEADER } from '../../../contract/mcp/transport.ts';
import { isResponseLike } from '../../../contract/mcp/jsonrpc.ts';
import { isEventStream, keptEvents, requestBodyMissing } from '../../../traffic/read.ts';
import { canonicalJson } from '../../../util/json.ts';
import { answerMessages, isRequestMessage, mcpEndpoint, ordinaryMcpRequests, sentMessages, sessionKeyOf, type Message } from '../support/traffic.ts';
import { newRequestId, postMcp, request, responseTo, safeTool, SPEC_URL, withSession, type McpReply, type McpSession } from '../support/session.ts';

const rule = limitAwareSection({ surface: 'mcp', document: 'mcp-2025-03-26', needs: { credentials: ['mcp:primary'], fixtures: ['mcp.safeTool'] } });
/** A rule whose provocation does without the fixture tool (it streams pings then). */
const anyTarget = limitAwareSection({ surface: 'mcp', document: 'mcp-2025-03-26', needs: { credentials: ['mcp:primary'] } });

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
        // The answer to an initialize that assigns an Mcp-Session-Id opens that session, even one sent in another
        // (sessionKeyOf); a request naming none is taken to the session its answer names. Without a session, "all
        // streams with that specific client": one bucket per credential, never one for every client.
        const owner = sessionKeyOf(ex, ex.responseHeaders[SESSION_HEADER]);
        if (owner === 'hidden') {
          j.lacks(ex, 'its Mcp-Session-Id: the recorder replaced it with a marker, so its session is unknown');
          continue;
        }
        const ids = seen.get(owner.key) ?? new Map<string, Exchange>();
        seen.set(owner.key, ids);
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
      stopIfLimited(ctx, reply.res, 'tools/call');
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

/**
 * The request ids the client sent in each session (`sessionKeyOf`), with how often, and a POST of
 * the session whose body is not there to read: a response is one message only where its request
 * was sent once ("The request ID MUST NOT have been previously used by the requestor within the
 * same session" binds the client too, and a client that sent an id twice gets two answers).
 */
class ClientIds {
  private readonly counts = new Map<string, Map<string, number>>();
  private readonly unread = new Map<string, Exchange>();

  constructor(posts: readonly Exchange[]) {
    for (const ex of posts) {
      const owner = sessionKeyOf(ex);
      if (owner === 'hidden') continue;
      const sent = sentMessages(ex);
      if (sent === undefined) {
        if ((requestBodyMissing(ex) !== undefined || ex.requestBodyTruncated) && !this.unread.has(owner.key)) this.unread.set(owner.key, ex);
        continue;
      }
      const counts = this.counts.get(owner.key) ?? new Map<string, number>();
      this.counts.set(owner.key, counts);
      for (const m of sent) if (isRequestMessage(m)) counts.set(canonicalJson(m.id), (counts.get(canonicalJson(m.id)) ?? 0) + 1);
    }
  }

  /** How often the client sent request id `id` in session `key`, or `unread` when a POST of it is not there to count. */
  sent(key: string, id: string): number | { unread: Exchange } {
    const unread = this.unread.get(key);
    return unread ? { unread } : (this.counts.get(key)?.get(id) ?? 0);
  }
}

/**
 * What names one message across a session's streams: a request of the server's own by its id (in a
 * session, "The request ID MUST NOT have been previously used by the requestor within the same
 * session"), a response by the id of the request it answers. Without a session id, server request
 * ids name nothing: a server without sessions may count them afresh for every request (the SDK's
 * stateless servers do). Notifications carry no id, and two equal ones may be two messages.
 */
function messageName(m: Message, inSession: boolean): string | undefined {
  if (isRequestMessage(m)) return inSession ? `request ${canonicalJson(m.id)}` : undefined;
  if (isResponseLike(m) && (typeof m.id === 'string' || typeof m.id === 'number')) return `response ${canonicalJson(m.id)}`;
  return undefined;
}

export const noBroadcast = anyTarget({
  id: 'mcp.sse.no-broadcast',
  title: 'The server sends each of its JSON-RPC messages on one stream only: no request of its own nor response on two streams of a session',
  level: 'required',
  spec: {
    section: 'Transports > Streamable HTTP > Multiple Connections',
    quote: 'The server MUST send each of its JSON-RPC messages on only one of the connected streams; that is, it MUST NOT broadcast the same message across multiple streams.',
    url: SPEC_URL.transports,
  },
  judgement: {
    record:
      'two or more SSE streams of the MCP endpoint in one session (answers to POSTs, GET streams not resuming with Last-Event-ID), for an authorised client; without a session id, the streams of one client credential, where only responses name a message',
    none: 'the server opened no two SSE streams in one session (it answered with JSON, which MCP allows)',
    judge(j) {
      const ids = new ClientIds(ordinaryMcpRequests(j, 'POST'));
      const sessions = new Map<string, { streams: number; seen: Map<string, { ex: Exchange; text: string }> }>();
      for (const ex of ordinaryMcpRequests(j)) {
        // A GET with Last-Event-ID resumes a broken stream ("If the client wishes to resume after a broken connection, it SHOULD issue an HTTP GET … and include the Last-Event-ID header"): it continues that stream, whose messages it may redeliver.
        if ((ex.method !== 'POST' && ex.method !== 'GET') || ex.requestHeaders['last-event-id'] !== undefined) continue;
        if (ex.status === undefined || ex.status < 200 || ex.status >= 300 || !isEventStream(ex)) continue;
        const owner = sessionKeyOf(ex);
        if (owner === 'hidden') {
          j.lacks(ex, 'its Mcp-Session-Id: the recorder replaced it with a marker, so its session is unknown');
          continue;
        }
        const messages = answerMessages(ex);
        if (!messages) {
          j.lacks(ex, `the event stream: ${ex.responseBodyMissing ?? 'no body was kept'}`);
          continue;
        }
        const session = sessions.get(owner.key) ?? { streams: 0, seen: new Map() };
        sessions.set(owner.key, session);
        const here = new Set<string>();
        let held = true;
        for (const m of messages) {
          const name = messageName(m, owner.sessionId !== undefined);
          if (name === undefined || here.has(name)) continue;
          here.add(name);
          const text = canonicalJson(m);
          const before = session.seen.get(name);
          if (!before) {
            session.seen.set(name, { ex, text });
            continue;
          }
          // Another message under the same id reuses the id: another sentence's break, not one message sent twice.
          if (before.text !== text) {
            j.observe('a message id carried by two different messages in one session', { [name]: [before.ex.index, ex.index] }, 'not one message on two streams: only the same message is judged');
            continue;
          }
          if (isResponseLike(m)) {
            const sent = ids.sent(owner.key, canonicalJson(m.id));
            if (typeof sent !== 'number') {
              j.lacks(ex, `how often the client sent request id ${canonicalJson(m.id)}: the body of exchange #${sent.unread.index} was not kept`);
              continue;
            }
            // Sent twice, it was answered twice; sent before the journal began, how often is unknown.
            if (sent !== 1) continue;
          }
          const what = isResponseLike(m) ? `the response to request id ${canonicalJson(m.id)} (sent once)` : `the server's ${String(m.method)} request id ${canonicalJson(m.id)}`;
          held = j.check(ex, false, `${what} came on this stream and on the stream of exchange #${before.ex.index} of the same ${owner.sessionId === undefined ? 'client' : 'session'}: one message sent on two streams`, [before.ex]) && held;
        }
        if (held && session.streams > 0) j.check(ex, true, '');
        session.streams += 1;
      }
    },
  },
  async provoke(ctx: CheckContext) {
    // A tool run is what a server most often streams; without the fixture, pings, which any server may stream too.
    const tool = ctx.profile.fixtures.mcp.safeTool;
    await withSession(ctx, async (session) => {
      const message = () => (tool ? request(newRequestId('call'), 'tools/call', { name: tool.name, arguments: tool.arguments }) : request(newRequestId('ping'), 'ping'));
      await Promise.all([1, 2].map((n) => postMcp(ctx, message(), { session, label: `${tool ? 'tools/call' : 'ping'} #${n} of two sent at once` })));
    });
  },
});
