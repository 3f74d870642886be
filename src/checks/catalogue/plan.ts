/**
 * Which cases the catalogue sends at a depth, from the endpoint table and the profile alone (so
 * `apicert plan` can count them without a request): `quick` each operator's first case on the first
 * endpoint it fits, `default` its first case on every endpoint it fits (a message-scope operator on
 * the first endpoint of each method), `deep` every case everywhere.
 */
import { ENDPOINTS, fillPath, type Endpoint, type EndpointSurface } from '../../contract/endpoints.ts';
import { minimalOf } from '../../contract/schema-cases.ts';
import type { Credential } from '../../profile/schema.ts';
import type { ProbeRequest } from '../../rule/index.ts';
import { newKey } from '../../util/ids.ts';
import { HTTP_OPERATORS, MCP_OPERATORS } from './index.ts';
import type { Case, Depth, HttpTarget, McpCase } from './types.ts';

const NOTHING = 'apicert-no-such-resource';

function endpointKey(e: Endpoint): string {
  return `${e.method} ${e.path}`;
}

/** What an endpoint's base is made of whoever asks: its path with ids that name nothing, and whether the profile's body fits its schema. */
interface BaseParts {
  path: string;
  /** The profile's body when it fits the endpoint's schema. */
  given: unknown;
  /** The body a base carries (the profile's, else the schema's smallest), built once: each base takes a copy of it. */
  body: unknown;
}

function basePartsOf(endpoint: Endpoint, fixtures: Readonly<Record<string, unknown>>): BaseParts {
  const values: Record<string, string> = {};
  for (const [name, schema] of Object.entries(endpoint.pathParams)) values[name] = schema.safeParse(NOTHING).success ? NOTHING : String(minimalOf(schema));
  const spec = endpoint.bodies[0];
  const fixture = spec?.fixture ? fixtures[spec.fixture] : undefined;
  const given = fixture !== undefined && spec!.schema.safeParse(fixture).success ? fixture : undefined;
  return { path: fillPath(endpoint.path, values), given, body: spec ? (given !== undefined ? given : minimalOf(spec.schema)) : undefined };
}

/** The base from its parts: a fresh idempotency key and a body of its own (an operator changes its copy). */
function baseFrom(endpoint: Endpoint, parts: BaseParts, credential: Credential): ProbeRequest {
  const headers: Record<string, string> = {};
  for (const h of endpoint.headers) {
    if (h.name === 'idempotency-key' && h.required) headers[h.name] = newKey();
    if (h.name === 'accept' && h.required) headers[h.name] = 'text/event-stream';
  }
  const req: ProbeRequest = { method: endpoint.method, path: parts.path, credential, headers };
  // A copy per base: an operator changes its own (the catalogue builds a base for every operator and endpoint).
  if (endpoint.bodies[0]) req.json = copyOf(parts.body);
  return req;
}

/** A deep copy of a JSON value (a fixture, a schema's smallest body): plain arrays and objects by hand, anything else as structuredClone copies it. */
function copyOf(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(copyOf);
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return structuredClone(value);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const copy = copyOf((value as Record<string, unknown>)[key]);
    // A member named __proto__ (JSON.parse makes it an own one) stays a member, not the copy's prototype.
    if (key === '__proto__') Object.defineProperty(out, key, { value: copy, enumerable: true, writable: true, configurable: true });
    else out[key] = copy;
  }
  return out;
}

/** The request an endpoint takes with nothing changed: the profile's body where it gives one, ids that name nothing. */
export function baseRequest(endpoint: Endpoint, credential: Credential, fixtures: Readonly<Record<string, unknown>>): ProbeRequest {
  return baseFrom(endpoint, basePartsOf(endpoint, fixtures), credential);
}

export interface PlanInput {
  surface: EndpointSurface;
  depth: Depth;
  credential: Credential;
  fixtures: Readonly<Record<string, unknown>>;
  /** `--read-only`: only GET endpoints and the reads the project counts (memory query, capability search). */
  readOnly: boolean;
}

/** Every HTTP case of a surface at a depth, in catalogue order. */
export function httpCases(input: PlanInput): Case[] {
  const out: Case[] = [];
  const endpoints = ENDPOINTS.filter((e) => e.surface === input.surface && (!input.readOnly || e.read));
  // Each operator gets a base of its own on each endpoint, but the schema checks behind one are the same for every operator.
  const parts = new Map(endpoints.map((e) => [e, basePartsOf(e, input.fixtures)]));
  for (const op of HTTP_OPERATORS) {
    const methods = new Set<string>();
    for (const endpoint of endpoints) {
      const t: HttpTarget = { surface: input.surface, endpoint, base: baseFrom(endpoint, parts.get(endpoint)!, input.credential), credential: input.credential, depth: input.depth };
      if (!op.applies(t)) continue;
      if (op.scope === 'message' && input.depth === 'default' && methods.has(endpoint.method)) continue;
      methods.add(endpoint.method);
      const built = op.cases(t);
      // A fresh idempotency key per case: two cases never replay one another.
      const fresh = (input.depth === 'deep' ? built : built.slice(0, 1)).map((b) => ({ ...b, operator: op.id, family: op.family, endpoint: endpointKey(endpoint) }));
      out.push(...fresh);
      if (input.depth === 'quick') break;
    }
  }
  return out;
}

/** Every /mcp case at a depth. */
export function mcpCases(depth: Depth, tool: { name: string; arguments: Record<string, unknown> } | undefined): Array<McpCase & { operator: string; family: Case['family'] }> {
  return MCP_OPERATORS.flatMap((op) => {
    const cases = op.cases(tool);
    return (depth === 'deep' ? cases : cases.slice(0, 1)).map((c) => ({ ...c, operator: op.id, family: op.family }));
  });
}

/** How many requests the catalogue sends on a surface at a depth (deep: its deterministic phase; random pairs come on top, within the budget). */
export function caseCount(surface: EndpointSurface | 'mcp', input: Omit<PlanInput, 'depth' | 'surface'>, depth: Depth): number {
  return surface === 'mcp' ? mcpCases(depth, undefined).length : httpCases({ ...input, surface, depth }).length;
}

/** Requests per catalogue round trip when the target is `latencyMs` away: the catalogue sends 4 at once per surface. */
const PARALLEL_SENDS = 4;

export interface DepthLine {
  depth: Depth;
  requests: number;
  /** Seconds the catalogue's requests take at 100 ms a round trip (4 at once per surface, the surfaces one after another). */
  secondsAt100ms: number;
}

/**
 * What each depth costs, for `apicert plan`: requests of the deterministic phase on /v8, /v1 and
 * /mcp (deep adds up to 200 random pairs per surface within the request budget). Counted from
 * the schemas' minimal bodies: a profile's bodies may add field cases at `deep`.
 */
export function depthTable(readOnly: boolean): DepthLine[] {
  const credential = { name: 'plan', token: 'plan-token-not-sent' } as Credential;
  return (['quick', 'default', 'deep'] as const).map((depth) => {
    const perSurface = (['v8', 'v1', 'mcp'] as const).map((s) => caseCount(s, { credential, fixtures: {}, readOnly }, depth) + (depth === 'deep' && s !== 'mcp' ? 200 : 0));
    const requests = perSurface.reduce((a, b) => a + b, 0);
    const secondsAt100ms = Math.round(perSurface.reduce((a, n, i) => a + (i === 2 ? n : Math.ceil(n / PARALLEL_SENDS)), 0) * 0.1);
    return { depth, requests, secondsAt100ms };
  });
}
