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

export interface Generated {
  endpoint: Endpoint | undefined;
  /** `<method> <path template> <constraint id>`: what the case exercises, the key of constraint coverage. Never its expectation: that is computed from the request sent (expectation.ts). */
  constraint: string;
  label: string;
  request: ProbeRequest;
}

/** Whether a case goes to the parked run: an approve is judged for acceptance only there. */
export function toParked(g: Generated): boolean {
  return g.endpoint !== undefined && isApprove(g.endpoint);
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
  /** A /v1 run parked awaiting approval, for the approve cases, with the body that approves it. */
  parked?: { id: string; body: unknown };
}

function key(endpoint: Endpoint): string {
  return `${endpoint.method} ${endpoint.path}`;
}

/** Fresh Idempotency-Keys for a plan: one random part per process and a counter (no random bytes per case). */
const KEY_STEM = newKey();
let keyCount = 0;
function planKey(): string {
  keyCount += 1;
  return `${KEY_STEM}-${keyCount.toString(36).padStart(8, '0')}`;
}

/** Headers every request of an endpoint carries when no case changes them. */
function baseHeaders(endpoint: Endpoint): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of endpoint.headers) {
    if (h.name === 'idempotency-key' && h.required) out[h.name] = planKey();
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

function isApprove(e: Endpoint): boolean {
  return e.surface === 'v1' && e.path.endsWith('/approve');
}

function pathOf(endpoint: Endpoint, plan: PlanContext, override: Record<string, string> = {}): string {
  const values: Record<string, string> = {};
  const parked = isApprove(endpoint) ? plan.parked?.id : undefined;
  for (const [name, schema] of Object.entries(endpoint.pathParams)) values[name] = override[name] ?? parked ?? (usesExisting(endpoint) ? plan.existing[name] : undefined) ?? namingNothing(schema);
  return fillPath(endpoint.path, values);
}

/** The body a case changes: the profile's own (a fixture the deployment accepts), else the schema's minimal one. */
function baseBody(endpoint: Endpoint, spec: BodySpec, plan: PlanContext): unknown {
  const given = spec.fixture ? plan.fixtures[spec.fixture] : undefined;
  if (given !== undefined && spec.schema.safeParse(given).success) return structuredClone(given);
  if (isApprove(endpoint) && plan.parked) return structuredClone(plan.parked.body);
  return minimalOf(spec.schema);
}

/** The cases of a schema and base, computed once per process: every plan of a run (and every bench round) asks again. */
const CASES = new WeakMap<z.ZodType, Map<string, ReturnType<typeof casesOf>>>();
function cachedCases(schema: z.ZodType, base: unknown): ReturnType<typeof casesOf> {
  let bySchema = CASES.get(schema);
  if (!bySchema) CASES.set(schema, (bySchema = new Map()));
  const key = JSON.stringify(base);
  let set = bySchema.get(key);
  if (!set) bySchema.set(key, (set = casesOf(schema, base)));
  return set;
}

function bodyCases(endpoint: Endpoint, spec: BodySpec, plan: PlanContext, out: Generated[], constraints: Map<string, Constraint>): void {
  const base = baseBody(endpoint, spec, plan);
  const set = cachedCases(spec.schema, base);
  const prefix = endpoint.bodies.length > 1 ? `${spec.name}: ` : '';
  const push = (g: Generated) => out.push(g);
  for (const c of set.constraints) constraints.set(`${key(endpoint)} ${prefix}${c.id}`, c);
  for (const c of set.cases) {
    push({
      endpoint,
      constraint: `${key(endpoint)} ${prefix}${c.constraint}`,
      label: `${prefix}${c.label}`,
      request: { method: endpoint.method, path: pathOf(endpoint, plan), credential: plan.credential, headers: baseHeaders(endpoint), json: c.value, label: `generated: ${prefix}${c.label}` },
    });
  }
  // Bodies that are not the JSON object the endpoint takes.
  const raw = (label: string, body: string, cause: string, headers: Record<string, string> = {}) =>
    push({
      endpoint,
      constraint: `${key(endpoint)} ${prefix}(body) ${cause}`,
      label: `${prefix}${label}`,
      request: { method: endpoint.method, path: pathOf(endpoint, plan), credential: plan.credential, headers: { ...baseHeaders(endpoint), ...headers }, rawBody: body, label: `generated: ${prefix}${label}` },
    });
  for (const [label, body, cause] of WIRE_FORMS(base)) raw(label, body, cause);
  raw('Content-Type text/plain', JSON.stringify(base), 'content-type', { 'content-type': 'text/plain' });
}

/**
 * The wire forms of JSON itself around a valid body: malformed, not an object, empty, a byte order
 * mark, a duplicate key, deep nesting, whitespace, a number past I-JSON's range, an escaped key.
 */
function WIRE_FORMS(base: unknown): Array<[string, string, string]> {
  const json = JSON.stringify(base);
  const inner = json.slice(1, -1);
  const firstKey = /^"([^"]*)"/.exec(inner)?.[1];
  const out: Array<[string, string, string]> = [
    ['malformed JSON', '{"apicert":', 'malformed'],
    ['a JSON array', '[]', 'not-object'],
    ['a JSON string', '"apicert"', 'not-object'],
    ['JSON null', 'null', 'not-object'],
    ['an empty body', '', 'malformed'],
    // Not JSON, yet a parser's extension may read them (RFC 8259 §9): refused only where a sentence names malformed JSON.
    ['trailing garbage after the body', `${json}x`, 'extension'],
    ['a single-quoted key', `{'apicert':1${inner ? `,${inner}` : ''}}`, 'extension'],
    ['a byte order mark before the body', `\ufeff${json}`, 'wire'],
    ['whitespace around the body', ` \n\t${json}\r\n `, 'wire'],
    ['nested 512 deep under an extra key', `{"apicertDeep":${'['.repeat(512)}${']'.repeat(512)}${inner ? `,${inner}` : ''}}`, 'wire'],
    ['a number past the double range under an extra key', `{"apicertBig":1e400${inner ? `,${inner}` : ''}}`, 'wire'],
  ];
  if (firstKey !== undefined) out.push(['a duplicate key', `{${inner},"${firstKey}":${JSON.stringify((base as Record<string, unknown>)[firstKey])}}`, 'wire']);
  return out;
}

/** The request an endpoint accepts with no case applied: its first body's base, or none. */
function plainRequest(endpoint: Endpoint, plan: PlanContext): ProbeRequest {
  const req: ProbeRequest = { method: endpoint.method, path: pathOf(endpoint, plan), credential: plan.credential, headers: baseHeaders(endpoint) };
  const spec = endpoint.bodies[0];
  if (spec) req.json = baseBody(endpoint, spec, plan);
  return req;
}

/**
 * The named headers' cases. The token is checked the same way on every endpoint of a deployment
 * as a rule, so its missing case goes to every endpoint and its other cases (empty, malformed, very
 * long, repeated) to the first endpoint of each method (`everyAuthorization`).
 */
function headerCases(endpoint: Endpoint, plan: PlanContext, out: Generated[], everyAuthorization: boolean): void {
  const add: AddHeaderCase = (header, label, change) => {
    const req = plainRequest(endpoint, plan);
    change(req);
    req.label = `generated: ${header} ${label}`;
    out.push({ endpoint, constraint: `${key(endpoint)} header ${header}`, label: `${header}: ${label}`, request: req });
  };
  // A request as described, with nothing changed: what a bodiless endpoint is first asked.
  if (endpoint.bodies.length === 0) add('(none)', 'as described', () => undefined);
  const token = plan.credential.token;
  add('authorization', 'missing', (r) => (r.credential = null));
  if (everyAuthorization) authorizationCases(add, token);
  const set = (name: string, value: string) => (r: ProbeRequest) => (r.headers = { ...r.headers, [name]: value });
  for (const h of endpoint.headers) {
    if (h.name === 'authorization') continue;
    if (h.name === 'idempotency-key') idempotencyCases(h.required, add);
    else if (h.name === 'x-ai-platform-version') {
      add(h.name, 'v1', set(h.name, 'v1'));
      add(h.name, 'v2', set(h.name, 'v2'));
      add(h.name, 'empty', set(h.name, ''));
      add(h.name, 'repeated', set(h.name, 'v1, v1'));
    } else if (h.name === 'accept' && !h.required) {
      add(h.name, 'application/json', set('accept', 'application/json'));
      add(h.name, 'text/event-stream', set('accept', 'text/event-stream'));
      add(h.name, 'text/html', set('accept', 'text/html'));
      add(h.name, '*/*', set('accept', '*/*'));
      add(h.name, 'with a quality list', set('accept', 'application/json;q=0.9, text/event-stream;q=0.1'));
    } else if (h.name === 'content-type' && endpoint.bodies.length > 0) {
      add(h.name, 'application/json; charset=utf-8', set('content-type', 'application/json; charset=utf-8'));
      add(h.name, 'APPLICATION/JSON', set('content-type', 'APPLICATION/JSON'));
      add(h.name, 'application/json; charset=latin-1', set('content-type', 'application/json; charset=latin-1'));
      add(h.name, 'application/problem+json', set('content-type', 'application/problem+json'));
      add(h.name, 'very long', set('content-type', `application/json; x=${'a'.repeat(2048)}`));
    }
  }
  // Headers no endpoint names: a deployment may ignore or refuse them.
  add('x-apicert-unknown', 'an unknown header', set('x-apicert-unknown', '1'));
  add('x-http-method-override', 'DELETE', set('x-http-method-override', 'DELETE'));
}

type AddHeaderCase = (header: string, label: string, change: (req: ProbeRequest) => void) => void;

/** The token empty, without a scheme, under another scheme, very long and repeated. */
function authorizationCases(add: AddHeaderCase, token: string): void {
  const as = (value: string) => (r: ProbeRequest) => ((r.credential = null), (r.headers = { ...r.headers, authorization: value }));
  add('authorization', 'empty', as(''));
  add('authorization', 'malformed (no scheme)', as(token));
  add('authorization', 'malformed (Basic)', as(`Basic ${Buffer.from('apicert:probe').toString('base64')}`));
  add('authorization', 'very long', as(`Bearer ${'a'.repeat(4096)}`));
  add('authorization', 'repeated', as(`Bearer ${token}, Bearer ${token}`));
}

/** "16-128 characters, only alphanumerics and `.`, `_`, `:`, `-`" (/v8, required); an Identifier (/v1, optional). */
function idempotencyCases(required: boolean, add: AddHeaderCase): void {
  const name = 'idempotency-key';
  const set = (value: string) => (r: ProbeRequest) => (r.headers = { ...r.headers, [name]: value });
  const fresh = () => newKey().replace(/-/g, '');
  if (required) {
    add(name, 'missing', (r) => (r.headers = Object.fromEntries(Object.entries(r.headers ?? {}).filter(([k]) => k !== name))));
    add(name, '16 characters', set(fresh().slice(0, 16)));
    add(name, '15 characters', set(fresh().slice(0, 15)));
  }
  add(name, '128 characters', set(fresh().padEnd(128, 'k')));
  add(name, '129 characters', set(fresh().padEnd(129, 'k')));
  add(name, 'empty', set(''));
  add(name, 'malformed (a space and "/")', set(`${fresh()} a/b`));
  add(name, 'repeated', set(`${fresh()}, ${fresh()}`));
}

function paramCases(endpoint: Endpoint, plan: PlanContext, out: Generated[]): void {
  for (const [name, schema] of Object.entries(endpoint.pathParams)) {
    const add = (label: string, value: string) => {
      const req = plainRequest(endpoint, plan);
      req.path = pathOf(endpoint, plan, { [name]: value });
      req.label = `generated: ${name} ${label}`;
      out.push({ endpoint, constraint: `${key(endpoint)} path ${name}`, label: `${name}: ${label}`, request: req });
    };
    const longest = stringOf(schema, 256);
    add(longest !== undefined && schema.safeParse(longest).success ? 'at its longest, naming nothing' : 'well-formed, naming nothing', longest !== undefined && schema.safeParse(longest).success ? longest : namingNothing(schema));
    add('257 characters', 'a'.repeat(257));
    add('leading "-"', '-apicert');
    add('non-ASCII', 'grüße-🙂');
    add('a dot segment', '..');
    add('percent-encoded slash', 'a/b');
  }
}

/** Query strings on every GET: an unknown parameter, the same one twice, a very long one. */
function queryCases(endpoint: Endpoint, plan: PlanContext, out: Generated[]): void {
  if (endpoint.method !== 'GET' || endpoint.success.body === 'sse') return;
  const add = (label: string, query: string) => {
    const req = plainRequest(endpoint, plan);
    req.path = `${req.path}?${query}`;
    req.label = `generated: query ${label}`;
    out.push({ endpoint, constraint: `${key(endpoint)} query`, label: `query: ${label}`, request: req });
  };
  add('an unknown parameter', 'apicert=1');
  add('a repeated parameter', 'apicert=1&apicert=2');
  add('a very long parameter', `apicert=${'a'.repeat(4000)}`);
  add('an empty name', '=1');
  add('a malformed percent escape', 'apicert=%zz');
}

/** `Last-Event-ID` on an event stream: empty, very long, not a cursor, repeated; read only up to the answer's head. */
function lastEventIdCases(endpoint: Endpoint, plan: PlanContext, out: Generated[]): void {
  if (endpoint.success.body !== 'sse') return;
  // On a resource that exists, so the cursor is what decides (a path naming nothing is refused first).
  const existing = Object.fromEntries(Object.keys(endpoint.pathParams).flatMap((name) => (plan.existing[name] ? [[name, plan.existing[name]]] : [])));
  const add = (label: string, value: string) => {
    const req = plainRequest(endpoint, plan);
    req.path = pathOf(endpoint, plan, existing);
    req.headers = { ...req.headers, accept: 'text/event-stream', 'last-event-id': value };
    req.label = `generated: last-event-id ${label}`;
    out.push({ endpoint, constraint: `${key(endpoint)} header last-event-id`, label: `last-event-id: ${label}`, request: req });
  };
  add('empty', '');
  add('very long', 'a'.repeat(4096));
  add('not a cursor', 'apicert-not-a-cursor');
  add('repeated', '1, 2');
  add('negative', '-1');
}

/** Bodies where none is shown (cancel): malformed JSON, an array, a large body. */
function unshownBodyCases(endpoint: Endpoint, plan: PlanContext, out: Generated[]): void {
  if (endpoint.bodies.length > 0 || endpoint.method !== 'POST') return;
  const add = (label: string, body: string) => {
    const req = plainRequest(endpoint, plan);
    req.rawBody = body;
    req.headers = { ...req.headers, 'content-type': 'application/json' };
    req.label = `generated: ${label}`;
    out.push({ endpoint, constraint: `${key(endpoint)} (body) not shown`, label, request: req });
  };
  add('a malformed JSON body', '{"apicert":');
  add('a JSON array body', '[]');
  add('a large body (256 KiB)', JSON.stringify({ apicert: 'a'.repeat(256 * 1024) }));
}

const OTHER_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;

/** Another method on each known path (a deployment may serve it), and an unknown path under the surface. */
function methodCases(surface: EndpointSurface, plan: PlanContext, out: Generated[]): void {
  const byPath = new Map<string, Endpoint[]>();
  for (const e of ENDPOINTS.filter((x) => x.surface === surface)) byPath.set(e.path, [...(byPath.get(e.path) ?? []), e]);
  for (const [path, endpoints] of byPath) {
    const first = endpoints[0]!;
    for (const method of OTHER_METHODS.filter((m) => !endpoints.some((e) => e.method === m))) {
      out.push({ endpoint: first, constraint: `${key(first)} method`, label: `${method} ${path}`, request: { method, path: pathOf(first, plan), credential: plan.credential, label: `generated: unsupported method ${method}` } });
    }
  }
  for (const method of ['GET', 'POST'] as const) {
    const req: ProbeRequest = { method, path: `/${surface}/apicert-no-such-endpoint`, credential: plan.credential, label: 'generated: an unknown path' };
    if (method === 'POST') req.json = {};
    out.push({ endpoint: undefined, constraint: `${surface} unknown path`, label: `${method} an unknown path`, request: req });
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
      // A stream's events are judged by the events rules; here what opens (or is refused) only.
      paramCases(endpoint, plan, out);
      lastEventIdCases(endpoint, plan, out);
      continue;
    }
    for (const spec of endpoint.bodies) bodyCases(endpoint, spec, plan, out, constraints);
    headerCases(endpoint, plan, out, !methods.has(endpoint.method));
    methods.add(endpoint.method);
    paramCases(endpoint, plan, out);
    queryCases(endpoint, plan, out);
    unshownBodyCases(endpoint, plan, out);
  }
  methodCases(plan.surface, plan, out);
  if (!plan.readOnly) return { requests: out, constraints, skipped };
  const reads = out.filter((g) => isRead(g.request, g.endpoint));
  for (const e of ENDPOINTS.filter((x) => x.surface === plan.surface && !x.read)) skipped.push({ endpoint: key(e), reason: 'not a read, and the run is --read-only' });
  skipped.push({ endpoint: `${plan.surface} unsupported methods`, reason: 'PUT, POST and DELETE are not reads, and the run is --read-only' });
  return { requests: reads, constraints, skipped };
}
