import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { INVALID_REQUEST, type JsonRpcRequest } from '../../contract/mcp/jsonrpc.ts';
import type { FakeContext } from '../context.ts';
import type { Route, RouteRequest } from '../http.ts';
import { authenticate, BAD_REQUEST } from './auth.ts';
import { acceptBatchWithoutAnswers, refuseEmptyBatch, writeBatchAnswers } from './batch.ts';
import { answer, classify, generatedFault, malformedStatus, parseBody, type Classified } from './jsonrpc.ts';
import { initialize, lifecycleAnswer, requestsBeforeInitialized } from './lifecycle.ts';
import { accepts, writeEmpty, writeJson, writeTransportError } from './respond.ts';
import { allowedMethods, deleteSession, sessionOf } from './session.ts';
import type { McpSession } from './session-store.ts';
import { stream, streamsEveryAnswer } from './sse.ts';
import type { McpSurface } from './surface.ts';

interface Answered {
  requests: JsonRpcRequest[];
  answers: Record<string, unknown>[];
  /** Whether a tools/call in it runs (is not refused before it runs). */
  runsTool: boolean;
}

/** Answers every element of a POST body in order; notifications only change the session. */
function answerAll(surface: McpSurface, session: McpSession, classified: Classified[]): Answered {
  const { fake, responses } = surface;
  const requests: JsonRpcRequest[] = [];
  const answers: Record<string, unknown>[] = [];
  let runsTool = false;
  for (const c of classified) {
    if (c.kind === 'notification' && c.method === 'notifications/initialized') session.initialized = true;
    else if (c.kind === 'invalid') answers.push(responses.error(c.id, INVALID_REQUEST, `Invalid Request: ${c.why}.`));
    else if (c.kind === 'answered') answers.push(c.answer);
    else if (c.kind === 'request') {
      const a = lifecycleAnswer(surface, session, c.message) ?? answer(fake, responses, session, c.message);
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
  const first = requestsBeforeInitialized(fake, session, requests);
  const streams = (runsTool || streamsEveryAnswer(fake) || first.length > 0) && !fake.variants.has('mcp.transport/json-only');
  if (streams && accepts(r, 'text/event-stream', false)) {
    stream(fake, r.res, session, requests, answers, { batch, first });
    return;
  }
  if (batch) {
    writeBatchAnswers(fake, r.res, answers);
    return;
  }
  const textPlain = requests[0]?.method === 'ping' && fake.faults.has('mcp.transport.request-response/ping-text-plain');
  writeJson(r.res, 200, answers[0], {}, textPlain ? 'text/plain' : 'application/json');
}

/** The status of a refusal MCP names none for: the fake's own, or 400 throughout (a variant). */
function refusalStatus({ fake }: McpSurface, own: number): number {
  return fake.variants.has('mcp.transport/refusals-400') ? 400 : own;
}

/**
 * "The client MUST include an Accept header, listing both": the fake serves a client that does not
 * unless a variant checks media types (406 and 415 as the TypeScript SDK answers, or 400).
 */
function mediaTypesRefused(surface: McpSurface, r: RouteRequest): boolean {
  const { fake } = surface;
  if (!fake.variants.has('mcp.transport/media-types-checked') && !fake.variants.has('mcp.transport/refusals-400')) return false;
  if (!accepts(r, 'application/json', false) || !accepts(r, 'text/event-stream', false)) {
    writeTransportError(r.res, refusalStatus(surface, 406), BAD_REQUEST, 'Not Acceptable: the Accept header must list both application/json and text/event-stream.');
    return true;
  }
  const type = (r.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json') return false;
  writeTransportError(r.res, refusalStatus(surface, 415), BAD_REQUEST, 'Unsupported Media Type: send the body as application/json.');
  return true;
}

/**
 * A POST of only notifications and responses that the fake has no use for: any response (it sends
 * no requests of its own that wait for one) and any notification but notifications/initialized.
 * The variant refuses it, with an error that has no id, as MCP allows.
 */
function unusableInputRefused({ fake }: McpSurface, r: RouteRequest, classified: Classified[]): boolean {
  if (!fake.variants.has('mcp.transport/unaccepted-input-refused')) return false;
  if (!classified.every((c) => c.kind === 'response' || c.kind === 'notification')) return false;
  const unusable = classified.filter((c) => c.kind === 'response' || c.method !== 'notifications/initialized');
  if (unusable.length === 0) return false;
  writeJson(r.res, 400, { jsonrpc: '2.0', error: { code: INVALID_REQUEST, message: 'Bad Request: this server cannot use a response to a request it never sent or a notification about one.' } });
  return true;
}

async function post(surface: McpSurface, r: RouteRequest): Promise<void> {
  const caller = authenticate(surface.fake, r, surface.sessions);
  if (!caller) return;
  if (mediaTypesRefused(surface, r)) return;
  const parsed = await parseBody(surface.fake, r);
  if (!parsed) return;
  if (generatedFault(surface.fake, surface.responses, r, parsed.value)) return;
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
    writeJson(r.res, malformedStatus(surface.fake), surface.responses.error(first.id, INVALID_REQUEST, `Invalid Request: ${first.why}.`));
    return;
  }
  const session = sessionOf(surface, r, caller);
  if (!session || unusableInputRefused(surface, r, classified)) return;
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
  // Under the fault the Allow of an SDK that serves GET is copied onto the gateway's refusal of it.
  const listed = fake.faults.has('mcp.transport.allow-on-405/lists-refused') ? `GET, ${allowedMethods(fake)}` : allowedMethods(fake);
  writeEmpty(r.res, 405, allowHeaders(fake, listed));
}

/** The Allow field of an /mcp 405 (RFC 9110 15.5.6); none under the fault. */
export function allowHeaders(fake: FakeContext, methods: string): Record<string, string> {
  return fake.faults.has('mcp.transport.allow-on-405/no-allow') ? {} : { allow: methods };
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/**
 * "Servers MUST validate the Origin header": browsers send one, so a page on another site
 * (DNS rebinding) is refused before anything else; clients that are not browsers send none and pass.
 */
function originAllowed(surface: McpSurface, r: RouteRequest): boolean {
  const { fake } = surface;
  const hostname = (r.header('host') ?? '').replace(/:\d+$/, '');
  if (fake.variants.has('mcp.transport/host-checked') && !LOOPBACK_HOSTS.has(hostname)) {
    writeTransportError(r.res, 403, BAD_REQUEST, `Forbidden: Host ${hostname} is not this server.`);
    return false;
  }
  const origin = r.header('origin');
  if (origin === undefined || fake.faults.has('mcp.transport.origin/foreign-origin-served')) return true;
  if (r.req.method === 'DELETE' && fake.faults.has('mcp.transport.origin/delete-unchecked')) return true;
  if (origin.startsWith('http://') && fake.faults.has('mcp.transport.origin/http-origin-served')) return true;
  let host: string;
  try {
    host = new URL(origin).hostname;
  } catch {
    host = '';
  }
  if (LOOPBACK_HOSTS.has(host)) return true;
  // `startsWith` on the allow-list: a name that merely begins like an allowed origin passes.
  if (fake.faults.has('mcp.transport.origin/prefix-matched') && ['http://127.0.0.1', 'http://localhost'].some((allowed) => origin.startsWith(allowed))) return true;
  writeTransportError(r.res, refusalStatus(surface, 403), BAD_REQUEST, `Forbidden: Origin ${origin} is not allowed to call /mcp.`);
  return false;
}

/** Media types are case-insensitive and take parameters: the variant sends `Application/JSON; charset=utf-8` and the like. */
function withMediaTypeParameters(res: ServerResponse): void {
  const writeHead = res.writeHead.bind(res) as (status: number, headers?: OutgoingHttpHeaders) => ServerResponse;
  const varied: Record<string, string> = { 'application/json': 'Application/JSON; charset=utf-8', 'text/event-stream': 'Text/Event-Stream; charset=utf-8' };
  res.writeHead = ((status: number, headers: OutgoingHttpHeaders = {}) => {
    const type = varied[String(headers['content-type'])];
    return writeHead(status, type === undefined ? headers : { ...headers, 'content-type': type });
  }) as typeof res.writeHead;
}

/** Requests to /mcp each fake has been sent, for the limiter of the variant. */
const sent = new WeakMap<FakeContext, number>();

/**
 * The gateway's per-principal limit covers /mcp ("A per-principal rate limit exists (`429`). Its
 * numeric values: not shown."): under the variant every seventh request is refused 429, asking for no wait.
 */
function rateLimited(surface: McpSurface, r: RouteRequest): boolean {
  const { fake } = surface;
  if (!fake.variants.has('mcp.transport/rate-limited')) return false;
  const n = (sent.get(fake) ?? 0) + 1;
  sent.set(fake, n);
  if (n % 7 !== 0) return false;
  writeJson(r.res, 429, { type: 'https://errors.example/rate-limited', title: 'Too Many Requests', status: 429, detail: 'the per-principal rate limit was reached' }, { 'retry-after': '0' }, 'application/problem+json');
  return true;
}

/** POST, GET and DELETE /mcp: MCP 2025-03-26 Streamable HTTP, with server push disabled (GET → 405). */
export function transportRoutes(surface: McpSurface): Route[] {
  const guarded = (handler: (surface: McpSurface, r: RouteRequest) => void | Promise<void>) => (r: RouteRequest) => {
    if (rateLimited(surface, r)) return undefined;
    if (surface.fake.variants.has('mcp.transport/media-type-parameters')) withMediaTypeParameters(r.res);
    return originAllowed(surface, r) ? handler(surface, r) : undefined;
  };
  return [
    { method: 'POST', pattern: /^\/mcp$/, handler: guarded(post) },
    { method: 'GET', pattern: /^\/mcp$/, handler: guarded(get) },
    { method: 'DELETE', pattern: /^\/mcp$/, handler: guarded(deleteSession) },
  ];
}
