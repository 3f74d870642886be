/** Base Protocol > Batching, as carried by Streamable HTTP POST bodies (revision 2025-03-26). */
import fc from 'fast-check';
import { type CheckContext, type Exchange, mediaType } from '../../../rule/index.ts';
import { limitAwareSection } from '../support/limiter.ts';
import { endedStream, requestJson, wholeBody } from '../../../traffic/read.ts';
import { answeredResponses, isHttpErrorStatus, isRequestMessage, ordinaryMcpPosts, sentAsClientsMust, sentMessages, stillOwed, wellFormedCalls, type Message } from '../support/traffic.ts';
import { SessionHistory } from '../support/session-history.ts';
import { SESSION_HEADER } from '../../../contract/mcp/transport.ts';
import { INVALID_REQUEST, isResponseLike } from '../../../contract/mcp/jsonrpc.ts';
import { parseJson } from '../../../util/json.ts';
import { errorOf, isObject, isUnattributed, newRequestId, notification, postMcp, request, SPEC_URL, withSession } from '../support/session.ts';

const rule = limitAwareSection({ surface: 'mcp', document: 'mcp-2025-03-26', needs: { credentials: ['mcp:primary'] } });

/** An event carrying a JSON-RPC response (alone or in an array): what an answer to a batch is made of. */
function carriesResponse(e: { data: string }): boolean {
  const parsed = parseJson(e.data);
  return parsed.ok && (Array.isArray(parsed.value) ? parsed.value : [parsed.value]).some(isResponseLike);
}

const MUST_RECEIVE_BATCHES = 'MCP implementations MAY support sending JSON-RPC batches, but MUST support receiving JSON-RPC batches.';

function cancelled(): Record<string, unknown> {
  return notification('notifications/cancelled', { requestId: newRequestId('never-sent'), reason: 'apicert batch probe' });
}

/** One element of a generated batch: a request (answered) or a notification (not answered). */
type Element = 'ping' | 'tools/list' | 'notification';

const idKey = (id: unknown) => `${typeof id}:${String(id)}`;

/**
 * The batches that repeat a request id, within the batch or from an earlier POST of the same
 * session ("The request ID MUST NOT have been previously used by the requestor within the same
 * session"): what a server answers to a client breaking that MUST is open. Session-less POSTs are
 * one session per caller.
 */
function repeatingIds(posts: readonly Exchange[], callsOf: (ex: Exchange) => readonly Message[] | undefined): Set<Exchange> {
  const used = new Map<string, Set<string>>();
  const repeating = new Set<Exchange>();
  for (const ex of posts) {
    const ids = (callsOf(ex) ?? []).filter(isRequestMessage).map((m) => idKey(m.id));
    if (ids.length === 0) continue;
    const session = ex.requestHeaders[SESSION_HEADER] ?? `caller:${ex.requestHeaders.authorization ?? ''}`;
    const before = used.get(session) ?? new Set<string>();
    used.set(session, before);
    if (new Set(ids).size !== ids.length || ids.some((id) => before.has(id))) repeating.add(ex);
    for (const id of ids) before.add(id);
  }
  return repeating;
}

const batches: fc.Arbitrary<Element[]> = fc
  .array(fc.constantFrom<Element>('ping', 'tools/list', 'notification'), { minLength: 1, maxLength: 6 })
  .filter((b) => b.some((e) => e !== 'notification'));

export const batchRequests = rule({
  id: 'mcp.batch.requests',
  title: 'A batch gets exactly one response per request it carries, with their ids, and none for its notifications',
  level: 'required',
  spec: {
    section: 'Base Protocol > Batching; Transports > Sending Messages to the Server',
    quote: `${MUST_RECEIVE_BATCHES} … An array batching one or more requests and/or notifications`,
    url: SPEC_URL.base,
  },
  judgement: {
    record:
      'a batch of well-formed requests and notifications (at least one request, no initialize, no request id used before in the batch or the session), POSTed by an authorised client in a 2025-03-26 session it had initialized',
    judge(j) {
      const sessions = new SessionHistory(j);
      const framings = new Set<string>();
      const posts = ordinaryMcpPosts(j);
      const repeating = repeatingIds(posts, (ex) => (Array.isArray(requestJson(ex)) ? wellFormedCalls(ex) : (sentMessages(ex) ?? [])));
      for (const ex of posts) {
        const calls = Array.isArray(requestJson(ex)) ? wellFormedCalls(ex) : undefined;
        // "The initialize request MUST NOT be part of a JSON-RPC batch": such a batch is another question; so is one repeating a request id.
        if (!calls || ex.status === undefined || calls.some((m) => m.method === 'initialize') || !calls.some(isRequestMessage) || repeating.has(ex) || !sessions.inOperatingSession(ex)) continue;
        const shape = calls.map((m) => String(m.method).slice(0, 40)).join(', ');
        if (!j.check(ex, ex.status >= 200 && ex.status < 300, `the batch [${shape}] was answered HTTP ${ex.status}, expected a 2xx`)) continue;
        const answered = answeredResponses(j, ex);
        if (!answered) continue;
        framings.add(mediaType(ex.responseHeaders) || 'untyped');
        const requests = calls.filter(isRequestMessage);
        const ids = requests.map((m) => idKey(m.id));
        const got = answered.map((m) => idKey(m.id));
        const missing = ids.filter((id) => got.filter((g) => g === id).length !== 1);
        const extra = got.filter((g) => !ids.includes(g));
        // A response read twice, or for no request sent, fails however the stream ended; one not read yet on a stream its reader
        // stopped may still come (the answer is read up to the response to each request).
        const unread = requests.filter((m) => !got.includes(idKey(m.id))).map((m) => m.id);
        if (extra.length === 0 && missing.length === unread.length && stillOwed(j, ex, answered, unread)) continue;
        j.check(ex, missing.length === 0 && extra.length === 0, `the batch [${shape}] was answered with responses ${JSON.stringify(answered.map((m) => m.id))}, expected exactly one for each of ${JSON.stringify(calls.filter(isRequestMessage).map((m) => m.id))}`);
      }
      if (framings.size > 0) j.observe('batch answers framed as', [...framings]);
    },
  },
  async provoke(ctx: CheckContext) {
    await withSession(ctx, async (session) => {
      // The property only sends; the judgement judges every answer (each broken one a failing case naming its exchange).
      await ctx.property(
        batches,
        async (shape) => {
          const body = shape.map((e) => (e === 'notification' ? cancelled() : request(newRequestId('batch'), e)));
          await postMcp(ctx, body, { session, label: `batch [${shape.join(', ')}]` });
        },
        { numRuns: 25, examples: [['ping', 'tools/list'], ['ping', 'notification'], ['notification', 'tools/list', 'notification', 'ping']] },
      );
    });
  },
});

export const batchNotifications202 = rule({
  id: 'mcp.batch.notifications-202',
  title: 'A batch carrying only notifications is answered 202 Accepted with no body (or refused with an HTTP error status when the server cannot accept one of them)',
  level: 'required',
  spec: {
    section: 'Base Protocol > Batching; Transports > Sending Messages to the Server',
    quote: `${MUST_RECEIVE_BATCHES} … If the input consists solely of (any number of) JSON-RPC responses or notifications: If the server accepts the input, the server MUST return HTTP status code 202 Accepted with no body. … If the server cannot accept the input, it MUST return an HTTP error status code (e.g., 400 Bad Request).`,
    url: SPEC_URL.transports,
  },
  judgement: {
    record: 'a batch of well-formed notifications only, POSTed by an authorised client in a 2025-03-26 session the server had opened and not ended',
    judge(j) {
      const sessions = new SessionHistory(j);
      for (const ex of ordinaryMcpPosts(j)) {
        const calls = Array.isArray(requestJson(ex)) ? wellFormedCalls(ex) : undefined;
        if (!calls || ex.status === undefined || calls.some(isRequestMessage) || !sessions.inOpenSession(ex) || sessions.laterRevision(ex)) continue;
        const what = `a batch of ${calls.map((m) => String(m.method).slice(0, 40)).join(', ')}`;
        // A server may refuse to cancel a request it never saw; it cannot refuse notifications/initialized and stay usable.
        const mayRefuse = !calls.every((m) => m.method === 'notifications/initialized');
        if (mayRefuse && isHttpErrorStatus(ex.status)) {
          j.observe(`${what} refused`, ex.status, 'the server may refuse input it cannot accept with an HTTP error status');
          continue;
        }
        if (!j.check(ex, ex.status === 202, `${what} was answered HTTP ${ex.status}, expected 202 Accepted`)) continue;
        const body = wholeBody(j, ex);
        if (body !== undefined) j.check(ex, body.length === 0, `${what} was answered with a body (${body.length} characters), expected none`);
      }
    },
  },
  async provoke(ctx: CheckContext) {
    // A session not yet initialized, so the batch can carry the lifecycle's own notification.
    await withSession(
      ctx,
      async (session) => {
        const both = 'a batch of notifications/initialized and notifications/cancelled';
        const reply = await postMcp(ctx, [notification('notifications/initialized'), cancelled()], { session, label: both });
        // Refused as a whole with an HTTP error status (which the server may): the lifecycle's notification alone it must accept.
        if (isHttpErrorStatus(reply.res.status) && reply.res.status !== 404) await postMcp(ctx, [notification('notifications/initialized')], { session, label: 'a batch carrying only notifications/initialized' });
      },
      { sendInitialized: false },
    );
  },
});

/** What a batch carried, counted as JSON-RPC counts it: a request has an id, a notification has none ("a batch of 1 request and 1 notification"). */
function batchOf(sent: readonly unknown[]): string {
  const calls = sent.filter((m): m is Record<string, unknown> => isObject(m) && typeof m.method === 'string');
  const requests = calls.filter((m) => 'id' in m).length;
  const notifications = calls.length - requests;
  const other = sent.length - calls.length;
  const parts = [`${requests} request${requests === 1 ? '' : 's'}`];
  if (notifications > 0) parts.push(`${notifications} notification${notifications === 1 ? '' : 's'}`);
  if (other > 0) parts.push(`${other} other element${other === 1 ? '' : 's'}`);
  return `a batch of ${parts.join(' and ')}`;
}

const BATCH_ANSWER =
  'The Server should respond with an Array containing the corresponding Response objects, after all of the batch Request objects have been processed.';

export const answerArray = rule({
  id: 'mcp.batch.answer-array',
  title: 'A batch answered as one JSON body is answered with a JSON array, even when it carries a single request (SHOULD)',
  // JSON-RPC 2.0's "should", and no MCP sentence makes it a MUST (its transport asks only for "one JSON object"): a warning, gating only with --strict.
  level: 'should',
  spec: {
    section: 'Base Protocol > Batching (JSON-RPC 2.0: Batch; schema JSONRPCBatchResponse)',
    // The MCP 2025-03-26 schema types the answer to a batch as JSONRPCBatchResponse, an array.
    quote: `${MUST_RECEIVE_BATCHES} … (JSON-RPC 2.0) ${BATCH_ANSWER}`,
    url: SPEC_URL.base,
  },
  judgement: {
    record: 'a POST to the MCP endpoint carrying a batch (an array) with requests, answered 2xx as JSON',
    none: 'the server answered every batch on an SSE stream, where responses may be sent one per event',
    judge(j) {
      for (const ex of ordinaryMcpPosts(j)) {
        const sent = requestJson(ex);
        if (!Array.isArray(sent) || !sent.some((m) => isObject(m) && typeof m.method === 'string' && 'id' in m) || ex.status === undefined || ex.status < 200 || ex.status >= 300) continue;
        const type = mediaType(ex.responseHeaders);
        const what = batchOf(sent);
        j.observe(`${what} framed as`, type === 'text/event-stream' ? 'sse' : type);
        // "These responses MAY be batched": on an SSE stream each response may be an event of its own.
        if (type === 'text/event-stream') continue;
        const text = wholeBody(j, ex);
        if (text === undefined) continue;
        const parsed = parseJson(text);
        const value = parsed.ok ? parsed.value : undefined;
        j.check(ex, Array.isArray(value), `${what} was answered HTTP ${ex.status} with ${value === undefined ? 'a body that is not JSON' : `a JSON ${typeof value === 'object' && value !== null ? 'object' : typeof value}`}, expected a JSON array of responses`);
      }
    },
  },
  async provoke(ctx: CheckContext) {
    await withSession(ctx, async (session) => {
      for (const size of [1, 2]) {
        const ids = Array.from({ length: size }, () => newRequestId('batch'));
        await postMcp(ctx, ids.map((id) => request(id, 'ping')), { session, label: `batch of ${size} ping(s)` });
      }
    });
  },
});

export const emptyBatch = rule({
  id: 'mcp.batch.empty',
  title: 'An empty batch [] is answered 202 with no body, refused with an HTTP error status, or answered with a single JSON-RPC error -32600 (Invalid Request), never an array',
  level: 'required',
  spec: {
    section: 'Base Protocol > Messages (JSON-RPC 2.0: Batch); Transports > Sending Messages to the Server',
    quote:
      'All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification. … (JSON-RPC 2.0) If the batch rpc call itself fails to be recognized as an valid JSON or as an Array with at least one value, the response from the Server MUST be a single Response object. … If the input consists solely of (any number of) JSON-RPC responses or notifications: If the server accepts the input, the server MUST return HTTP status code 202 Accepted with no body. … If the server cannot accept the input, it MUST return an HTTP error status code (e.g., 400 Bad Request).',
    url: SPEC_URL.base,
  },
  judgement: {
    record: 'an empty batch [] POSTed to the MCP endpoint by an authorised client, sent as MCP asks of a client in a session the server had opened and not ended',
    judge(j) {
      const sessions = new SessionHistory(j);
      for (const ex of ordinaryMcpPosts(j)) {
        const sent = requestJson(ex);
        if (!Array.isArray(sent) || sent.length !== 0 || ex.status === undefined) continue;
        // A wrong Accept or a missing or ended session may be refused before the body is read.
        if (!sentAsClientsMust(ex) || !sessions.inOpenSession(ex)) continue;
        j.observe('HTTP status of an empty batch', ex.status);
        // [] is "solely of (any number of)" notifications too, zero of them: MCP's 202 with no body, as the TypeScript SDK answers.
        if (ex.status === 202) {
          const body = wholeBody(j, ex);
          if (body !== undefined) j.check(ex, body.length === 0, `an empty batch was answered 202 with a body (${body.length} characters), expected none`);
          continue;
        }
        const refused = isHttpErrorStatus(ex.status);
        let value: unknown;
        if (mediaType(ex.responseHeaders) === 'text/event-stream') {
          // Whether it carried one Response object or more is a fact of the whole stream: a stream not kept whole, or one its reader
          // stopped before any response came (nothing tells the reader when an answer to [] is complete), is lacked, never read as [].
          const stream = endedStream(j, ex, carriesResponse);
          if (!stream) continue;
          const messages = stream.events.flatMap((e) => {
            const parsed = parseJson(e.data);
            return parsed.ok ? [parsed.value] : [];
          });
          value = messages.length === 1 ? messages[0] : messages;
        } else {
          const text = wholeBody(j, ex);
          if (text === undefined) continue;
          const parsed = parseJson(text);
          value = parsed.ok ? parsed.value : undefined;
        }
        if (!j.check(ex, !Array.isArray(value), `an empty batch was answered HTTP ${ex.status} with an array ${JSON.stringify(value)?.slice(0, 200)}, expected a single Response object`)) continue;
        // "it MUST return an HTTP error status code": the body of the refusal is open ("MAY comprise a JSON-RPC error response that has no id").
        if (refused) continue;
        if (!j.check(ex, value !== undefined, `an empty batch was answered HTTP ${ex.status} without a JSON body, expected 202 with no body, an HTTP error status, or a single JSON-RPC error -32600`)) continue;
        const error = errorOf(isObject(value) ? value : undefined);
        j.check(ex, error?.code === INVALID_REQUEST, `an empty batch was answered HTTP ${ex.status} with ${JSON.stringify(value)?.slice(0, 200)}, expected 202 with no body, an HTTP error status, or a single JSON-RPC error -32600 (Invalid Request)`);
        j.check(ex, isObject(value) && isUnattributed(value), `the error for an empty batch carries id ${JSON.stringify(isObject(value) ? value.id : undefined)}, expected null or no id`);
      }
    },
  },
  async provoke(ctx: CheckContext) {
    await withSession(ctx, async (session) => {
      await postMcp(ctx, [], { session, label: 'an empty batch []' });
    });
  },
});
