import { randomUUID } from 'node:crypto';
import { INVALID_PARAMS, INVALID_REQUEST, type JsonRpcRequest } from '../../contract/mcp/jsonrpc.ts';
import { initializeParams, MCP_REVISION } from '../../contract/mcp/lifecycle.ts';
import { SESSION_HEADER } from '../../contract/mcp/transport.ts';
import { isRecord } from '../../util/json.ts';
import type { FakeCaller } from '../auth.ts';
import type { FakeContext } from '../context.ts';
import type { RouteRequest } from '../http.ts';
import { withExtraMembers } from './extra-members.ts';
import { accepts, writeJson } from './respond.ts';
import type { McpSession } from './session-store.ts';
import { newSessionId, sessionHeaders } from './session.ts';
import { stream, streamsEveryAnswer } from './sse.ts';
import type { McpSurface } from './surface.ts';

/** Revisions this fake speaks; it answers every other request for a version with the newest of these. */
const SUPPORTED_VERSIONS = [MCP_REVISION] as const;
/** A published revision after the fake's, which it does not speak (the fault offering an unsupported version names it). */
const UNSPOKEN_REVISION = '2025-06-18';
/** The revision before the fake's: under mcp.lifecycle.version-latest's fault the fake speaks it too, and offers it. */
const OLDER_REVISION = '2024-11-05';
const OFFERS_OLDER = 'mcp.lifecycle.version-latest/offers-older';
const SERVER_INFO = { name: 'apicert-reference-fake', version: '0.1.0' };

function negotiate(fake: FakeContext, requested: string): string | undefined {
  if ((SUPPORTED_VERSIONS as readonly string[]).includes(requested)) {
    return fake.faults.has('mcp.lifecycle.version-echo/answers-2024-11-05') ? '2024-11-05' : requested;
  }
  // Speaks the older revision too and offers it, not its latest: asked for it, it echoes it, so only the SHOULD breaks.
  if (fake.faults.has(OFFERS_OLDER)) return OLDER_REVISION;
  if (fake.faults.has('mcp.lifecycle.version-unknown/echoes-unknown')) return requested;
  // Offers a revision it does not speak: asked for that one later, the fake answers with its own.
  if (requested < UNSPOKEN_REVISION && fake.faults.has('mcp.lifecycle.version-unknown/offers-unsupported-version')) return UNSPOKEN_REVISION;
  // The lifecycle's Error Handling example answers a mismatch with an error instead.
  return fake.variants.has('mcp.lifecycle/unknown-version-error') ? undefined : SUPPORTED_VERSIONS[0];
}

/** What the server declares it can do; the variants take other legal sets and open members. */
function capabilities(fake: FakeContext): Record<string, unknown> {
  if (fake.variants.has('mcp.lifecycle/other-capabilities')) return { tools: {}, logging: {}, prompts: { listChanged: false }, resources: { subscribe: false, listChanged: false } };
  if (fake.variants.has('mcp.lifecycle/extra-properties')) {
    return { tools: { listChanged: false, 'x-apicert-extension': true }, experimental: { 'apicert.dev/probe': { enabled: true } }, 'x-apicert-vendor': { version: 1 } };
  }
  return { tools: { listChanged: false } };
}

function initializeResult(fake: FakeContext, protocolVersion: string): Record<string, unknown> {
  const result: Record<string, unknown> = {
    protocolVersion,
    capabilities: capabilities(fake),
    serverInfo: fake.variants.has('mcp.lifecycle/extra-properties') ? { ...SERVER_INFO, title: 'apicert reference fake', 'x-apicert-build': 'variant' } : SERVER_INFO,
  };
  // "instructions" is optional; the variant with other capabilities leaves it out.
  if (!fake.variants.has('mcp.lifecycle/other-capabilities')) result.instructions = 'Reference fake of /mcp: the tools echo and add have no side effects.';
  if (fake.faults.has('mcp.lifecycle.initialize-result/no-server-info')) delete result.serverInfo;
  return fake.variants.has('mcp.lifecycle/extra-properties') ? withExtraMembers(result, 'InitializeResult') : result;
}

/** `initialize`, sent on its own: a new session, its id in the response header. */
export function initialize(surface: McpSurface, r: RouteRequest, caller: FakeCaller, request: JsonRpcRequest): void {
  const { fake, sessions, responses } = surface;
  if (reinitializes(fake, r)) {
    reinitialize(surface, r, caller, request);
    return;
  }
  const params = initializeParams.safeParse(request.params ?? {});
  if (!params.success) {
    writeJson(r.res, 200, responses.error(request.id, INVALID_PARAMS, 'Invalid params: initialize needs protocolVersion, capabilities and clientInfo'));
    return;
  }
  const protocolVersion = negotiate(fake, params.data.protocolVersion);
  if (protocolVersion === undefined) {
    const data = { supported: [...SUPPORTED_VERSIONS], requested: params.data.protocolVersion };
    writeJson(r.res, 200, responses.error(request.id, INVALID_PARAMS, 'Unsupported protocol version', data));
    return;
  }
  const session = sessions.create(caller.principal, protocolVersion, newSessionId(fake, request));
  const answer = responses.result(request.id, initializeResult(fake, protocolVersion));
  // A server streaming every answer streams this one too, its session id in the stream's headers.
  if (streamsEveryAnswer(fake) && accepts(r, 'text/event-stream', false)) stream(fake, r.res, session, [request], [answer], { headers: sessionHeaders(fake, session) });
  else writeJson(r.res, 200, answer, sessionHeaders(fake, session));
}

/** The methods of the capabilities the variant declares besides tools; all lists are empty. */
const OTHER_CAPABILITY_METHODS: Record<string, Record<string, unknown>> = {
  'logging/setLevel': {},
  'prompts/list': { prompts: [] },
  'resources/list': { resources: [] },
  'resources/templates/list': { resourceTemplates: [] },
};

/**
 * The answer the lifecycle gives a request of the operation phase before the tools see it, if any:
 * a refusal before `notifications/initialized` (a variant; ping is always allowed), or the methods
 * of the other declared capabilities.
 */
export function lifecycleAnswer({ fake, responses }: McpSurface, session: McpSession, request: JsonRpcRequest): Record<string, unknown> | undefined {
  if (!session.initialized && request.method !== 'ping' && fake.variants.has('mcp.lifecycle/initialized-required')) {
    return responses.error(request.id, INVALID_REQUEST, 'Invalid Request: send notifications/initialized before other requests.');
  }
  const other = OTHER_CAPABILITY_METHODS[request.method];
  if (other && fake.variants.has('mcp.lifecycle/other-capabilities')) return responses.result(request.id, other);
  return undefined;
}

/** An initialize sent within a session, under the variant that opens a new session for it whatever it asks. */
function reinitializes(fake: FakeContext, r: RouteRequest): boolean {
  // The header first: asking for the variant marks it taken.
  return r.header(SESSION_HEADER) !== undefined && fake.variants.has('mcp.lifecycle/reinitialize-new-session');
}

/**
 * The variant's answer to an initialize sent within a session: a new session, its version the
 * fake's own when the one asked for is not supported or not a string ("Otherwise, the server MUST
 * respond with another protocol version it supports"), streamed to a client that accepts SSE, its
 * event ids counted in the new session from 1.
 */
function reinitialize({ fake, sessions, responses }: McpSurface, r: RouteRequest, caller: FakeCaller, request: JsonRpcRequest): void {
  const asked = isRecord(request.params) ? request.params.protocolVersion : undefined;
  const protocolVersion = typeof asked === 'string' && (SUPPORTED_VERSIONS as readonly string[]).includes(asked) ? asked : SUPPORTED_VERSIONS[0];
  const session = sessions.create(caller.principal, protocolVersion, newSessionId(fake, request));
  const answer = responses.result(request.id, initializeResult(fake, protocolVersion));
  if (accepts(r, 'text/event-stream', false)) stream(fake, r.res, session, [request], [answer], { headers: sessionHeaders(fake, session) });
  else writeJson(r.res, 200, answer, sessionHeaders(fake, session));
}

/**
 * What the server asks of the client on the answer to `requests` before anything else: under the
 * fault, a ping sent before notifications/initialized is answered on an SSE stream that first asks
 * for the client's roots, a request MCP asks a server to hold until it received that notification.
 */
export function requestsBeforeInitialized(fake: FakeContext, session: McpSession, requests: readonly JsonRpcRequest[]): unknown[] {
  if (session.initialized || !fake.faults.has('mcp.lifecycle.requests-before-initialized/roots-list-early')) return [];
  if (!requests.some((r) => r.method === 'ping')) return [];
  return [{ jsonrpc: '2.0', id: `roots-${randomUUID()}`, method: 'roots/list' }];
}
