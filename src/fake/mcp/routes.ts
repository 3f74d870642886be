import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { INVALID_REQUEST, PARSE_ERROR, type JsonRpcRequest } from '../../contract/mcp/jsonrpc.ts';
import { initializeParams, MCP_REVISION } from '../../contract/mcp/lifecycle.ts';
import { SESSION_HEADER } from '../../contract/mcp/transport.ts';
import type { FakeCaller } from '../auth.ts';
import type { FakeContext } from '../context.ts';
import { parseJson } from '../../util/json.ts';
import type { Route, RouteRequest } from '../http.ts';
import { answer, classify, progressToken, ResponseFactory, type Classified } from './messages.ts';
import { sseEvent, writeEmpty, writeJson, writeTransportError } from './respond.ts';
import { SessionStore, type McpSession } from './sessions.ts';

/** Revisions this fake speaks; it answers every other request for a version with the newest of these. */
const SUPPORTED_VERSIONS = [MCP_REVISION] as const;
const SERVER_INFO = { name: 'apicert-reference-fake', version: '0.1.0' };

/** Codes the MCP SDKs use for transport refusals that JSON-RPC itself does not name. */
const BAD_REQUEST = -32000;
const SESSION_NOT_FOUND = -32001;

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** Whether the Accept header lists `type`; `lenient` counts a missing header as accepting anything. */
function accepts(r: RouteRequest, type: string, lenient: boolean): boolean {
  const accept = r.header('accept');
  if (accept === undefined) return lenient;
  return accept.includes(type) || accept.includes('*/*');
}

/** POST, GET and DELETE /mcp: MCP 2025-03-26 Streamable HTTP, with server push disabled (GET → 405). */
export function mcpRoutes(fake: FakeContext): Route[] {
  const sessions = new SessionStore();
  const responses = new ResponseFactory(fake);

  /**
   * "Servers MUST validate the Origin header": browsers send one, so a page on another site
   * (DNS rebinding) is refused; clients that are not browsers send none and pass.
   */
  function originAllowed(r: RouteRequest): boolean {
    const origin = r.header('origin');
    if (origin === undefined) return true;
    let host: string;
    try {
      host = new URL(origin).hostname;
    } catch {
      host = '';
    }
    if (LOOPBACK_HOSTS.has(host)) return true;
    writeTransportError(r.res, 403, BAD_REQUEST, `Forbidden: Origin ${origin} is not allowed to call /mcp.`);
    return false;
  }

  function authenticate(r: RouteRequest): FakeCaller | undefined {
    if (!originAllowed(r)) return undefined;
    const caller = fake.tokens.lookup(r.header('authorization'));
    if (!caller || caller.expired) {
      const message = caller ? 'The bearer token has expired.' : 'A valid bearer token is required: send Authorization: Bearer <token>.';
      writeTransportError(r.res, 401, BAD_REQUEST, message, { 'www-authenticate': 'Bearer' });
      return undefined;
    }
    return caller;
  }

  /** The session a non-initialize request belongs to; answers 400 or 404 itself when there is none. */
  function sessionOf(r: RouteRequest, caller: FakeCaller): McpSession | undefined {
    const id = r.header(SESSION_HEADER);
    if (id === undefined) {
      if (fake.faults.has('mcp.session.missing-400/served-without-session')) return sessions.ephemeral(caller.principal);
      writeTransportError(r.res, 400, BAD_REQUEST, `Bad Request: send the ${SESSION_HEADER} header that initialize returned.`);
      return undefined;
    }
    const session = sessions.get(id);
    if (!session || session.principal !== caller.principal) {
      if (!sessions.wasIssued(id) && fake.faults.has('mcp.session.unknown-404/never-issued-400')) {
        writeTransportError(r.res, 400, BAD_REQUEST, 'Bad Request: malformed session id.');
      } else {
        writeTransportError(r.res, 404, SESSION_NOT_FOUND, 'Session not found: send a new initialize request without a session id.');
      }
      return undefined;
    }
    return session;
  }

  function negotiate(requested: string): string {
    if ((SUPPORTED_VERSIONS as readonly string[]).includes(requested)) {
      return fake.faults.has('mcp.lifecycle.version-echo/answers-2024-11-05') ? '2024-11-05' : requested;
    }
    return fake.faults.has('mcp.lifecycle.version-unknown/echoes-unknown') ? requested : SUPPORTED_VERSIONS[0];
  }

  function initialize(r: RouteRequest, caller: FakeCaller, request: JsonRpcRequest): void {
    const params = initializeParams.safeParse(request.params ?? {});
    if (!params.success) {
      writeJson(r.res, 200, responses.error(request.id, -32602, 'Invalid params: initialize needs protocolVersion, capabilities and clientInfo'));
      return;
    }
    const protocolVersion = negotiate(params.data.protocolVersion);
    const id = fake.faults.has('mcp.session.id-visible-ascii/contains-space') ? `apicert session ${randomUUID()}` : undefined;
    const session = sessions.create(caller.principal, protocolVersion, id);
    const result: Record<string, unknown> = {
      protocolVersion,
      capabilities: { tools: { listChanged: false } },
      serverInfo: SERVER_INFO,
      instructions: 'Reference fake of /mcp: the tools echo and add have no side effects.',
    };
    if (fake.faults.has('mcp.lifecycle.initialize-result/no-server-info')) delete result.serverInfo;
    writeJson(r.res, 200, responses.result(request.id, result), { [SESSION_HEADER]: session.id });
  }

  function notify(session: McpSession, method: string): void {
    if (method === 'notifications/initialized') session.initialized = true;
  }

  function acceptedNoBody(r: RouteRequest, batch: boolean): void {
    if (batch && fake.faults.has('mcp.batch.notifications-202/answered-200')) writeJson(r.res, 200, []);
    else if (!batch && fake.faults.has('mcp.transport.accepted-202/notification-answered-200')) writeJson(r.res, 200, { jsonrpc: '2.0', result: {} });
    else writeEmpty(r.res, 202);
  }

  /** Streams the answers as SSE: progress first where asked for, one event per response, then closes. */
  function stream(res: ServerResponse, session: McpSession, requests: JsonRpcRequest[], answers: Record<string, unknown>[]): void {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    let streamEventId = 0;
    const nextId = () => String(fake.faults.has('mcp.sse.event-ids-unique/restart-per-stream') ? ++streamEventId : ++session.lastEventId);
    for (const request of requests) {
      const token = request.method === 'tools/call' ? progressToken(request) : undefined;
      if (token !== undefined) {
        res.write(sseEvent(nextId(), { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: 1, total: 1 } }));
      }
    }
    for (const a of answers) res.write(sseEvent(nextId(), a));
    // The fault spares streams that carried progress, so only the rule about closing sees it.
    const carriedProgress = requests.some((q) => q.method === 'tools/call' && progressToken(q) !== undefined);
    if (!fake.faults.has('mcp.sse.closes-after-response/held-open') || carriedProgress) {
      res.end();
      return;
    }
    const unregister = fake.lifecycle.onClose(() => res.end());
    res.on('close', unregister);
  }

  async function post(r: RouteRequest): Promise<void> {
    const caller = authenticate(r);
    if (!caller) return;
    if (!accepts(r, 'application/json', true) && !accepts(r, 'text/event-stream', true)) {
      writeTransportError(r.res, 406, BAD_REQUEST, 'Not Acceptable: the Accept header must list application/json and text/event-stream.');
      return;
    }
    const parsed = parseJson(await r.body());
    if (!parsed.ok) {
      const code = fake.faults.has('mcp.jsonrpc.parse-error/code-32600') ? INVALID_REQUEST : PARSE_ERROR;
      writeTransportError(r.res, 400, code, 'Parse error: the body is not valid JSON.');
      return;
    }
    const batch = Array.isArray(parsed.value);
    const elements: unknown[] = batch ? (parsed.value as unknown[]) : [parsed.value];
    if (elements.length === 0) {
      writeTransportError(r.res, 400, INVALID_REQUEST, 'Invalid Request: an empty batch.');
      return;
    }
    const classified: Classified[] = elements.map((e) => classify(fake, e));
    const first = classified[0]!;
    if (!batch && first.kind === 'request' && first.message.method === 'initialize') {
      initialize(r, caller, first.message);
      return;
    }
    if (!batch && first.kind === 'invalid') {
      writeJson(r.res, 400, responses.error(first.id, INVALID_REQUEST, `Invalid Request: ${first.why}.`));
      return;
    }
    const session = sessionOf(r, caller);
    if (!session) return;
    const requests: JsonRpcRequest[] = [];
    const answers: Record<string, unknown>[] = [];
    /** Where each request's answer sits in `answers` (invalid elements have answers too). */
    const answerIndex: number[] = [];
    for (const c of classified) {
      if (c.kind === 'notification') notify(session, c.method);
      else if (c.kind === 'invalid') answers.push(responses.error(c.id, INVALID_REQUEST, `Invalid Request: ${c.why}.`));
      else if (c.kind === 'request') {
        requests.push(c.message);
        answerIndex.push(answers.length);
        answers.push(answer(fake, responses, session, c.message));
      }
    }
    if (answers.length === 0) {
      acceptedNoBody(r, batch);
      return;
    }
    // Tool runs stream (progress, then the result); a call refused before it runs is answered as plain JSON.
    const runsTool = requests.some((q, i) => q.method === 'tools/call' && !('error' in answers[answerIndex[i]!]!));
    if (runsTool && accepts(r, 'text/event-stream', false)) {
      stream(r.res, session, requests, answers);
      return;
    }
    if (!batch) {
      const textPlain = requests[0]?.method === 'ping' && fake.faults.has('mcp.transport.request-response/ping-text-plain');
      writeJson(r.res, 200, answers[0], {}, textPlain ? 'text/plain' : 'application/json');
      return;
    }
    writeJson(r.res, 200, fake.faults.has('mcp.batch.requests/first-only') ? answers.slice(0, 1) : answers);
  }

  function get(r: RouteRequest): void {
    if (fake.faults.has('mcp.transport.get-405/json-success')) {
      writeJson(r.res, 200, { jsonrpc: '2.0', id: 0, result: {} });
      return;
    }
    // Server-to-client push is disabled on this gateway, whoever asks.
    writeEmpty(r.res, 405, { allow: 'POST, DELETE' });
  }

  function remove(r: RouteRequest): void {
    const caller = authenticate(r);
    if (!caller) return;
    const session = sessionOf(r, caller);
    if (!session) return;
    if (!fake.faults.has('mcp.session.delete-terminates/delete-ignored')) sessions.end(session.id);
    writeEmpty(r.res, 204);
  }

  return [
    { method: 'POST', pattern: /^\/mcp$/, handler: post },
    { method: 'GET', pattern: /^\/mcp$/, handler: get },
    { method: 'DELETE', pattern: /^\/mcp$/, handler: remove },
  ];
}
