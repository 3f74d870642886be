/**
 * The deterministic phase's requests for one surface, every one derived from the endpoint
 * catalogue and the contract's schemas: each body case of `casesOf`, each named header missing,
 * empty, malformed, very long and repeated, path parameters at and past their bounds, malformed
 * JSON, JSON that is not an object, a wrong Content-Type, an unsupported method on each known path
 * and an unknown path. Nothing here depends on the seed, so the phase is the same in every run.
 */
import { ENDPOINTS, fillPath, type BodySpec, type Endpoint, type EndpointSurface } from '../../contract/endpoints.ts';
import { casesOf, minimalOf, stringOf, type Constraint } from '../../contract/schema-cases.ts';
import type { Credential } from '../../profile/schema.ts';
import type { CheckContext, ProbeRequest } from '../../rule/index.ts';
import { newKey } from '../../util/ids.ts';
import type { z } from 'zod';

/**
 * What the description expects: `accept` a valid request (never refused as invalid), `reject` an
 * invalid one (with `status` where the error table names one, else any 4xx), `any` where the
 * description leaves the answer open (only "no 5xx" and the error format are judged).
 */
export type Expectation = 'accept' | 'reject' | 'any';

export interface Generated {
  endpoint: Endpoint | undefined;
  /** `<method> <path template> <constraint id>`: the key of constraint coverage. */
  constraint: string;
  label: string;
  expect: Expectation;
  /** The status the error table names for this cause, when it names one. */
  status?: number;
  request: ProbeRequest;
}

/** Where a deployment needs context: the ids and bodies the plan fills templates with. */
export interface PlanContext {
  surface: EndpointSurface;
  credential: Credential;
  /** Bodies the profile gives (fixtures), by `BodySpec.fixture`. */
  fixtures: Readonly<Record<string, unknown>>;
  /** Path parameter values of resources that exist (a mission, a run), by parameter name. */
  existing: Readonly<Record<string, string>>;
  /** `--read-only`: only what the project counts as reads. */
  readOnly: boolean;
}

/** The causes each /v8 error table names with a status; any other invalid request may get any 4xx. */
const NAMED_CAUSES: Readonly<Record<string, readonly string[]>> = {
  'POST /v8/missions': ['required', 'range', 'malformed'],
  'POST /v8/missions/{runId}/signals': ['required', 'length'],
  'POST /v8/memory/query': ['required', 'count', 'length', 'range'],
  'POST /v8/capabilities/search': ['required', 'count', 'length', 'range', 'pattern', 'type', 'enum', 'const', 'integer', 'malformed', 'not-object'],
};

function namedStatus(endpoint: Endpoint, cause: string): number | undefined {
  const causes = NAMED_CAUSES[`${endpoint.method} ${endpoint.path}`];
  return endpoint.invalidStatus !== undefined && causes?.includes(cause) ? endpoint.invalidStatus : undefined;
}

function key(endpoint: Endpoint): string {
  return `${endpoint.method} ${endpoint.path}`;
}

/** Headers every request of an endpoint carries when no case changes them. */
function baseHeaders(endpoint: Endpoint): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of endpoint.headers) {
    if (h.name === 'idempotency-key' && h.required) out[h.name] = newKey();
    if (h.name === 'accept' && h.required) out[h.name] = 'text/event-stream';
  }
  return out;
}

/** A well-formed id no deployment holds, the same in every run (so the same --seed sends the same paths). */
function namingNothing(schema: z.ZodType): string {
  const id = 'apicert-no-such-resource';
  return schema.safeParse(id).success ? id : String(minimalOf(schema));
}

/** Which endpoints address the existing resources: reads and signals, so no case cancels the mission the others signal. */
function usesExisting(e: Endpoint): boolean {
  return e.method === 'GET' ? e.success.body !== 'sse' : e.path.endsWith('/signals');
}

function pathOf(endpoint: Endpoint, plan: PlanContext, override: Record<string, string> = {}): string {
  const values: Record<string, string> = {};
  for (const [name, schema] of Object.entries(endpoint.pathParams)) values[name] = override[name] ?? (usesExisting(endpoint) ? plan.existing[name] : undefined) ?? namingNothing(schema);
  return fillPath(endpoint.path, values);
}

/** A body sent to a path naming nothing is judged after the lookup: the named status then need not come first. */
function addressesNothing(endpoint: Endpoint, plan: PlanContext): boolean {
  return Object.keys(endpoint.pathParams).some((name) => !usesExisting(endpoint) || plan.existing[name] === undefined);
}

function baseBody(spec: BodySpec, plan: PlanContext): unknown {
  const given = spec.fixture ? plan.fixtures[spec.fixture] : undefined;
  return given !== undefined && spec.schema.safeParse(given).success ? structuredClone(given) : minimalOf(spec.schema);
}

function bodyCases(endpoint: Endpoint, spec: BodySpec, plan: PlanContext, out: Generated[], constraints: Map<string, Constraint>): void {
  const base = baseBody(spec, plan);
  const set = casesOf(spec.schema, base);
  const prefix = endpoint.bodies.length > 1 ? `${spec.name}: ` : '';
  for (const c of set.constraints) constraints.set(`${key(endpoint)} ${prefix}${c.id}`, c);
  for (const c of set.cases) {
    const cause = c.constraint.split(' ').pop()!;
    const status = c.valid || addressesNothing(endpoint, plan) ? undefined : namedStatus(endpoint, cause);
    const g: Generated = {
      endpoint,
      constraint: `${key(endpoint)} ${prefix}${c.constraint}`,
      label: `${prefix}${c.label}`,
      expect: c.valid ? (spec.contextual ? 'any' : 'accept') : 'reject',
      request: { method: endpoint.method, path: pathOf(endpoint, plan), credential: plan.credential, headers: baseHeaders(endpoint), json: c.value, label: `generated: ${prefix}${c.label}` },
    };
    if (status !== undefined) g.status = status;
    out.push(g);
  }
  // Bodies that are not the JSON object the endpoint takes.
  const raw = (label: string, body: string, cause: string, headers: Record<string, string> = {}) => {
    const g: Generated = {
      endpoint,
      constraint: `${key(endpoint)} ${prefix}(body) ${cause}`,
      label,
      // A wrong Content-Type with a JSON body: a lenient deployment may read it anyway (no status is named for it).
      expect: cause === 'content-type' ? 'any' : 'reject',
      request: { method: endpoint.method, path: pathOf(endpoint, plan), credential: plan.credential, headers: { ...baseHeaders(endpoint), ...headers }, rawBody: body, label: `generated: ${label}` },
    };
    const status = addressesNothing(endpoint, plan) ? undefined : namedStatus(endpoint, cause);
    if (status !== undefined) g.status = status;
    out.push(g);
  };
  raw('malformed JSON', '{"apicert":', 'malformed');
  raw('a JSON array', '[]', 'not-object');
  raw('a JSON string', '"apicert"', 'not-object');
  raw('JSON null', 'null', 'not-object');
  raw('an empty body', '', 'malformed');
  raw('Content-Type text/plain', JSON.stringify(base), 'content-type', { 'content-type': 'text/plain' });
}

/** The request an endpoint accepts with no case applied: its first body's base, or none. */
function plainRequest(endpoint: Endpoint, plan: PlanContext): ProbeRequest {
  const req: ProbeRequest = { method: endpoint.method, path: pathOf(endpoint, plan), credential: plan.credential, headers: baseHeaders(endpoint) };
  const spec = endpoint.bodies[0];
  if (spec) req.json = baseBody(spec, plan);
  return req;
}

/**
 * The named headers' cases. The token is checked the same way on every endpoint of a deployment
 * as a rule, so its missing case goes to every endpoint and its other cases (empty, malformed, very
 * long, repeated) to the first endpoint of each method (`everyAuthorization`).
 */
function headerCases(endpoint: Endpoint, plan: PlanContext, out: Generated[], everyAuthorization: boolean): void {
  const contextual = endpoint.bodies[0]?.contextual !== undefined;
  const add = (header: string, label: string, wanted: Expectation, change: (req: ProbeRequest) => void, status?: number) => {
    const expect = contextual && wanted === 'accept' ? 'any' : wanted;
    const req = plainRequest(endpoint, plan);
    change(req);
    req.label = `generated: ${header} ${label}`;
    const g: Generated = { endpoint, constraint: `${key(endpoint)} header ${header}`, label: `${header}: ${label}`, expect, request: req };
    if (status !== undefined) g.status = status;
    out.push(g);
  };
  // A request as described, with nothing changed: what a bodiless endpoint is first asked.
  if (endpoint.bodies.length === 0) add('(none)', 'as described', 'accept', () => undefined);
  const token = plan.credential.token;
  // "A missing or expired token gives `401`" (/v8); /v1 names no status for authentication_failed.
  const missing = endpoint.surface === 'v8' ? 401 : undefined;
  add('authorization', 'missing', 'reject', (r) => (r.credential = null), missing);
  if (everyAuthorization) authorizationCases(add, token);
  for (const h of endpoint.headers) {
    if (h.name === 'authorization') continue;
    if (h.name === 'idempotency-key') idempotencyCases(endpoint, h.required, add);
    else if (h.name === 'x-ai-platform-version') {
      add(h.name, 'v1', 'accept', (r) => (r.headers = { ...r.headers, [h.name]: 'v1' }));
      add(h.name, 'v2', 'reject', (r) => (r.headers = { ...r.headers, [h.name]: 'v2' }));
      add(h.name, 'empty', 'any', (r) => (r.headers = { ...r.headers, [h.name]: '' }));
      add(h.name, 'repeated', 'any', (r) => (r.headers = { ...r.headers, [h.name]: 'v1, v1' }));
    } else if (h.name === 'accept' && !h.required) {
      add(h.name, 'application/json', 'accept', (r) => (r.headers = { ...r.headers, accept: 'application/json' }));
      add(h.name, 'text/event-stream', 'accept', (r) => (r.headers = { ...r.headers, accept: 'text/event-stream' }));
      add(h.name, 'text/html', 'any', (r) => (r.headers = { ...r.headers, accept: 'text/html' }));
    } else if (h.name === 'content-type' && endpoint.bodies.length > 0) {
      add(h.name, 'application/json; charset=utf-8', 'accept', (r) => (r.headers = { ...r.headers, 'content-type': 'application/json; charset=utf-8' }));
      add(h.name, 'very long', 'any', (r) => (r.headers = { ...r.headers, 'content-type': `application/json; x=${'a'.repeat(2048)}` }));
    }
  }
}

type AddHeaderCase = (header: string, label: string, expect: Expectation, change: (req: ProbeRequest) => void, status?: number) => void;

/** The token empty, without a scheme, under another scheme, very long and repeated. */
function authorizationCases(add: AddHeaderCase, token: string): void {
  add('authorization', 'empty', 'reject', (r) => ((r.credential = null), (r.headers = { ...r.headers, authorization: '' })));
  add('authorization', 'malformed (no scheme)', 'reject', (r) => ((r.credential = null), (r.headers = { ...r.headers, authorization: token })));
  add('authorization', 'malformed (Basic)', 'reject', (r) => ((r.credential = null), (r.headers = { ...r.headers, authorization: `Basic ${Buffer.from('apicert:probe').toString('base64')}` })));
  add('authorization', 'very long', 'reject', (r) => ((r.credential = null), (r.headers = { ...r.headers, authorization: `Bearer ${'a'.repeat(4096)}` })));
  add('authorization', 'repeated', 'any', (r) => ((r.credential = null), (r.headers = { ...r.headers, authorization: `Bearer ${token}, Bearer ${token}` })));
}

/** "16-128 characters, only alphanumerics and `.`, `_`, `:`, `-`" (/v8, required); an Identifier (/v1, optional). */
function idempotencyCases(endpoint: Endpoint, required: boolean, add: AddHeaderCase): void {
  const name = 'idempotency-key';
  const set = (value: string) => (r: ProbeRequest) => (r.headers = { ...r.headers, [name]: value });
  const fresh = () => newKey().replace(/-/g, '');
  if (required) {
    add(name, 'missing', 'reject', (r) => (r.headers = Object.fromEntries(Object.entries(r.headers ?? {}).filter(([k]) => k !== name))));
    add(name, '16 characters', 'accept', set(fresh().slice(0, 16)));
    add(name, '128 characters', 'accept', set(fresh().padEnd(128, 'k')));
    add(name, '15 characters', 'reject', set(fresh().slice(0, 15)));
    add(name, '129 characters', 'reject', set(fresh().padEnd(129, 'k')));
  } else {
    add(name, '128 characters', 'accept', set(fresh().padEnd(128, 'k')));
    add(name, '129 characters', 'reject', set(fresh().padEnd(129, 'k')));
  }
  add(name, 'empty', 'reject', set(''));
  add(name, 'malformed (a space and "/")', 'reject', set(`${fresh()} a/b`));
  add(name, 'repeated', 'reject', set(`${fresh()}, ${fresh()}`));
}

function paramCases(endpoint: Endpoint, plan: PlanContext, out: Generated[]): void {
  for (const [name, schema] of Object.entries(endpoint.pathParams)) {
    const add = (label: string, value: string, expect: Expectation) => {
      const req = plainRequest(endpoint, plan);
      req.path = pathOf(endpoint, plan, { [name]: value });
      req.label = `generated: ${name} ${label}`;
      out.push({ endpoint, constraint: `${key(endpoint)} path ${name}`, label: `${name}: ${label}`, expect, request: req });
    };
    // An id that names nothing is a 404, never a validation failure: "valid" only means not refused as malformed.
    const longest = stringOf(schema, 256);
    add(longest !== undefined && schema.safeParse(longest).success ? 'at its longest, naming nothing' : 'well-formed, naming nothing', longest !== undefined && schema.safeParse(longest).success ? longest : namingNothing(schema), 'accept');
    add('257 characters', 'a'.repeat(257), schema.safeParse('a'.repeat(257)).success ? 'any' : 'reject');
    add('leading "-"', '-apicert', schema.safeParse('-apicert').success ? 'any' : 'reject');
    add('non-ASCII', 'grüße-🙂', schema.safeParse('grüße-🙂').success ? 'any' : 'reject');
  }
}

const OTHER_METHODS = ['GET', 'POST', 'PUT', 'DELETE'] as const;

/** An unsupported method on each known path, and an unknown path under the surface. */
function methodCases(surface: EndpointSurface, plan: PlanContext, out: Generated[]): void {
  const byPath = new Map<string, Endpoint[]>();
  for (const e of ENDPOINTS.filter((x) => x.surface === surface)) byPath.set(e.path, [...(byPath.get(e.path) ?? []), e]);
  for (const [path, endpoints] of byPath) {
    const first = endpoints[0]!;
    for (const method of OTHER_METHODS.filter((m) => !endpoints.some((e) => e.method === m))) {
      out.push({
        endpoint: first,
        constraint: `${key(first)} method`,
        label: `${method} ${path}`,
        expect: 'reject',
        request: { method, path: pathOf(first, plan), credential: plan.credential, label: `generated: unsupported method ${method}` },
      });
    }
  }
  for (const method of ['GET', 'POST'] as const) {
    const req: ProbeRequest = { method, path: `/${surface}/apicert-no-such-endpoint`, credential: plan.credential, label: 'generated: an unknown path' };
    if (method === 'POST') req.json = {};
    out.push({ endpoint: undefined, constraint: `${surface} unknown path`, label: `${method} an unknown path`, expect: 'any', request: req });
  }
}

export interface Plan {
  requests: Generated[];
  /** Every constraint of every body, by `<method> <path> <constraint id>`. */
  constraints: Map<string, Constraint>;
  /** Endpoints left out, with the reason. */
  skipped: Array<{ endpoint: string; reason: string }>;
}

/** Whether a request is a read in the project's sense: GET, memory query, capability search. */
export function isRead(req: ProbeRequest, endpoint: Endpoint | undefined): boolean {
  return req.method === 'GET' || (endpoint?.read === true && req.method === endpoint.method);
}

/** The deterministic phase of a surface: every case, in catalogue order. */
export function deterministicPlan(plan: PlanContext): Plan {
  const out: Generated[] = [];
  const constraints = new Map<string, Constraint>();
  const skipped: Plan['skipped'] = [];
  const methods = new Set<string>();
  for (const endpoint of ENDPOINTS.filter((e) => e.surface === plan.surface)) {
    if (endpoint.success.body === 'sse') {
      // A stream's answer is judged by the events rules; here only what cannot open one is sent.
      paramCases(endpoint, plan, out);
      continue;
    }
    for (const spec of endpoint.bodies) bodyCases(endpoint, spec, plan, out, constraints);
    headerCases(endpoint, plan, out, !methods.has(endpoint.method));
    methods.add(endpoint.method);
    paramCases(endpoint, plan, out);
  }
  methodCases(plan.surface, plan, out);
  if (!plan.readOnly) return { requests: out, constraints, skipped };
  const reads = out.filter((g) => isRead(g.request, g.endpoint));
  for (const e of ENDPOINTS.filter((x) => x.surface === plan.surface && !x.read)) skipped.push({ endpoint: key(e), reason: 'not a read, and the run is --read-only' });
  skipped.push({ endpoint: `${plan.surface} unsupported methods`, reason: 'PUT, POST and DELETE are not reads, and the run is --read-only' });
  return { requests: reads, constraints, skipped };
}
