/**
 * Every /v1 and /v8 endpoint the two descriptions define, as one plain table: method, path
 * template, path parameters, request bodies (the contract's own zod schemas), headers, statuses of
 * the error tables and the 2xx response schema. The generated probes read it to know what to send,
 * and any judge of traffic can use `endpointOf()` to find which endpoint an exchange belongs to.
 */
import { z } from 'zod';
import { V1 as V1_SAID, V8 as V8_SAID, type Sentence } from './sentence.ts';
import { identifier } from './v1/common.ts';
import { approveRequest, openObject } from './v1/runs.ts';
import { taskRequest, taskResponse } from './v1/task.ts';
import { turnRequest } from './v1/turn.ts';
import { usageResponse } from './v1/usage.ts';
import { webhookCreated, webhookRegistration } from './v1/webhooks.ts';
import { capabilitySearchRequest, capabilitySearchResponse } from './v8/capabilities.ts';
import { certificatesResponse } from './v8/certificates.ts';
import { idempotencyKey, pathIdentifier } from './v8/common.ts';
import { coverageReport } from './v8/coverage.ts';
import { goalsResponse } from './v8/goals.ts';
import { memoryQueryRequest, memoryResponse } from './v8/memory.ts';
import { createMissionRequest, missionProjection, signalRequest } from './v8/missions.ts';
import { skill } from './v8/skills.ts';
import { trace } from './v8/traces.ts';

export type EndpointSurface = 'v1' | 'v8';
export type Method = 'GET' | 'POST';

export interface BodySpec {
  /** A name for reports when an endpoint takes more than one body shape (`/v1/execute`: turn, task). */
  name: string;
  schema: z.ZodType;
  /** Whether the description closes the top-level object ("no extra properties"). */
  closed: boolean;
  /** Where the profile keeps a body this deployment accepts (a dotted path under `fixtures`), when it needs context to accept one. */
  fixture?: string;
  /** Why a body the schema allows may still be refused (so no valid case is held to acceptance), when the description says so. */
  contextual?: string;
  /** The sentence that makes a body of this shape, within every stated constraint, one the endpoint accepts. */
  stated?: Sentence;
  /** The 2xx answer to this body when it is not the endpoint's (turn mode of `/v1/execute` streams). */
  success?: SuccessSpec;
}

export interface HeaderSpec {
  /** Lower-cased. */
  name: string;
  required: boolean;
  /** The values the description allows, when it states them. */
  schema?: z.ZodType;
}

/** What the description says a 2xx answer is. */
export interface SuccessSpec {
  statuses: readonly number[];
  /** `json`: a JSON body that `schema` judges; `sse`: an event stream; `empty`: no body; `unshown`: the description shows no body. */
  body: 'json' | 'sse' | 'empty' | 'unshown';
  schema?: z.ZodType;
}

export interface Endpoint {
  surface: EndpointSurface;
  method: Method;
  /** Path template, parameters in braces: `/v8/missions/{runId}`. */
  path: string;
  pathParams: Readonly<Record<string, z.ZodType>>;
  /** Query parameters the description defines (none of these endpoints defines one; see `queryNote`). */
  query: Readonly<Record<string, z.ZodType>>;
  queryNote?: string;
  bodies: readonly BodySpec[];
  headers: readonly HeaderSpec[];
  /** The scope the description names, when it names one. */
  scope?: string;
  /** Counted as a read by `--read-only` (GET, memory query, capability search). */
  read: boolean;
  /** Status → cause, from the surface's error table (/v8) or the endpoint's own rules (/v1). */
  errors: Readonly<Record<number, string>>;
  /** The status the error table names for a request whose body or parameters break the contract, when it names one. */
  invalidStatus?: number;
  success: SuccessSpec;
  /** Where the description leaves something open that a prober must not assume. */
  notes?: string;
  /** The sentence (the endpoint table's row) that makes a request as described one the endpoint accepts. */
  stated?: Sentence;
}

export const BEARER: HeaderSpec = { name: 'authorization', required: true };
const JSON_TYPE: HeaderSpec = { name: 'content-type', required: true, schema: z.literal('application/json') };
const V8_KEY: HeaderSpec = { name: 'idempotency-key', required: true, schema: idempotencyKey };
const V1_KEY: HeaderSpec = { name: 'idempotency-key', required: false, schema: identifier };

/** `/v8/missions/{runId}`: "path `runId` (UUID v7)". */
const runId = z.uuidv7();
/** "The principal is derived from the token. ... a resource outside it gives `404`." */
const V8_READ_ERRORS = { 401: 'token missing or expired', 403: 'scope missing', 404: 'no such resource for the principal' } as const;
const V8_LISTING_ERRORS = { 401: 'token missing or expired', 403: 'scope missing' } as const;
/** /v1: "Mapping of each `code` to an HTTP status: not shown." Only 409 (conflict) and 429/503 are named. */
const V1_ERRORS = { 409: 'same Idempotency-Key with a different request', 429: 'rate limited', 503: 'rate-limit protection unavailable' } as const;

const v8 = (e: Omit<Endpoint, 'surface' | 'query' | 'headers'> & { headers?: HeaderSpec[] }): Endpoint => ({ surface: 'v8', query: {}, ...e, headers: [BEARER, ...(e.headers ?? [])] });
const v1 = (e: Omit<Endpoint, 'surface' | 'query' | 'headers'> & { headers?: HeaderSpec[] }): Endpoint => ({ surface: 'v1', query: {}, ...e, headers: [BEARER, ...(e.headers ?? [])] });

/** A row of an Endpoints table: what makes a request as described one the endpoint accepts. */
const row8 = (quote: string) => V8_SAID('Endpoints', quote);
const row1 = (quote: string) => V1_SAID('Endpoints', quote);

export const V8_ENDPOINTS: readonly Endpoint[] = [
  v8({
    method: 'POST',
    path: '/v8/missions',
    pathParams: {},
    bodies: [{ name: 'create', schema: createMissionRequest, closed: false, fixture: 'v8.missions.succeeds', stated: row8('`/v8/missions` | `missions:write` | headers `Idempotency-Key`, `Content-Type: application/json`; body goalSpec and resourceBudget | `202` mission projection') }],
    headers: [V8_KEY, JSON_TYPE],
    scope: 'missions:write',
    read: false,
    errors: { 400: 'missing fields, budget out of range, malformed JSON', 401: 'token missing or expired', 403: 'no missions:write', 409: 'same Idempotency-Key with a different body', 429: 'rate limit for the principal' },
    invalidStatus: 400,
    success: { statuses: [202], body: 'json', schema: missionProjection },
  }),
  v8({ method: 'GET', path: '/v8/missions/{runId}', pathParams: { runId }, bodies: [], scope: 'missions:read', read: true, errors: V8_READ_ERRORS, success: { statuses: [200], body: 'json', schema: missionProjection }, stated: row8('`/v8/missions/{runId}` | `missions:read` | path `runId` (UUID v7) | `200` mission projection') }),
  v8({
    method: 'GET',
    path: '/v8/missions/{runId}/events',
    pathParams: { runId },
    bodies: [],
    headers: [{ name: 'accept', required: true, schema: z.literal('text/event-stream') }, { name: 'last-event-id', required: false }],
    scope: 'missions:read',
    read: true,
    errors: { ...V8_READ_ERRORS, 409: '`Last-Event-ID` outside the replay window' },
    success: { statuses: [200], body: 'sse' },
    stated: row8('`/v8/missions/{runId}/events` | `missions:read` | path `runId`; header `Accept: text/event-stream`; optional `Last-Event-ID` | `200` `text/event-stream`'),
  }),
  v8({
    method: 'POST',
    path: '/v8/missions/{runId}/signals',
    pathParams: { runId },
    bodies: [{ name: 'signal', schema: signalRequest, closed: false, stated: row8('`/v8/missions/{runId}/signals` | `missions:write` | headers `Idempotency-Key`, `Content-Type`; body signal and payload | `200`, empty body') }],
    headers: [V8_KEY, JSON_TYPE],
    scope: 'missions:write',
    read: false,
    errors: { 400: 'missing fields or `signal` over 256 chars', 401: 'token missing or expired', 403: 'scope missing', 404: 'no such mission', 409: 'terminal mission or different body with same key' },
    invalidStatus: 400,
    success: { statuses: [200], body: 'empty' },
  }),
  v8({
    method: 'POST',
    path: '/v8/missions/{runId}/cancel',
    pathParams: { runId },
    bodies: [],
    headers: [V8_KEY],
    read: false,
    errors: {},
    success: { statuses: [200, 202, 204], body: 'unshown' },
    notes: 'Cancel request body and response body: not shown; scope not shown.',
  }),
  v8({
    method: 'POST',
    path: '/v8/capabilities/search',
    pathParams: {},
    bodies: [{ name: 'search', schema: capabilitySearchRequest, closed: false, fixture: 'v8.capabilitySearch', stated: row8('`/v8/capabilities/search` | `capabilities:read` | body actionFamily, purpose, targetType | `200` array of manifests') }],
    headers: [JSON_TYPE],
    scope: 'capabilities:read',
    read: true,
    errors: { 400: 'invalid request', 401: 'token missing or expired', 403: 'no capabilities:read or `principalId` in body' },
    invalidStatus: 400,
    success: { statuses: [200], body: 'json', schema: capabilitySearchResponse },
  }),
  v8({
    method: 'POST',
    path: '/v8/memory/query',
    pathParams: {},
    bodies: [{ name: 'query', schema: memoryQueryRequest, closed: false, fixture: 'v8.memory', stated: row8('`/v8/memory/query` | `memory:read` | body as in Resources | `200` memory bundle') }],
    headers: [JSON_TYPE],
    scope: 'memory:read',
    read: true,
    errors: { 400: 'missing fields, empty `classes` or bounds exceeded', 401: 'token missing or expired', 403: 'no memory:read, `principalId` in body, or purpose not permitted' },
    invalidStatus: 400,
    success: { statuses: [200], body: 'json', schema: memoryResponse },
  }),
  v8({ method: 'GET', path: '/v8/skills/{skillId}', pathParams: { skillId: pathIdentifier }, bodies: [], scope: 'skills:read', read: true, errors: V8_READ_ERRORS, success: { statuses: [200], body: 'json', schema: skill }, stated: row8('`/v8/skills/{skillId}` | `skills:read` | path `skillId`: string, 1-256 chars, pattern `^[A-Za-z0-9][A-Za-z0-9._:-]*$` | `200` skill') }),
  v8({ method: 'GET', path: '/v8/traces/{traceId}', pathParams: { traceId: pathIdentifier }, bodies: [], scope: 'traces:read', read: true, errors: V8_READ_ERRORS, success: { statuses: [200], body: 'json', schema: trace }, stated: row8('`/v8/traces/{traceId}` | `traces:read` | path `traceId`: string, 1-256 chars, same pattern | `200` trace') }),
  v8({ method: 'GET', path: '/v8/context-twin/goals', pathParams: {}, bodies: [], scope: 'context:read', read: true, errors: V8_LISTING_ERRORS, success: { statuses: [200], body: 'json', schema: goalsResponse }, stated: row8('`/v8/context-twin/goals` | `context:read` | none | `200` goals') }),
  v8({ method: 'GET', path: '/v8/world-model/certificates', pathParams: {}, bodies: [], scope: 'world:read', read: true, errors: V8_LISTING_ERRORS, success: { statuses: [200], body: 'json', schema: certificatesResponse }, stated: row8('`/v8/world-model/certificates` | `world:read` | none | `200` certificates') }),
  v8({ method: 'GET', path: '/v8/coverage', pathParams: {}, bodies: [], scope: 'coverage:read', read: true, errors: V8_LISTING_ERRORS, success: { statuses: [200], body: 'json', schema: coverageReport }, stated: row8('`/v8/coverage` | `coverage:read` | none | `200` coverage report') }),
];

/** "path `id`: string run identifier": any non-empty string; the run id format is the deployment's. */
const runIdV1 = z.string().min(1);

export const V1_ENDPOINTS: readonly Endpoint[] = [
  v1({
    method: 'POST',
    path: '/v1/execute',
    pathParams: {},
    bodies: [
      // Task first: the header cases go with the first body, and a task answers without a stream.
      { name: 'task', schema: taskRequest, closed: false, fixture: 'v1.tasks.completes', stated: V1_SAID('What the service does', '`mode:task`: the body is the task envelope below, and the response is JSON that carries at least a run identifier.') },
      { name: 'turn', schema: turnRequest, closed: true, fixture: 'v1.turn', stated: V1_SAID('What the service does', '`mode:turn`: the body is the chat request contract below, and the response is a Server-Sent Events stream that runs until a terminal event.'), success: { statuses: [200], body: 'sse' } },
    ],
    headers: [V1_KEY, { name: 'x-ai-platform-version', required: false, schema: z.literal('v1') }, { name: 'accept', required: false, schema: z.enum(['text/event-stream', 'application/json']) }, JSON_TYPE],
    read: false,
    errors: V1_ERRORS,
    success: { statuses: [200], body: 'json', schema: taskResponse },
    notes: 'Turn mode answers an event stream; task mode JSON with run_id.',
  }),
  v1({ method: 'GET', path: '/v1/runs/{id}', pathParams: { id: runIdV1 }, bodies: [], read: true, errors: V1_ERRORS, success: { statuses: [200], body: 'json', schema: openObject }, stated: row1('`/v1/runs/{id}` | path `id`: string run identifier | `200` JSON run resource') }),
  v1({ method: 'GET', path: '/v1/runs/{id}/events', pathParams: { id: runIdV1 }, bodies: [], headers: [{ name: 'last-event-id', required: false, schema: z.string() }], read: true, errors: V1_ERRORS, success: { statuses: [200], body: 'sse' }, stated: row1('`/v1/runs/{id}/events` | path `id`; optional header `Last-Event-ID` (string) | `200` `text/event-stream`') }),
  v1({
    method: 'POST',
    path: '/v1/runs/{id}/approve',
    pathParams: { id: runIdV1 },
    bodies: [{ name: 'approve', schema: approveRequest, closed: true, fixture: 'v1.approve', stated: row1('`/v1/runs/{id}/approve` | path `id`; JSON ApproveRequest | `200` JSON object with open properties') }],
    headers: [JSON_TYPE],
    read: false,
    errors: V1_ERRORS,
    success: { statuses: [200], body: 'json', schema: openObject },
  }),
  v1({ method: 'POST', path: '/v1/runs/{id}/cancel', pathParams: { id: runIdV1 }, bodies: [], read: false, errors: V1_ERRORS, success: { statuses: [200], body: 'json', schema: openObject }, notes: 'no body defined', stated: row1('`/v1/runs/{id}/cancel` | path `id`; no body defined | `200` JSON object with open properties') }),
  v1({ method: 'GET', path: '/v1/usage', pathParams: {}, bodies: [], read: true, errors: V1_ERRORS, success: { statuses: [200], body: 'json', schema: usageResponse }, stated: row1('`/v1/usage` | none defined | `200` JSON, tenant-scoped usage and spend readback') }),
  v1({
    method: 'POST',
    path: '/v1/webhooks',
    pathParams: {},
    bodies: [{ name: 'register', schema: webhookRegistration, closed: false, contextual: 'Endpoint URL rules: public HTTPS on the default port; a generated URL is refused by design', fixture: 'v1.webhooks', stated: row1('`/v1/webhooks` | JSON webhook registration | `201` JSON with `signing_secret`') }],
    headers: [JSON_TYPE],
    scope: 'runs:read runs:write',
    read: false,
    errors: V1_ERRORS,
    success: { statuses: [201], body: 'json', schema: webhookCreated },
  }),
  v1({
    method: 'GET',
    path: '/v1/webhook-deliveries',
    pathParams: {},
    bodies: [],
    queryNote: 'Query parameters and response shape of the delivery listing: not shown.',
    read: true,
    errors: V1_ERRORS,
    success: { statuses: [200], body: 'unshown' },
  }),
];

export const ENDPOINTS: readonly Endpoint[] = [...V8_ENDPOINTS, ...V1_ENDPOINTS];

export function endpointKey(e: Pick<Endpoint, 'method' | 'path'>): string {
  return `${e.method} ${e.path}`;
}

const matchers = ENDPOINTS.map((e) => ({ endpoint: e, pattern: new RegExp(`^${e.path.replace(/\{[^}]+\}/g, '[^/]+')}$`) }));

/** Endpoints found, by method and path: a judgement of a recording asks for each exchange's several times (bounded: a hostile recording's paths may all differ). */
const found = new Map<string, Endpoint | undefined>();

/** The endpoint a request went to (path without query), or undefined for a path that names none. */
export function endpointOf(method: string, path: string): Endpoint | undefined {
  const query = path.indexOf('?');
  const bare = query === -1 ? path : path.slice(0, query);
  const key = `${method} ${bare}`;
  if (found.has(key)) return found.get(key);
  const endpoint = matchers.find((m) => m.endpoint.method === method && m.pattern.test(bare))?.endpoint;
  if (found.size >= 4_096) found.clear();
  found.set(key, endpoint);
  return endpoint;
}

/**
 * Whether a refusal of `method path` owes the surface's error format. /v1: "Error responses on every
 * endpoint are `application/problem+json`", and an endpoint is a row of its table (method and path):
 * a path no row names (`GET /v1/`), or a method no row names on a row's path (`GET /v1/execute`), is no
 * endpoint, and a framework's own 404 or 405 page there is legal. /v8: "Failures are
 * `application/problem+json` (RFC 9457)", whatever was asked of the gateway.
 */
export function errorFormOwed(method: string, path: string): boolean {
  return !/^\/v1(?:[/?#]|$)/.test(path) || endpointOf(method, path) !== undefined;
}

/** Whether any endpoint lives at this path, whatever its method. */
export function isKnownPath(path: string): boolean {
  const bare = path.split('?', 1)[0]!;
  return matchers.some((m) => m.pattern.test(bare));
}

/**
 * The methods a deployment of each surface supports for some resource: those its description lists,
 * and for /mcp those of the Streamable HTTP transport. Every general-purpose server "MUST support
 * the methods GET and HEAD" (RFC 9110 9.1).
 */
const SUPPORTED_METHODS: Readonly<Record<EndpointSurface | 'mcp', ReadonlySet<string>>> = {
  v8: new Set(['GET', 'HEAD', ...V8_ENDPOINTS.map((e) => e.method)]),
  v1: new Set(['GET', 'HEAD', ...V1_ENDPOINTS.map((e) => e.method)]),
  mcp: new Set(['GET', 'HEAD', 'POST', 'DELETE']),
};

/**
 * Whether a request's method is one a deployment of the surface need not implement for any resource,
 * so that RFC 9110 15.6.2 names 501 as its answer: "This is the appropriate response when the server
 * does not recognize the request method and is not capable of supporting it for any resource." The
 * method token is case-sensitive (9.1): `get` is not GET.
 */
export function unimplementedMethod(surface: EndpointSurface | 'mcp', method: string): boolean {
  return !SUPPORTED_METHODS[surface].has(method);
}

/** A path template with its parameters filled (each percent-encoded). */
export function fillPath(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? ''));
}

/**
 * The name of each operation, as rule ids and judgements call it: `<surface>.<area>.<operation>`.
 * Judgements over traffic pick their exchanges by these names (`operationOf`), so one table says
 * which request is which, for active runs, recordings and the proxy alike.
 */
export const OPERATIONS: Readonly<Record<string, string>> = {
  'POST /v8/missions': 'v8.missions.create',
  'GET /v8/missions/{runId}': 'v8.missions.get',
  'GET /v8/missions/{runId}/events': 'v8.missions.events',
  'POST /v8/missions/{runId}/signals': 'v8.missions.signals',
  'POST /v8/missions/{runId}/cancel': 'v8.missions.cancel',
  'POST /v8/capabilities/search': 'v8.capabilities.search',
  'POST /v8/memory/query': 'v8.memory.query',
  'GET /v8/skills/{skillId}': 'v8.skills.get',
  'GET /v8/traces/{traceId}': 'v8.traces.get',
  'GET /v8/context-twin/goals': 'v8.goals.list',
  'GET /v8/world-model/certificates': 'v8.certificates.list',
  'GET /v8/coverage': 'v8.coverage.get',
  'POST /v1/execute': 'v1.execute',
  'GET /v1/runs/{id}': 'v1.runs.get',
  'GET /v1/runs/{id}/events': 'v1.runs.events',
  'POST /v1/runs/{id}/approve': 'v1.runs.approve',
  'POST /v1/runs/{id}/cancel': 'v1.runs.cancel',
  'GET /v1/usage': 'v1.usage.get',
  'POST /v1/webhooks': 'v1.webhooks.create',
  'GET /v1/webhook-deliveries': 'v1.webhooks.deliveries',
};

for (const e of ENDPOINTS) if (OPERATIONS[endpointKey(e)] === undefined) throw new Error(`endpoint ${endpointKey(e)} has no operation name`);

/** The operation a request went to (path without query, as sent), or undefined. */
export function operationOf(method: string, path: string): string | undefined {
  const bare = path.split('?', 1)[0]!;
  // A trailing slash names another resource (RFC 3986): a deployment may serve it or not, so it is no endpoint of the table.
  const endpoint = endpointOf(method, bare);
  return endpoint && OPERATIONS[endpointKey(endpoint)];
}

/**
 * Every JSON-RPC method the MCP revision 2025-03-26 defines that apicert's rules send or judge,
 * by the operation name a judgement picks it by (`mcp.<method>`): requests and notifications, in
 * either direction.
 */
export const MCP_METHODS: readonly string[] = [
  'initialize',
  'ping',
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/progress',
  'notifications/message',
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/read',
  'resources/templates/list',
  'resources/subscribe',
  'resources/unsubscribe',
  'prompts/list',
  'prompts/get',
  'logging/setLevel',
  'completion/complete',
  'sampling/createMessage',
  'roots/list',
];

/** The operation name of a JSON-RPC method: `mcp.tools/call`; `mcp.unknown-method` for one the revision does not define. */
export function mcpOperation(method: string): string {
  return MCP_METHODS.includes(method) ? `mcp.${method}` : 'mcp.unknown-method';
}
