import { INVALID_REQUEST, type JsonRpcRequest } from '../../contract/mcp/jsonrpc.ts';
import type { Route, RouteRequest } from '../http.ts';
import { authenticate, BAD_REQUEST } from './auth.ts';
import { acceptBatchWithoutAnswers, refuseEmptyBatch, writeBatchAnswers } from './batch.ts';
import { answer, classify, parseBody, type Classified } from './jsonrpc.ts';
import { initialize } from './lifecycle.ts';
import { writeEmpty, writeJson, writeTransportError } from './respond.ts';
import { deleteSession, sessionOf } from './session.ts';
import type { McpSession } from './session-store.ts';
import { stream, streamsEveryAnswer } from './sse.ts';
import type { McpSurface } from './surface.ts';

/** Whether the Accept header lists `type`; `lenient` counts a missing header as accepting anything. */
function accepts(r: RouteRequest, type: string, lenient: boolean): boolean {
  const accept = r.header('accept');
  if (accept === undefined) return lenient;
  return accept.includes(type) || accept.includes('*/*');
}

interface Answered {
  requests: JsonRpcRequest[];
  answers: Record<string, unknown>[];
  /** Whether a tools/call in it runs (is not refused before it runs). */
  runsTool: boolean;
}

/** Answers every element of a POST body in order; notifications only change the session. */
function answerAll({ fake, responses }: McpSurface, session: McpSession, classified: Classified[]): Answered {
  const requests: JsonRpcRequest[] = [];
  const answers: Record<string, unknown>[] = [];
  let runsTool = false;
  for (const c of classified) {
    if (c.kind === 'notification' && c.method === 'notifications/initialized') session.initialized = true;
    else if (c.kind === 'invalid') answers.push(responses.error(c.id, INVALID_REQUEST, `Invalid Request: ${c.why}.`));
    else if (c.kind === 'request') {
      const a = answer(fake, responses, session, c.message);
      requests.push(c.message);
      answers.push(a);
      if (c.message.method === 'tools/call' && !('error' in a)) runsTool = true;
    }
  }
  return { requests, answers, runsTool };
}

/** Writes the answers: SSE for a tool run the client can stream, else JSON (202 when there are none). */
function reply(surface: McpSurface, r: RouteRequest, session: McpSession, batch: boolean, { requests, answers, runsTool }: Answered): void {
  const { fake } = surface;
  if (answers.length === 0) {
    if (batch) acceptBatchWithoutAnswers(fake, r.res);
    else if (fake.faults.has('mcp.transport.accepted-202/notification-answered-200')) writeJson(r.res, 200, { jsonrpc: '2.0', result: {} });
    else writeEmpty(r.res, 202);
    return;
  }
  // Tool runs stream (progress, then the result); a call refused before it runs is answered as plain JSON.
  const streams = (runsTool || streamsEveryAnswer(fake)) && !fake.variants.has('mcp.transport/json-only');
  if (streams && accepts(r, 'text/event-stream', false)) {
    stream(fake, r.res, session, requests, answers);
    return;
  }
  if (batch) {
    writeBatchAnswers(fake, r.res, answers);
    return;
  }
  const textPlain = requests[0]?.method === 'ping' && fake.faults.has('mcp.transport.request-response/ping-text-plain');
  writeJson(r.res, 200, answers[0], {}, textPlain ? 'text/plain' : 'application/json');
}

async function post(surface: McpSurface, r: RouteRequest): Promise<void> {
  const caller = authenticate(surface.fake, r);
  if (!caller) return;
  const parsed = await parseBody(surface.fake, r);
  if (!parsed) return;
  const batch = Array.isArray(parsed.value);
  const elements: unknown[] = batch ? (parsed.value as unknown[]) : [parsed.value];
  if (elements.length === 0) {
    refuseEmptyBatch(surface.fake, r.res);
    return;
  }
  const classified = elements.map((e) => classify(surface.fake, e));
  const first = classified[0]!;
  if (!batch && first.kind === 'request' && first.message.method === 'initialize') {
    initialize(surface, r, caller, first.message);
    return;
  }
  if (!batch && first.kind === 'invalid') {
    writeJson(r.res, 400, surface.responses.error(first.id, INVALID_REQUEST, `Invalid Request: ${first.why}.`));
    return;
  }
  const session = sessionOf(surface, r, caller);
  if (!session) return;
  reply(surface, r, session, batch, answerAll(surface, session, classified));
}

function get({ fake }: McpSurface, r: RouteRequest): void {
  if (fake.faults.has('mcp.transport.get-stream-or-405/json-success')) {
    writeJson(r.res, 200, { jsonrpc: '2.0', id: 0, result: {} });
    return;
  }
  if (fake.faults.has('mcp.transport.get-405/opens-stream')) {
    r.res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    r.res.end();
    return;
  }
  // Server-to-client push is disabled on this gateway, whoever asks.
  writeEmpty(r.res, 405, { allow: 'POST, DELETE' });
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/**
 * "Servers MUST validate the Origin header": browsers send one, so a page on another site
 * (DNS rebinding) is refused before anything else; clients that are not browsers send none and pass.
 */
function originAllowed({ fake }: McpSurface, r: RouteRequest): boolean {
  const hostname = (r.header('host') ?? '').replace(/:\d+$/, '');
  if (fake.variants.has('mcp.transport/host-checked') && !LOOPBACK_HOSTS.has(hostname)) {
    writeTransportError(r.res, 403, BAD_REQUEST, `Forbidden: Host ${hostname} is not this server.`);
    return false;
  }
  const origin = r.header('origin');
  if (origin === undefined || fake.faults.has('mcp.transport.origin/foreign-origin-served')) return true;
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

/** POST, GET and DELETE /mcp: MCP 2025-03-26 Streamable HTTP, with server push disabled (GET → 405). */
export function transportRoutes(surface: McpSurface): Route[] {
  const guarded = (handler: (surface: McpSurface, r: RouteRequest) => void | Promise<void>) => (r: RouteRequest) => (originAllowed(surface, r) ? handler(surface, r) : undefined);
  return [
    { method: 'POST', pattern: /^\/mcp$/, handler: guarded(post) },
    { method: 'GET', pattern: /^\/mcp$/, handler: guarded(get) },
    { method: 'DELETE', pattern: /^\/mcp$/, handler: guarded(deleteSession) },
  ];
}
