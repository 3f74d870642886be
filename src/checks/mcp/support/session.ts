import { randomBytes } from 'node:crypto';
import { runJudgement, type AfterEvent, type CheckContext, type ProbeResponse, type Rule, type SseEvent, type StreamEnd, type StreamRequest } from '../../../rule/index.ts';
import { isResponseLike, type RequestId } from '../../../contract/mcp/jsonrpc.ts';
import { MCP_REVISION } from '../../../contract/mcp/lifecycle.ts';
import { CLIENT_ACCEPT, SESSION_HEADER } from '../../../contract/mcp/transport.ts';
import type { Credential } from '../../../profile/schema.ts';
import { parseJson } from '../../../util/json.ts';
import { parseEventStreamBody, type BodyEvent } from './sse-body.ts';
import { admitted, stopIfLimited } from '../../v8/support/limiter.ts';
import { mediaTypeOf } from '../../../rule/media-type.ts';
import { mcpEndpointOf } from '../../../profile/mcp-endpoint.ts';

/** Where the gateway seed mounts MCP; a generic MCP server may mount it anywhere. */
export { DEFAULT_MCP_PATH } from '../../../profile/mcp-endpoint.ts';

/**
 * The MCP endpoint every mcp rule sends to: fixtures.mcp.endpoint, else the target URL's path
 * when it has one, else `/mcp`.
 */
export function mcpPath(ctx: CheckContext): string {
  return mcpEndpointOf(ctx.profile);
}

export const SPEC_URL = {
  base: 'https://modelcontextprotocol.io/specification/2025-03-26/basic',
  lifecycle: 'https://modelcontextprotocol.io/specification/2025-03-26/basic/lifecycle',
  transports: 'https://modelcontextprotocol.io/specification/2025-03-26/basic/transports',
} as const;

/** The /mcp caller: the seed names no scope for /mcp, so the profile's mcp credential is used as is. */
export function caller(ctx: CheckContext): Credential {
  return ctx.primary('mcp');
}

/** A request id no other check uses, so a server that tracks ids per session never sees one twice. */
export function newRequestId(purpose: string): string {
  return `apicert-${purpose}-${randomBytes(6).toString('hex')}`;
}

export function request(id: RequestId, method: string, params?: Record<string, unknown>): Record<string, unknown> {
  return params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
}

export function notification(method: string, params?: Record<string, unknown>): Record<string, unknown> {
  return params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
}

/** How the server framed its answer; judging whether that framing was allowed is left to the rules. */
export type BodyKind = 'json' | 'sse' | 'empty' | 'other';

export interface McpReply {
  res: ProbeResponse;
  kind: BodyKind;
  /** The media type without parameters, lower-cased. */
  mediaType: string;
  /** Every JSON-RPC message in the body, batches flattened. */
  messages: unknown[];
  /** SSE events, for `sse` bodies. */
  events: BodyEvent[];
  sessionId: string | undefined;
  /** How the read of an SSE answer ended: the server closed it, or apicert stopped after the last response. */
  end?: StreamEnd;
  /** With `awaitClose`, how long after the last response the server closed the stream. */
  closeAfterResponseMs?: number;
}

export interface McpSession {
  /** undefined when the server assigned none (sessions not in use). */
  id: string | undefined;
  credential: Credential;
  initialize: McpReply;
  /** Read loosely: only mcp.lifecycle.initialize-result judges its shape. */
  result: Record<string, unknown>;
}

export interface PostOptions {
  label: string;
  /** A session, or a raw session id; `null`/omitted sends no Mcp-Session-Id. */
  session?: McpSession | string | null;
  credential?: Credential | null;
  headers?: Record<string, string>;
  timeoutMs?: number;
  /**
   * After the last response of an SSE answer, wait for the server to close the stream, up to the
   * stream timeout (MCP sets no time for the close, so no shorter wait of apicert's decides it):
   * only the rule about closing needs it; every other read stops there.
   */
  awaitClose?: boolean;
}

function sessionHeader(session: PostOptions['session']): Record<string, string> {
  const id = typeof session === 'string' ? session : session?.id;
  return id === undefined ? {} : { [SESSION_HEADER]: id };
}

/** The messages of SSE events: events of type `message` (the default), batches flattened. */
function eventMessages(events: readonly BodyEvent[]): unknown[] {
  const messages: unknown[] = [];
  for (const e of events) {
    if (e.data === '' || (e.event !== undefined && e.event !== 'message')) continue;
    const parsed = parseJson(e.data);
    if (parsed.ok) messages.push(...(Array.isArray(parsed.value) ? parsed.value : [parsed.value]));
  }
  return messages;
}

/** Reads the answer whatever its content type says, so only the rule about content types judges that. */
export function readReply(res: ProbeResponse, streamed?: { events: readonly SseEvent[]; end: StreamEnd }): McpReply {
  const mediaType = mediaTypeOf(res.contentType);
  const sessionId = res.headers[SESSION_HEADER];
  const base = { res, mediaType, sessionId };
  if (mediaType === 'text/event-stream') {
    const events: BodyEvent[] = streamed ? streamed.events.map(({ atMs: _at, ...e }) => e) : parseEventStreamBody(res.text).events;
    return { ...base, kind: 'sse', messages: eventMessages(events), events, ...(streamed ? { end: streamed.end } : {}) };
  }
  if (res.text.trim() === '') return { ...base, kind: 'empty', messages: [], events: [] };
  const parsed = parseJson(res.text);
  if (!parsed.ok) return { ...base, kind: 'other', messages: [], events: [] };
  return { ...base, kind: 'json', messages: Array.isArray(parsed.value) ? parsed.value : [parsed.value], events: [] };
}

/** The ids of the requests in a JSON body: an SSE answer is complete once each has its response. */
function requestIds(body: { json: unknown } | { rawBody: string }): RequestId[] {
  if (!('json' in body)) return [];
  const items = Array.isArray(body.json) ? body.json : [body.json];
  return items.filter((m): m is { id: RequestId } => isObject(m) && typeof m.method === 'string' && (typeof m.id === 'string' || typeof m.id === 'number')).map((m) => m.id);
}

/**
 * POSTs and reads the answer. An SSE answer is read up to the response to each request sent (MCP:
 * "After all JSON-RPC responses have been sent, the server SHOULD close the SSE stream"), so a
 * stream the server leaves open never costs a rule its deadline; a body without request ids
 * (malformed input) is read until the server closes it.
 */
async function exchange(ctx: CheckContext, body: { json: unknown } | { rawBody: string }, options: PostOptions): Promise<McpReply> {
  const waiting = new Set<RequestId>(requestIds(body));
  const complete: AfterEvent = options.awaitClose ? 'terminal' : 'disconnect';
  const req: StreamRequest = {
    method: 'POST',
    path: mcpPath(ctx),
    credential: options.credential === undefined ? caller(ctx) : options.credential,
    headers: { accept: CLIENT_ACCEPT, ...sessionHeader(options.session), ...options.headers },
    label: options.label,
    ...body,
    // The rules judge the JSON-RPC messages, not the framing: a last event without its blank line counts.
    keepUnterminated: true,
    onEvent: (event) => {
      if (waiting.size === 0) return 'continue';
      for (const m of eventMessages([event])) if (isResponseLike(m)) waiting.delete(m.id as RequestId);
      return waiting.size === 0 ? complete : 'continue';
    },
  };
  if (options.timeoutMs !== undefined) req.timeoutMs = options.timeoutMs;
  // The reader's own deadline (safety.streamTimeoutMs from the request) ends the wait first.
  if (options.awaitClose) req.graceMs = ctx.profile.safety.streamTimeoutMs;
  // The gateway's rate limit may refuse any request (429): sent once more after the wait it asks for.
  const res = await admitted(ctx, () => ctx.http.stream(req));
  // The same object the probe linked to its exchange, so a case decided on it names that exchange.
  const answer = Object.assign(res, { text: res.text ?? '', json: res.json, durationMs: 0 });
  const reply = readReply(answer, mediaTypeOf(res.contentType) === 'text/event-stream' ? { events: res.events, end: res.end } : undefined);
  return res.closeAfterTerminalMs === undefined ? reply : { ...reply, closeAfterResponseMs: res.closeAfterTerminalMs };
}

/** POSTs one JSON-RPC message or a batch (an array). */
export function postMcp(ctx: CheckContext, message: unknown, options: PostOptions): Promise<McpReply> {
  return exchange(ctx, { json: message }, options);
}

/** POSTs a body as is, for malformed input. */
export function postRaw(ctx: CheckContext, text: string, options: PostOptions): Promise<McpReply> {
  return exchange(ctx, { rawBody: text }, options);
}

/** The response carrying `id` (compared by value and type), if the server sent one. */
export function responseTo(reply: McpReply, id: RequestId): Record<string, unknown> | undefined {
  return reply.messages.find((m): m is Record<string, unknown> => isResponseLike(m) && m.id === id);
}

export function responses(reply: McpReply): Array<Record<string, unknown>> {
  return reply.messages.filter((m): m is Record<string, unknown> => isResponseLike(m));
}

/** The `error` object of a response, read loosely: its shape is judged by mcp.jsonrpc.result-xor-error. */
export function errorOf(message: Record<string, unknown> | undefined): { code: unknown; message: unknown } | undefined {
  const error = message?.error;
  return typeof error === 'object' && error !== null ? (error as { code: unknown; message: unknown }) : undefined;
}

/**
 * Whether an error answers no identifiable request: JSON-RPC 2.0 says its id "MUST be Null"; MCP's
 * schema has no null id and its transport allows "a JSON-RPC error response that has no id". Both pass.
 */
export function isUnattributed(message: Record<string, unknown>): boolean {
  return message.id === null || !('id' in message);
}

export function clientInfo(): Record<string, unknown> {
  return { name: 'apicert', version: '0.1.0' };
}

/** Sends `initialize` without judging it; the rules about initialize judge the reply themselves. */
export function sendInitialize(
  ctx: CheckContext,
  options: { protocolVersion?: string; id?: RequestId; credential?: Credential | null; label?: string; headers?: Record<string, string> } = {},
): Promise<McpReply> {
  const id = options.id ?? newRequestId('initialize');
  const params = { protocolVersion: options.protocolVersion ?? MCP_REVISION, capabilities: {}, clientInfo: clientInfo() };
  const post: PostOptions = { label: options.label ?? 'initialize' };
  if (options.credential !== undefined) post.credential = options.credential;
  if (options.headers !== undefined) post.headers = options.headers;
  return postMcp(ctx, request(id, 'initialize', params), post);
}

/**
 * Initializes a session as setup for another rule. When the target refuses, the rule under test
 * cannot be judged, so that is untestable, not a failure.
 */
export async function openSession(ctx: CheckContext, options: { protocolVersion?: string; sendInitialized?: boolean } = {}): Promise<McpSession> {
  const first = await tryOpen(ctx, options);
  if (first !== ENDED_AT_ONCE) return first;
  // "The server MAY terminate the session at any time": one that ended before its setup was done is no refusal of the setup; a client "MUST start a new session".
  const second = await tryOpen(ctx, options);
  if (second === ENDED_AT_ONCE) setupFailed(ctx, 'notifications/initialized answered HTTP 404 in two fresh sessions: the server ended each before its setup was done');
  return second;
}

/** What `tryOpen` returns for a session the server ended (404) before notifications/initialized was taken. */
const ENDED_AT_ONCE = Symbol('ended at once');

async function tryOpen(ctx: CheckContext, options: { protocolVersion?: string; sendInitialized?: boolean }): Promise<McpSession | typeof ENDED_AT_ONCE> {
  const credential = caller(ctx);
  const id = newRequestId('initialize');
  const init: { protocolVersion?: string; id: string; label: string } = { id, label: 'setup: initialize a session' };
  if (options.protocolVersion !== undefined) init.protocolVersion = options.protocolVersion;
  const reply = await sendInitialize(ctx, init);
  stopIfLimited(ctx, reply.res, 'setup: initialize');
  if (reply.res.status !== 200) {
    const refused = reply.res.status === 401 || reply.res.status === 403;
    setupFailed(ctx, `initialize answered HTTP ${reply.res.status}${refused ? '; give the profile a credential that /mcp accepts (surfaces: [mcp])' : ''}`);
  }
  const result = responseTo(reply, id)?.result;
  if (!isObject(result)) setupFailed(ctx, 'initialize was not answered with a result carrying its id (see mcp.lifecycle.initialize-result)');
  const session: McpSession = { id: reply.sessionId, credential, initialize: reply, result };
  if (options.sendInitialized ?? true) {
    const done = await postMcp(ctx, notification('notifications/initialized'), { session, label: 'setup: notifications/initialized' });
    stopIfLimited(ctx, done.res, 'setup: notifications/initialized');
    if (done.res.status === 404 && session.id !== undefined) return ENDED_AT_ONCE;
    if (done.res.status < 200 || done.res.status >= 300) setupFailed(ctx, `notifications/initialized answered HTTP ${done.res.status}`);
  }
  return session;
}

/**
 * A session setup that failed stops the check, but the exchanges it made are traffic the rule's
 * judgement decides as judge-traffic would: a failure it finds there is the rule's failure (the
 * runner keeps cases judged before a stop). Without one the rule is inconclusive, saying so: its
 * own requests were never sent, so cases that held on setup traffic show nothing of its sentence.
 */
function setupFailed(ctx: CheckContext, why: string): never {
  // The runner's context holds the whole rule; a context that holds only its metadata has no judgement to run.
  const judgement = (ctx.rule as Partial<Pick<Rule, 'judgement'>>).judgement;
  if (!judgement || ctx.rule.judgesTheRun) ctx.inconclusive(`setup failed: ${why}`);
  let judged = '';
  try {
    const run = runJudgement(ctx, judgement, ctx.http.exchanges, { source: 'active', profile: ctx.profile, partial: true });
    if (!run.failed && run.judged.size > 0) judged = `; the rule's judgement over the setup's ${run.judged.size} exchange(s) found no failure, but the requests it is about were never sent`;
  } catch {
    // A judgement that cannot judge the setup's traffic (a prerequisite it lacks) leaves the setup's failure the reason.
  }
  ctx.inconclusive(`setup failed: ${why}${judged}`);
}

/** Ends a session the check opened; best effort, so cleanup never changes a verdict. */
export async function deleteSession(ctx: CheckContext, id: string | undefined, credential: Credential): Promise<void> {
  if (id === undefined) return;
  try {
    await ctx.http.send({ method: 'DELETE', path: mcpPath(ctx), credential, headers: { [SESSION_HEADER]: id }, label: 'cleanup: end the session' });
  } catch {
    // Cleanup only: the verdict was reached before it.
  }
}

export function closeSession(ctx: CheckContext, session: McpSession): Promise<void> {
  return deleteSession(ctx, session.id, session.credential);
}

/** One initialize, judged by the caller; the session it may open is ended at once. */
export async function initializeOnce(ctx: CheckContext, protocolVersion: string, label: string): Promise<{ reply: McpReply; message: Record<string, unknown> | undefined }> {
  const id = newRequestId('initialize');
  const reply = await sendInitialize(ctx, { protocolVersion, id, label });
  await deleteSession(ctx, reply.sessionId, caller(ctx));
  return { reply, message: responseTo(reply, id) };
}

/**
 * Runs `fn` in a fresh session, and once more in another when the server ended the first before
 * serving any of `fn`'s requests in it (its first request carrying the session id answered 404):
 * MCP lets it ("The server MAY terminate the session at any time"), and the rule's requests were
 * then never answered, so a rule that judges nothing of an ended session would have nothing.
 */
export async function withSession<T>(ctx: CheckContext, fn: (session: McpSession) => Promise<T>, options: { protocolVersion?: string; sendInitialized?: boolean } = {}): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    const session = await openSession(ctx, options);
    const before = ctx.http.exchanges.at(-1)?.index ?? -1;
    try {
      const out = await fn(session);
      if (attempt === 1 && endedBeforeServing(ctx, session, before)) continue;
      return out;
    } finally {
      await closeSession(ctx, session);
    }
  }
}

/** Whether the first request of `session` sent after the exchange numbered `before` was answered 404: the server had ended the session before it served any. */
function endedBeforeServing(ctx: CheckContext, session: McpSession, before: number): boolean {
  if (session.id === undefined) return false;
  const first = ctx.http.exchanges.find((ex) => ex.index > before && ex.requestHeaders[SESSION_HEADER] === session.id);
  return first?.status === 404;
}

/** The fixture tool, which the profile declares free of side effects. */
export function safeTool(ctx: CheckContext): { name: string; arguments: Record<string, unknown> } {
  const tool = ctx.profile.fixtures.mcp.safeTool;
  if (!tool) ctx.untestable({ need: 'fixture', path: 'mcp.safeTool', remedy: 'name a tool without side effects and arguments it accepts (safeTool: { name, arguments })' });
  return tool;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
