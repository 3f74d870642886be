/** Base Protocol > Messages: JSON-RPC 2.0 errors, ids and the result/error exclusivity. */
import fc from 'fast-check';
import { type CheckContext, type Exchange, mediaType } from '../../../rule/index.ts';
import { limitAwareSection } from '../support/limiter.ts';
import { INVALID_PARAMS, INVALID_REQUEST, jsonrpcResponse, METHOD_NOT_FOUND, PARSE_ERROR, type RequestId } from '../../../contract/mcp/jsonrpc.ts';
import {
  closeSession,
  errorOf,
  isUnattributed,
  newRequestId,
  openSession,
  postMcp,
  postRaw,
  request,
  SPEC_URL,
  withSession,
} from '../support/session.ts';
import { answeredResponses, isRequestMessage, isWellFormedCall, mcpPosts, ordinaryMcpPosts, responsesShown, sentAsClientsMust, sentMessages, wellFormedCalls } from '../support/traffic.ts';
import { initializeResultOf, SessionHistory } from '../support/session-history.ts';
import { mcpOperation } from '../../../contract/endpoints.ts';
import { bodyJson, issuesOf, requestBodyMissing, requestJson } from '../../../traffic/read.ts';
import { isRecord, noParserReads } from '../../../util/json.ts';
import { mcpExtensionMayRead } from '../../generated/expectation.ts';

const rule = limitAwareSection({ surface: 'mcp', document: 'mcp-2025-03-26', needs: { credentials: ['mcp:primary'] } });

const FOLLOW_JSONRPC = 'All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification.';

/** JSON that is no JSON-RPC 2.0 message: not an object, without "jsonrpc": "2.0", a method that is not a string, or neither method nor result nor error. */
function notJsonRpc(value: unknown): boolean {
  if (!isRecord(value) || value.jsonrpc !== '2.0') return true;
  if ('method' in value) return typeof value.method !== 'string';
  return !('result' in value) && !('error' in value);
}

export const parseError = rule({
  id: 'mcp.jsonrpc.parse-error',
  title: 'A body that is not JSON is answered with a JSON-RPC error -32700 whose id is null or absent',
  level: 'required',
  spec: { section: 'Base Protocol > Messages (JSON-RPC 2.0: Parse error -32700)', quote: FOLLOW_JSONRPC, url: SPEC_URL.base },
  judgement: {
    record: 'a POST to the MCP endpoint whose body is not JSON, nor JSON after a leading byte order mark, and no parser extension could read it (text cut short, or no object or batch at all), sent as MCP asks of a client (Content-Type application/json, an Accept listing both types) in a session the server had opened and not ended, answered',
    judge(j) {
      const sessions = new SessionHistory(j);
      for (const ex of ordinaryMcpPosts(j)) {
        // Chosen by what was sent: a body that is not JSON (an empty body is another mistake).
        if (ex.requestBody === undefined || ex.requestBody.trim() === '' || ex.status === undefined) continue;
        // MCP names no order between its checks: a wrong Accept or a missing or ended session may be refused before the body is read.
        if (!sentAsClientsMust(ex) || !sessions.inOpenSession(ex)) continue;
        if (requestBodyMissing(ex) !== undefined) continue;
        if (bodyJson(ex, 'request', ex.requestBody) !== undefined) continue;
        // JSON past the depth this parse stops at, or led by a byte order mark a parser "MAY ignore" (RFC 8259 8.1), is no parse error.
        if (!noParserReads(ex.requestBody)) continue;
        // Near-JSON (a trailing comma) a parser's extension may read is open, as the generated rules judge it.
        if (mcpExtensionMayRead(ex.requestBody)) continue;
        // Its error may come later on a stream its reader stopped (no id to wait for: the probe reads until the server ends it).
        const answered = answeredResponses(j, ex, 'one');
        if (!answered) continue;
        const found = answered.find((m) => 'error' in m);
        const error = errorOf(found);
        if (!j.check(ex, found !== undefined && error !== undefined, `a body that is not JSON was answered HTTP ${ex.status} without a JSON-RPC error, expected an error with code -32700`) || !found || !error) continue;
        j.check(ex, error.code === PARSE_ERROR, `a body that is not JSON was answered with error code ${JSON.stringify(error.code)}, expected -32700 (Parse error)`);
        j.check(ex, isUnattributed(found), `the parse error carries id ${JSON.stringify(found.id)}, expected null or no id (the id could not be read)`);
        j.observe('id of a parse error', 'id' in found ? null : 'absent');
        j.observe('HTTP status of a parse error', ex.status);
      }
    },
  },
  async provoke(ctx: CheckContext) {
    await withSession(ctx, async (session) => {
      for (const raw of ['{"jsonrpc": "2.0", "id": "apicert-1", "method": "ping"', 'this is not json']) await postRaw(ctx, raw, { session, label: 'POST a body that is not JSON' });
    });
  },
});

export const invalidRequest = rule({
  id: 'mcp.jsonrpc.invalid-request',
  title: 'JSON that is not a valid JSON-RPC request is answered with error -32600, never served',
  level: 'required',
  spec: { section: 'Base Protocol > Messages (JSON-RPC 2.0: Invalid Request -32600)', quote: FOLLOW_JSONRPC, url: SPEC_URL.base },
  judgement: {
    record: 'a POST to the MCP endpoint by an authorised client whose body is JSON but not a JSON-RPC 2.0 message (no "jsonrpc": "2.0", a method that is not a string, a bare value), sent as MCP asks of a client in a session the server had opened and not ended',
    judge(j) {
      const sessions = new SessionHistory(j);
      for (const ex of ordinaryMcpPosts(j)) {
        const sent = requestJson(ex);
        if (ex.status === undefined || sent === undefined || Array.isArray(sent) || !notJsonRpc(sent)) continue;
        // As for parse-error: a refusal of the transport (Accept, session) may come before the message is read.
        if (!sentAsClientsMust(ex) || !sessions.inOpenSession(ex)) continue;
        const what = isRecord(sent) ? `a message ${JSON.stringify(sent).slice(0, 80)}` : `a bare ${typeof sent}`;
        const answered = answeredResponses(j, ex, 'one');
        if (!answered) continue;
        const found = answered.find((m) => 'error' in m);
        const error = errorOf(found);
        if (!j.check(ex, found !== undefined && error !== undefined, `${what} was answered HTTP ${ex.status} without a JSON-RPC error, expected an error with code -32600`) || !found || !error) continue;
        j.check(ex, error.code === INVALID_REQUEST, `${what} was answered with error code ${JSON.stringify(error.code)}, expected -32600 (Invalid Request)`);
        const sentId = isRecord(sent) ? sent.id : undefined;
        j.check(ex, isUnattributed(found) || found.id === sentId, `the error for ${what} carries id ${JSON.stringify(found.id)}, expected null, no id or the id sent`);
        j.observe('HTTP status for JSON that is not JSON-RPC', ex.status);
      }
    },
  },
  async provoke(ctx: CheckContext) {
    await withSession(ctx, async (session) => {
      const id = () => newRequestId('invalid');
      const cases: Array<[string, unknown]> = [
        ['a request without "jsonrpc"', { id: id(), method: 'ping' }],
        ['a request with "jsonrpc": "1.0"', { jsonrpc: '1.0', id: id(), method: 'ping' }],
        ['a request whose method is a number', { jsonrpc: '2.0', id: id(), method: 42 }],
        ['a bare number', 42],
      ];
      for (const [what, body] of cases) await postMcp(ctx, body, { session, label: `POST ${what}` });
    });
  },
});

export const methodNotFound = rule({
  id: 'mcp.jsonrpc.method-not-found',
  title: 'A request for a method the server does not have is answered with error -32601',
  level: 'required',
  spec: { section: 'Base Protocol > Messages (JSON-RPC 2.0: Method not found -32601)', quote: FOLLOW_JSONRPC, url: SPEC_URL.base },
  judgement: {
    record: 'a well-formed JSON-RPC request for a method MCP 2025-03-26 does not define, POSTed by an authorised client in a session it had initialized',
    judge(j) {
      const sessions = new SessionHistory(j);
      for (const ex of ordinaryMcpPosts(j)) {
        const calls = wellFormedCalls(ex);
        // In an operating session, so no session or lifecycle refusal stands in the way; any method outside the revision's is one the server does not have.
        if (!calls || ex.status === undefined || !sessions.inOperatingSession(ex)) continue;
        const unknown = calls.filter((m) => isRequestMessage(m) && mcpOperation(String(m.method)) === 'mcp.unknown-method');
        if (unknown.length === 0) continue;
        const answered = answeredResponses(j, ex, unknown.map((m) => m.id));
        if (!answered) continue;
        for (const m of unknown) {
          const method = String(m.method).slice(0, 60);
          const reply = answered.find((r) => r.id === m.id);
          const code = errorOf(reply)?.code;
          j.check(ex, code === METHOD_NOT_FOUND, `a request for the unknown method ${method} was answered ${reply ? `with ${code === undefined ? 'a result' : `error code ${JSON.stringify(code)}`}` : `HTTP ${ex.status} without a response carrying its id`}, expected -32601 (Method not found)`);
        }
      }
    },
  },
  async provoke(ctx: CheckContext) {
    await withSession(ctx, async (session) => {
      await postMcp(ctx, request(newRequestId('no-such-method'), 'apicert/no-such-method', {}), { session, label: 'a request for apicert/no-such-method' });
    });
  },
});

export const invalidParams = rule({
  id: 'mcp.jsonrpc.invalid-params',
  title: 'tools/call without a tool name, or with a name that is not a string, is answered with error -32602',
  level: 'required',
  spec: { section: 'Base Protocol > Messages (JSON-RPC 2.0: Invalid params -32602)', quote: FOLLOW_JSONRPC, url: SPEC_URL.base },
  judgement: {
    record:
      'a tools/call request without a string "name" in its params, POSTed to the MCP endpoint as MCP asks of a client by an authorised client, in a 2025-03-26 session it had initialized (a session whose InitializeResult declared no tools may answer -32601 instead)',
    judge(j) {
      const sessions = new SessionHistory(j);
      for (const ex of ordinaryMcpPosts(j)) {
        // Before the operation phase, or outside a session, a server may refuse the request as a whole (the lifecycle, the transport).
        if (ex.status === undefined || !sentAsClientsMust(ex) || !sessions.inOperatingSession(ex)) continue;
        let tools: boolean | undefined;
        for (const m of sentMessages(ex) ?? []) {
          if (m.method !== 'tools/call' || !('id' in m) || (isRecord(m.params) && typeof m.params.name === 'string')) continue;
          tools ??= declaresTools(sessions.openedBy(ex));
          if (tools === undefined) {
            j.lacks(ex, 'the InitializeResult of its session (whether the server declared tools)');
            continue;
          }
          const answered = answeredResponses(j, ex, [m.id]);
          if (!answered) continue;
          const reply = answered.find((r) => r.id === m.id);
          const code = errorOf(reply)?.code;
          // Capabilities are negotiated: a server that declared no tools has no tools/call method, so -32601 (Method not found) is its answer too.
          const allowed = tools ? [INVALID_PARAMS] : [INVALID_PARAMS, METHOD_NOT_FOUND];
          j.check(
            ex,
            allowed.includes(code as number),
            `tools/call with params ${JSON.stringify(m.params)?.slice(0, 80)} was answered ${reply ? `with ${code === undefined ? 'a result' : `error code ${JSON.stringify(code)}`}` : `HTTP ${ex.status} without a response carrying its id`}, expected -32602 (Invalid params)${tools ? '' : ' or, as the server declared no tools, -32601 (Method not found)'}`,
          );
        }
      }
    },
  },
  async provoke(ctx: CheckContext) {
    await withSession(ctx, async (session) => {
      for (const [what, params] of [
        ['tools/call without "name"', { arguments: {} }],
        ['tools/call with a numeric "name"', { name: 42, arguments: {} }],
      ] as const) {
        await postMcp(ctx, request(newRequestId('params'), 'tools/call', params), { session, label: what });
      }
    });
  },
});

/** Whether the InitializeResult of a session's opening declared the tools capability; undefined when that answer is not known. */
function declaresTools(opening: Exchange | undefined): boolean | undefined {
  const result = opening ? initializeResultOf(opening) : undefined;
  if (!result) return undefined;
  return isRecord(result.capabilities) && isRecord(result.capabilities.tools);
}

export const resultXorError = rule({
  id: 'mcp.jsonrpc.result-xor-error',
  title: 'Every response is JSON-RPC 2.0 with exactly one of result and error; errors carry an integer code and a message',
  level: 'required',
  spec: {
    section: 'Base Protocol > Messages > Responses',
    quote: 'Either a result or an error MUST be set. A response MUST NOT set both. … errors MUST include an error code and message at minimum. … Error codes MUST be integers.',
    url: SPEC_URL.base,
  },
  judgement: {
    record: 'a POST to the MCP endpoint answered with a JSON-RPC response',
    judge(j) {
      for (const ex of mcpPosts(j)) {
        if (ex.status === undefined) continue;
        let nullIdSent: boolean | undefined;
        for (const m of answeredResponses(j, ex) ?? []) {
          // An HTTP error's own body (`{"error": "Bad Request", ...}`) is no JSON-RPC message: MCP lets a server refuse input with
          // "an HTTP error status code", and parse-error and invalid-request judge what such a refusal carries.
          if ((ex.status < 200 || ex.status >= 300) && !('jsonrpc' in m)) continue;
          const parsed = jsonrpcResponse.safeParse(m);
          if (!j.check(ex, parsed.success, parsed.success ? '' : `a response ${shownResponse(m)} is not a JSON-RPC 2.0 response with exactly one of result and error: ${issuesOf(parsed.error)}`)) continue;
          // JSON-RPC 2.0 §5: null is the id of an error whose request's id could not be read, or the echo of a request whose id was null (§4 allows it).
          if (!('result' in m) || m.id !== null) continue;
          nullIdSent ??= sentMessages(ex)?.some((s) => typeof s.method === 'string' && 'id' in s && s.id === null);
          if (nullIdSent === undefined) continue;
          j.check(ex, nullIdSent, 'a result carries id null, though no request of this POST had id null (JSON-RPC 2.0 §5: null is the id of an error whose request could not be read)');
        }
      }
    },
  },
  async provoke(ctx: CheckContext) {
    await withSession(ctx, async (session) => {
      const probes: Array<[string, string, Record<string, unknown> | undefined]> = [
        ['ping', 'ping', undefined],
        ['tools/list', 'tools/list', undefined],
        ['an unknown method', 'apicert/no-such-method', {}],
        ['tools/call without a name', 'tools/call', { arguments: {} }],
      ];
      for (const [what, method, params] of probes) await postMcp(ctx, request(newRequestId('xor'), method, params), { session, label: what });
    });
  },
});

/** A response as a reason shows it: its id and which of result and error it sets, never its whole content. */
function shownResponse(m: Record<string, unknown>): string {
  const id = 'id' in m ? `id ${JSON.stringify(m.id)?.slice(0, 60)}` : 'no id';
  return `(${id}${'result' in m ? ', result' : ''}${'error' in m ? ', error' : ''})`;
}

const ids: fc.Arbitrary<RequestId> = fc.oneof(
  fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
  fc.maxSafeInteger(),
  fc.string({ minLength: 1, maxLength: 40 }),
  fc.string({ minLength: 1, maxLength: 40, unit: 'grapheme' }),
  fc.integer({ min: 0, max: 10 ** 9 }).map(String),
);

export const idEchoed = rule({
  id: 'mcp.jsonrpc.id-echoed',
  title: 'A response carries the id of its request, same value and same type (string or integer)',
  level: 'required',
  spec: {
    section: 'Base Protocol > Messages > Requests, Responses',
    quote: 'Requests MUST include a string or integer ID. … Responses MUST include the same ID as the request they correspond to.',
    url: SPEC_URL.base,
  },
  judgement: {
    record: 'a POST to the MCP endpoint carrying JSON-RPC requests, answered with responses',
    judge(j) {
      const key = (id: unknown) => `${typeof id}:${String(id)}`;
      for (const ex of mcpPosts(j)) {
        const requests = (sentMessages(ex) ?? []).filter((m) => typeof m.method === 'string' && 'id' in m);
        if (requests.length === 0 || ex.status === undefined) continue;
        // "Responses MUST include the same ID" binds a response whatever the HTTP status it came with; an
        // error status owes no response at all, so what it lacks leaves nothing untestable.
        const answered = ex.status < 300 ? answeredResponses(j, ex) : responsesShown(ex);
        if (!answered) continue;
        const sent = new Set(requests.map((r) => key(r.id)));
        for (const m of answered) {
          if (m.id === null || m.id === undefined) continue;
          j.check(ex, sent.has(key(m.id)), `a response carries id ${JSON.stringify(m.id)} (${typeof m.id}), which no request of this POST had (same value and type)`);
        }
        // One request answered as JSON: its one response carries its id.
        if (ex.status < 300 && requests.length === 1 && isWellFormedCall(requests[0]!) && mediaType(ex.responseHeaders) === 'application/json' && !Array.isArray(requestJson(ex))) {
          j.check(ex, answered.some((m) => key(m.id) === key(requests[0]!.id)), `the request with id ${JSON.stringify(requests[0]!.id)} (${typeof requests[0]!.id}) was answered without a response carrying that id`);
        }
      }
    },
  },
  async provoke(ctx: CheckContext) {
    // "The request ID MUST NOT have been previously used by the requestor within the same session":
    // a repeated id (fast-check repeats values while shrinking) moves to a fresh session. The
    // property only sends; the judgement judges every answer.
    let session = await openSession(ctx);
    let used = new Set<string>();
    try {
      await ctx.property(
        ids,
        async (id) => {
          const key = JSON.stringify(id);
          if (used.has(key)) {
            await closeSession(ctx, session);
            session = await openSession(ctx);
            used = new Set();
          }
          used.add(key);
          await postMcp(ctx, request(id, 'ping'), { session, label: `ping with id ${key}` });
        },
        { numRuns: 40, examples: [0, 1, -1, '0', '7', '42', 'apicert', ' ', 'é'] },
      );
    } finally {
      await closeSession(ctx, session);
    }
  },
});
