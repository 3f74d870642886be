/**
 * What the descriptions expect of a request, computed from the request as it was sent (after
 * shrinking, after the deployment's ids were filled in), never from a label given when it was
 * generated. Three values, each with its source:
 *
 * - `accept`: every part of the request is within what a sentence promises (the endpoint's row, the
 *   body's table); the answer must be the endpoint's documented success answer;
 * - `refuse`: a sentence states a constraint the request breaks; the answer must be a refusal in the
 *   surface's error format, with `status` where the error table names one (`codes` on /mcp);
 * - `open`: nothing states what happens; only "no 5xx" and the error format of a refusal are judged.
 *
 * Pure: the same request and the same `Known` give the same expectation, so a recorded exchange is
 * judged the way the active run judged it.
 */
import type { z } from 'zod';
import { endpointOf, isKnownPath, type BodySpec, type Endpoint, type SuccessSpec } from '../../contract/endpoints.ts';
import { readAsAjv } from '../../contract/coercion.ts';
import { marksOf, type ConstraintKind, type Marks } from '../../contract/marks.ts';
import { defOf, unwrapOnce } from '../../contract/schema-cases.ts';
import { MCP, sentenceText, standard, V1, V8, type Sentence } from '../../contract/sentence.ts';
import type { ProbeRequest } from '../../rule/index.ts';
import { mediaTypeOf, otherCharset } from '../../rule/media-type.ts';
import { parsedAs } from '../../traffic/read.ts';
import { isRecord } from '../../util/json.ts';
import { scopeRefusal, V1_SCOPES_NOT_SHOWN } from '../../traffic/scope-refusal.ts';

export type Expectation =
  | {
      kind: 'accept';
      because: Sentence;
      constraint: string;
      /**
       * Why a refusal for a missing scope stays open although the request is one the description
       * accepts: the endpoint's scope is not shown, so the caller's key may lack it (`refusedForScope`).
       */
      scopeOpen?: string;
    }
  | {
      kind: 'refuse';
      because: Sentence;
      constraint: string;
      /** The HTTP status the error table names for this cause (/v1, /v8), when it names one. */
      status?: number;
      /** /mcp: the JSON-RPC error codes the standard names for this cause, when it names them. */
      codes?: readonly number[];
    }
  | { kind: 'open'; why: string; constraint: string };

/** A request as it went on the wire. */
export interface SentRequest {
  method: string;
  /** Path and query as sent. */
  path: string;
  /** Lower-cased names, as sent, without the Authorization header a profile credential set. */
  headers: Readonly<Record<string, string>>;
  /** The body's text as sent; undefined when none was sent. */
  body?: string;
  /** The value `body` serializes, when the sender built it from one (spares a parse; a raw body has none). */
  json?: unknown;
  /**
   * A recorded body's JSON as the journal already parsed it (`bodyJson`: undefined when it is not
   * JSON or nests deeper than MAX_JSON_DEPTH), with the text it was parsed from: spares a parse of
   * the same text, and is read only while `body` is that text. Unlike `json`, the wire form is still read.
   */
  parsed?: { text: string; value: unknown };
  /** The name of the profile credential whose token the Authorization header carried; null when none did. */
  credential: string | null;
  /**
   * A well-formed `Bearer` token judged with no profile credentials at all (a proxy or a recording
   * given no --profile): whether the deployment holds it valid is in no part of the traffic.
   */
  bearerOfUnknownValidity?: true;
}

/** What the deployment holds, which no request shows: what makes a well-formed request acceptable. */
export interface Known {
  /** Path parameter values that name resources of the credential's principal (a waiting mission, a run). */
  existing: readonly string[];
  /** /v1 runs parked awaiting approval: an approve body is judged for acceptance only there. */
  parked: readonly string[];
  /** Bodies the profile gives as accepted by this deployment, by `BodySpec.fixture`. */
  bases: Readonly<Record<string, unknown>>;
  /** The profile's public webhook receiver (`fixtures.webhooks.publicReceiverUrl`), when given. */
  publicReceiverUrl?: string;
  /** /mcp: the session id the deployment handed out, when one is open. */
  mcpSession?: string;
  /** /mcp: the deployment accepted that session's notifications/initialized (the operation phase began). */
  mcpInitialized?: boolean;
  /** The body that approves each parked run (its own action_digest), by run id: the base of an approve sent there. */
  approvals?: Readonly<Record<string, unknown>>;
}

export const NOTHING_KNOWN: Known = { existing: [], parked: [], bases: {} };

let lastEndpoint: { method: string; path: string; endpoint: Endpoint | undefined } | undefined;

/**
 * `endpointOf`, kept for the last request it was asked of: the journal's walk, the expectation and
 * the judgement ask it of the same request in turn. Sound: a pure function of the method and the
 * path over the contract's fixed table.
 */
export function endpointFor(method: string, path: string): Endpoint | undefined {
  const last = lastEndpoint;
  if (last !== undefined && last.method === method && last.path === path) return last.endpoint;
  const endpoint = endpointOf(method, path);
  lastEndpoint = { method, path, endpoint };
  return endpoint;
}

/** The wire form of a probe request, for `expectationOf` and `judgeAnswer`. */
export function sentOf(req: ProbeRequest): SentRequest {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers ?? {})) headers[k.toLowerCase()] = v;
  const body = req.json !== undefined ? JSON.stringify(req.json) : req.rawBody;
  if (body !== undefined && headers['content-type'] === undefined) headers['content-type'] = 'application/json';
  const out: SentRequest = { method: req.method, path: req.path, headers, credential: req.credential && headers.authorization === undefined ? req.credential.name : null };
  if (body !== undefined) out.body = body;
  if (req.json !== undefined) out.json = req.json;
  return out;
}

type Finding = { kind: 'refuse'; because: Sentence; constraint: string; status?: number; codes?: readonly number[] } | { kind: 'open'; why: string; constraint: string };

function decide(findings: readonly Finding[], accept: () => Expectation): Expectation {
  const refusals = findings.filter((f): f is Extract<Finding, { kind: 'refuse' }> => f.kind === 'refuse');
  if (refusals.length > 0) {
    const first = refusals[0]!;
    // Causes may be checked in either order: a status is owed only when every cause names the same one
    // and no open cause (which a deployment may refuse first, with another status) is there beside them.
    const statuses = new Set(refusals.map((r) => r.status));
    const out: Expectation = { kind: 'refuse', because: first.because, constraint: first.constraint };
    if (statuses.size === 1 && first.status !== undefined && refusals.length === findings.length) out.status = first.status;
    if (first.codes) out.codes = first.codes;
    return out;
  }
  const open = findings.find((f) => f.kind === 'open');
  return open ?? accept();
}

// ---------------------------------------------------------------------------------------------
// Sentences the expectation rests on beyond the contract's marks.

export const EXPECTATION_SENTENCES = {
  v8Token: V8('Authentication', 'A missing or expired token gives `401`.'),
  v8Bearer: V8('Endpoints', 'Header `Authorization: Bearer <ACCESS_TOKEN>` is required on every `/v8` call.'),
  v1Bearer: V1('Authentication', 'Scheme: HTTP bearer.'),
  v8Key: V8('Endpoints > Rules', 'Mutating operations require `Idempotency-Key`: 16-128 characters, only alphanumerics and `.`, `_`, `:`, `-`.'),
  v1Key: V1('Endpoints', '`Idempotency-Key` (optional, Identifier)'),
  v1Identifier: V1('Resources and their fields > Shared primitives', '| Identifier | string | length 1-128; pattern `^[A-Za-z0-9][A-Za-z0-9._:-]*$` |'),
  v1Version: V1('Endpoints', '`X-AI-Platform-Version` (optional, const `v1`)'),
  v8Lookup: V8('Authentication', 'Mission, trace and skill lookups are limited to the caller\'s principal and policy scope; a resource outside it gives `404`.'),
  v8RunId: V8('Endpoints', 'path `runId` (UUID v7)'),
  v8PathId: V8('Endpoints', 'path `skillId`: string, 1-256 chars, pattern `^[A-Za-z0-9][A-Za-z0-9._:-]*$`'),
  v1Scopes: V1_SCOPES_NOT_SHOWN,
  getMcp: V8('Endpoints', '| GET | `/mcp` | | none | `405 Method Not Allowed`, no JSON success body (server-to-client push is disabled) |'),
  jsonBody: standard('RFC 8259', '§2', 'A JSON text is a serialized value.'),
  charsetIgnored: standard('RFC 8259', '§11', 'No "charset" parameter is defined for this registration. Adding one really has no effect on compliant recipients.'),
  surrogates: standard('RFC 8259', '§8.2', 'the behavior of software that receives JSON texts containing such values is unpredictable'),
  mcpJsonRpc: MCP('Base Protocol', 'All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification.'),
  mcpId: MCP('Base Protocol', 'Requests MUST include a string or integer ID.'),
  parseError: standard('JSON-RPC 2.0', '§5.1', '-32700 Parse error: Invalid JSON was received by the server.'),
  invalidRequest: standard('JSON-RPC 2.0', '§5.1', '-32600 Invalid Request: The JSON sent is not a valid Request object.'),
  methodNotFound: standard('JSON-RPC 2.0', '§5.1', '-32601 Method not found: The method does not exist / is not available.'),
  emptyBatch: standard('JSON-RPC 2.0', '§6', 'If the batch rpc call itself fails to be recognized as an valid JSON or as an Array with at least one value, the response from the Server MUST be a single Response object.'),
} as const;
const S = EXPECTATION_SENTENCES;

/**
 * The causes a /v8 error table names its status for: a kind (`range`: "budget out of range", either
 * way), or `kind:issue` and `kind:issue:field` where it names one side of a bound only ("`signal` over
 * 256 chars", "empty `classes`", "bounds exceeded"): an empty signal or a limit of 0 gets any refusal.
 */
const NAMED_CAUSES: Readonly<Record<string, readonly string[] | 'all'>> = {
  'POST /v8/missions': ['required', 'range', 'malformed'],
  'POST /v8/missions/{runId}/signals': ['required', 'length:too_big:signal'],
  'POST /v8/memory/query': ['required', 'count:too_small:classes', 'count:too_big', 'length:too_big', 'range:too_big'],
  'POST /v8/capabilities/search': 'all',
};

/** The bound an issue breaks (`too_big`, `too_small`) and where, for the causes named on one side only. */
interface Cause {
  issue: string;
  field: string;
}

type NamedCause = readonly [kind: string, issue: string | undefined, field: string | undefined];

const namedCauses = new WeakMap<Endpoint, readonly NamedCause[] | 'all' | null>();

/** An endpoint's NAMED_CAUSES split once: asked for every issue of every generated body (~15 ms of a 1.1 s judging built the key and split the causes each time). */
function causesOf(endpoint: Endpoint): readonly NamedCause[] | 'all' | null {
  let causes = namedCauses.get(endpoint);
  if (causes === undefined) {
    const listed = NAMED_CAUSES[`${endpoint.method} ${endpoint.path}`];
    causes = listed === undefined ? null : listed === 'all' ? 'all' : listed.map((c) => {
      const [k, issue, field] = c.split(':');
      return [k!, issue, field] as const;
    });
    namedCauses.set(endpoint, causes);
  }
  return causes;
}

function namedStatus(endpoint: Endpoint, kind: ConstraintKind | 'malformed', cause?: Cause): number | undefined {
  if (endpoint.invalidStatus === undefined) return undefined;
  const causes = causesOf(endpoint);
  if (!causes) return undefined;
  if (causes === 'all') return endpoint.invalidStatus;
  const named = causes.some(([k, issue, field]) => k === kind && (issue === undefined || issue === cause?.issue) && (field === undefined || field === cause?.field));
  return named ? endpoint.invalidStatus : undefined;
}

const key = (e: Pick<Endpoint, 'method' | 'path'>) => `${e.method} ${e.path}`;

// ---------------------------------------------------------------------------------------------
// Headers and path.

const V8_KEY = /^[A-Za-z0-9._:-]{16,128}$/;
const V1_IDENTIFIER = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

function authorization(endpoint: Endpoint, sent: SentRequest, out: Finding[]): void {
  if (sent.credential !== null) return;
  const constraint = `${key(endpoint)} header authorization`;
  const header = sent.headers.authorization;
  // Two tokens in one header: how a deployment reads it is its own choice.
  if (header !== undefined && header.includes(',')) return void out.push({ kind: 'open', why: 'two credentials in one Authorization header: which one counts is not stated', constraint });
  // Silence is open: a token no profile names may be valid (accepted) or not (401): either answer is legal.
  if (sent.bearerOfUnknownValidity) return void out.push({ kind: 'open', why: 'a bearer token no profile names: whether the deployment holds it valid is not in the traffic (give --profile)', constraint });
  if (endpoint.surface === 'v8') {
    const finding: Finding = { kind: 'refuse', because: header === undefined ? S.v8Token : S.v8Bearer, constraint };
    if (header === undefined) finding.status = 401;
    out.push(finding);
  } else if (header === undefined && tokenElsewhere(sent)) out.push({ kind: 'open', why: 'a key in the access_token query parameter or a cookie: /v1 names only the bearer scheme, and RFC 6750 2.3 lets a resource server read the query', constraint });
  else out.push({ kind: 'refuse', because: S.v1Bearer, constraint });
}

/** A credential sent outside the Authorization header: the access_token query parameter (RFC 6750 2.3) or a cookie of that name. */
function tokenElsewhere(sent: SentRequest): boolean {
  const query = sent.path.indexOf('?');
  return (query >= 0 && /(?:^|&)access_token=/.test(sent.path.slice(query + 1))) || /(?:^|;)\s*access_token=/.test(sent.headers.cookie ?? '');
}

function headers(endpoint: Endpoint, spec: BodySpec | undefined, sent: SentRequest, out: Finding[]): void {
  const h = sent.headers;
  for (const header of endpoint.headers) {
    const value = h[header.name];
    if (header.name === 'idempotency-key') {
      if (endpoint.surface === 'v8') {
        if (value === undefined || !V8_KEY.test(value)) out.push({ kind: 'refuse', because: S.v8Key, constraint: headerConstraint(endpoint, header.name) });
      } else if (value !== undefined && !V1_IDENTIFIER.test(value)) out.push({ kind: 'refuse', because: value === '' ? S.v1Identifier : S.v1Key, constraint: headerConstraint(endpoint, header.name) });
    } else if (header.name === 'x-ai-platform-version' && value !== undefined) {
      if (value === '' || value.includes(',')) out.push({ kind: 'open', why: 'an empty or repeated X-AI-Platform-Version: how it is read is not stated', constraint: headerConstraint(endpoint, header.name) });
      else if (value !== 'v1') out.push({ kind: 'refuse', because: S.v1Version, constraint: headerConstraint(endpoint, header.name) });
    } else if (header.name === 'accept') {
      const allowed = header.schema;
      if (value === undefined ? header.required : !allowed?.safeParse(value).success) out.push({ kind: 'open', why: `Accept ${value === undefined ? 'missing' : JSON.stringify(value.slice(0, 40))}: content negotiation beyond the listed types is not stated`, constraint: headerConstraint(endpoint, header.name) });
    } else if (header.name === 'content-type' && sent.body !== undefined) {
      const media = mediaTypeOf(value);
      if (media !== 'application/json' || (value ?? '').length > 256) out.push({ kind: 'open', why: `Content-Type ${value === undefined ? 'missing' : JSON.stringify(value.slice(0, 40))}: whether a deployment reads the body anyway is not stated`, constraint: headerConstraint(endpoint, header.name) });
      else if (otherCharset(value) !== undefined) out.push({ kind: 'open', why: `Content-Type ${JSON.stringify(value!.slice(0, 40))}: ${OTHER_CHARSET}`, constraint: headerConstraint(endpoint, header.name) });
    } else if (header.name === 'last-event-id' && value !== undefined) {
      out.push({ kind: 'open', why: 'a Last-Event-ID that is not a cursor this stream gave: only a cursor outside the replay window has a stated answer', constraint: headerConstraint(endpoint, header.name) });
    }
  }
  // RFC 9110 §12.5.1: an Accept that admits no media type of the success answer (the mode's, on /v1/execute) "can" get 406 or be disregarded.
  const accept = h.accept;
  if (accept !== undefined && !admits(accept, (spec?.success ?? endpoint.success).body)) out.push({ kind: 'open', why: `Accept ${JSON.stringify(accept.slice(0, 40))} admits no media type of the success answer: RFC 9110 §12.5.1 lets a server answer 406 or disregard it`, constraint: headerConstraint(endpoint, 'accept') });
}

/** Whether an Accept field value admits the success answer's media type (a range with q above 0); a malformed value admits nothing. */
export function admits(accept: string, body: SuccessSpec['body']): boolean {
  return accept.split(',').some((range) => {
    const [type = '', ...params] = range.split(';').map((p) => p.trim().toLowerCase());
    const q = params.find((p) => /^q\s*=/.test(p));
    if (q !== undefined && !(Number(q.split('=')[1]) > 0)) return false;
    if (type === '*/*') return true;
    const [main, sub] = type.split('/');
    if (!main || !sub) return false;
    if (body === 'sse') return main === 'text' && (sub === '*' || sub === 'event-stream');
    return main === 'application' && (sub === '*' || sub === 'json' || sub.endsWith('+json'));
  });
}

function headerConstraint(endpoint: Endpoint, name: string): string {
  return `${key(endpoint)} header ${name}`;
}

/** Where the endpoint's path template has a parameter: each segment's index and the parameter's name. */
export function pathParamsOf(endpoint: Pick<Endpoint, 'path'>): ReadonlyArray<readonly [number, string]> {
  let params = PARAMS.get(endpoint);
  if (!params) {
    params = endpoint.path.split('/').flatMap((part, i) => {
      const name = /^\{(.+)\}$/.exec(part)?.[1];
      return name ? [[i, name] as const] : [];
    });
    PARAMS.set(endpoint, params);
  }
  return params;
}

/** Keyed on the endpoint object: its path template is fixed (the contract's table). */
const PARAMS = new WeakMap<object, ReadonlyArray<readonly [number, string]>>();

/** Path parameters: the value sent, against the sentence that gives its format, and whether it names something. */
function pathParams(endpoint: Endpoint, sent: SentRequest, known: Known, out: Finding[]): void {
  const params = pathParamsOf(endpoint);
  if (params.length === 0) return;
  const actual = sent.path.split('?', 1)[0]!.split('/');
  for (const [i, name] of params) {
    const value = safeDecode(actual[i] ?? '');
    const constraint = `${key(endpoint)} path ${name}`;
    const schema = endpoint.pathParams[name]!;
    if (known.existing.includes(value) || known.parked.includes(value)) continue;
    if (endpoint.surface === 'v1') {
      out.push({ kind: 'open', why: 'the /v1 run id format is not shown, and no status is named for a run that does not exist', constraint });
      continue;
    }
    if (!schema.safeParse(value).success) {
      out.push({ kind: 'refuse', because: name === 'runId' ? S.v8RunId : S.v8PathId, constraint });
      continue;
    }
    // A well-formed id naming nothing: a lookup outside the principal is a 404; cancel's answer is not shown.
    if (endpoint.path.endsWith('/cancel')) {
      out.push({ kind: 'open', why: 'cancel of a mission that does not exist: its answer is not shown', constraint });
      continue;
    }
    out.push({ kind: 'refuse', because: S.v8Lookup, constraint, status: 404 });
  }
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function query(endpoint: Endpoint, sent: SentRequest, out: Finding[]): void {
  const at = sent.path.indexOf('?');
  if (at < 0) return;
  out.push({ kind: 'open', why: `query parameters on ${endpoint.path}: ${endpoint.queryNote ?? 'none are defined, and what a deployment does with one is not stated'}`, constraint: `${key(endpoint)} query` });
}

// ---------------------------------------------------------------------------------------------
// Bodies: the zod issues of the body sent, each looked up in the contract's marks.

type Segment = string | number;

/** The schema nodes (outermost first, wrappers included) that judge the value at `path`, or [] where nothing does. */
export function nodesAt(root: z.ZodType, value: unknown, path: readonly Segment[]): z.ZodType[] {
  let chain = chainOf(root);
  let at: unknown = value;
  for (const seg of path) {
    const inner = chain[chain.length - 1]!;
    const def = defOf(inner);
    let next: z.ZodType | undefined;
    if (def.type === 'union') {
      const option = optionFor(def, at);
      if (!option) return [];
      chain = chainOf(option);
      const d = defOf(chain[chain.length - 1]!);
      next = d.shape?.[String(seg)] ?? d.element ?? d.valueType;
    } else if (def.type === 'object') next = def.shape?.[String(seg)] ?? def.catchall;
    else if (def.type === 'array') next = def.element;
    else if (def.type === 'record') next = def.valueType;
    if (!next) return [];
    at = isRecord(at) || Array.isArray(at) ? (at as Record<string, unknown>)[seg as string] : undefined;
    chain = chainOf(next);
  }
  return chain;
}

function chainOf(schema: z.ZodType): z.ZodType[] {
  const out = [schema];
  let cur = schema;
  for (let i = 0; i < 8; i += 1) {
    const next = unwrapOnce(cur);
    if (next === cur) break;
    out.push((cur = next));
  }
  return out;
}

type Def = ReturnType<typeof defOf>;

function optionFor(def: Def, value: unknown): z.ZodType | undefined {
  const options = def.options ?? [];
  if (def.discriminator && isRecord(value)) {
    const tag = value[def.discriminator];
    return options.find((o) => nodeOf(o).def!.shape?.[def.discriminator!]?.safeParse(tag).success);
  }
  return options.find((o) => o.safeParse(value).success) ?? options.find((o) => nodeOf(o).def!.type === (Array.isArray(value) ? 'array' : typeof value));
}

function marksAt(chain: readonly z.ZodType[]): Marks[] {
  return chain.map((n) => marksOf(n)).filter((m): m is Marks => m !== undefined);
}

function pathText(path: readonly Segment[]): string {
  return path.map((p) => (typeof p === 'number' ? '[]' : `.${p}`)).join('').replace(/^\./, '') || '(body)';
}

function getAt(root: unknown, path: readonly Segment[]): { present: boolean; value: unknown } {
  let at = root;
  for (const p of path) {
    if (!(isRecord(at) || Array.isArray(at)) || !(p in (at as object))) return { present: false, value: undefined };
    at = (at as Record<string, unknown>)[p as string];
  }
  return { present: true, value: at };
}

interface Issue {
  code: string;
  path: PropertyKey[];
  origin?: string;
  expected?: string;
  discriminator?: string;
  maximum?: number | bigint;
  minimum?: number | bigint;
}

/** zod's `.int()` bounds an integer to the safe range unasked: an issue of that bound is I-JSON's (RFC 7493 §2.2), not the description's. */
export function safeIntegerBound(issue: Issue): boolean {
  if (issue.origin !== 'int' || (issue.code !== 'too_big' && issue.code !== 'too_small')) return false;
  const bound = issue.code === 'too_big' ? issue.maximum : issue.minimum;
  return bound !== undefined && Math.abs(Number(bound)) === Number.MAX_SAFE_INTEGER;
}

function kindOf(issue: Issue, body: unknown, chain: readonly z.ZodType[]): ConstraintKind {
  const path = issue.path as Segment[];
  switch (issue.code) {
    case 'invalid_type':
      if (!getAt(body, path).present) return 'required';
      return issue.expected === 'int' && typeof getAt(body, path).value === 'number' ? 'integer' : 'type';
    case 'too_big':
    case 'too_small':
      return issue.origin === 'string' ? 'length' : issue.origin === 'number' || issue.origin === 'int' ? 'range' : 'count';
    case 'invalid_format':
      return 'pattern';
    case 'invalid_value':
      return chain.length > 0 && defOf(chain[chain.length - 1]!).type === 'literal' ? 'const' : 'enum';
    case 'unrecognized_keys':
      return 'closed';
    case 'invalid_union':
      return issue.discriminator ? 'enum' : 'type';
    case 'not_multiple_of':
      return 'integer';
    case 'invalid_key':
      return 'length';
    case 'custom':
      return 'custom';
    default:
      return 'type';
  }
}

/**
 * One finding per zod issue of a body that breaks the schema: stated (refuse) or the fake's own choice (open).
 * On /v8 a value of another JSON type that ajv's coercion reads as the field's type is open (`coercedReading`).
 */
function bodyIssues(endpoint: Endpoint, spec: BodySpec, sent: unknown, prefix: string, out: Finding[]): void {
  const parsed = parsedAs(spec.schema, sent);
  if (parsed.success) return;
  const strict = (parsed.error.issues as unknown as Issue[]).map((issue) => [issue, sent] as const);
  const judged = endpoint.surface === 'v8' ? coercedReading(endpoint, spec, sent, prefix, strict, out) : strict;
  for (const [issue, body] of judged) {
    // A record's bad key is judged by the record's marks, an unknown discriminator by the union's.
    const path = (issue.code === 'invalid_key' || issue.discriminator ? issue.path.slice(0, -1) : issue.path) as Segment[];
    if (safeIntegerBound(issue)) {
      out.push({ kind: 'open', why: `${pathText(path)}: past I-JSON's safe integer range (RFC 7493 §2.2): a deployment may read it exactly, round it or refuse it`, constraint: `${key(endpoint)} ${prefix}${pathText(path)} safe-integer` });
      continue;
    }
    const chain = nodesAt(spec.schema, body, path);
    const kind = kindOf(issue, body, chain);
    const constraint = `${key(endpoint)} ${prefix}${pathText(path)} ${kind}`;
    // Whether a field is required is said by its object's table.
    const marks = [...marksAt(chain), ...(kind === 'required' ? marksAt(nodesAt(spec.schema, body, path.slice(0, -1))) : [])];
    const s = marks.flatMap((m) => m.stated).find((x) => x.kinds.includes(kind));
    if (s) {
      const finding: Finding = { kind: 'refuse', because: s.because, constraint };
      const status = namedStatus(endpoint, kind, { issue: issue.code, field: pathText(path) });
      if (status !== undefined) finding.status = status;
      out.push(finding);
      continue;
    }
    const c = marks.flatMap((m) => m.choice).find((x) => x.kinds.includes(kind));
    out.push({ kind: 'open', why: c ? `${pathText(path)} ${kind}: the fake's own choice, not the description's (${c.why})` : `${pathText(path)} ${kind}: no sentence states this constraint`, constraint });
  }
}

/**
 * The /v8 Errors table names the 400 causes ("missing fields, budget out of range, malformed JSON";
 * "missing fields, empty `classes` or bounds exceeded"; "missing fields or `signal` over 256 chars")
 * and none is "a value of another JSON type": Fastify's default ajv (`coerceTypes: 'array'`) reads
 * `"3"` as 3, `42` as `"42"`, `"x"` as `["x"]`, null as 0 or `""` (src/contract/coercion.ts). When the
 * body so read is valid, each value read is an open finding. When it is not, both readings refuse: the
 * issues judged are the strict ones at the values read (their Type column) and those of the body as read
 * (a null budget read as 0 is out of range). A value no coercion reads (an object for an integer,
 * `"abc"`) stays under its Type column's mark. Returns the issues to judge, each with the body it is of.
 */
function coercedReading(endpoint: Endpoint, spec: BodySpec, sent: unknown, prefix: string, strict: ReadonlyArray<readonly [Issue, unknown]>, out: Finding[]): ReadonlyArray<readonly [Issue, unknown]> {
  const read = readAsAjv(spec.schema, sent);
  if (read.coerced.length === 0) return strict;
  const again = parsedAs(spec.schema, read.value);
  if (again.success) {
    for (const path of read.coerced) {
      const as = JSON.stringify(getAt(read.value, path).value) ?? '';
      out.push({ kind: 'open', why: `${pathText(path)}: a value of another JSON type, which ajv's coerceTypes (Fastify's default) reads as ${as.slice(0, 40)}; the error table names no wrong-type cause`, constraint: `${key(endpoint)} ${prefix}${pathText(path)} type` });
    }
    return [];
  }
  const at = new Set(read.coerced.map((p) => p.join('\u0000')));
  const typeIssues = strict.filter(([issue]) => at.has(issue.path.join('\u0000')));
  return [...typeIssues, ...(again.error.issues as unknown as Issue[]).map((issue) => [issue, read.value] as const)];
}

/** Strings a deployment may refuse although they are valid JSON: RFC 8259 §8.2, I-JSON (RFC 7493 §2.1). */
function oddString(s: string): string | undefined {
  if (s.includes('\u0000')) return 'a NUL character';
  // Native, and at once for a one-byte string (no surrogate fits in one): a JavaScript loop over a 1 MiB body's text cost some 5 ms.
  return (s as string & { isWellFormed(): boolean }).isWellFormed() ? undefined : 'a lone surrogate';
}

/** C0 and C1 controls, zero-width and bidi formatting characters, and combining marks: text no sentence speaks of (the catalogue's field.string.control and .invisible). */
const UNSEEN = /[\u0001-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\p{M}]/u;

/** Free text longer than this with no stated bound: a deployment may refuse it (400 or 413). */
export const UNBOUNDED_TEXT = 4096;

/** What openness reads of a schema node: worked out once per node, not once per value it judges. */
interface Node {
  /** `chainOf(schema)`'s marks, outermost first. */
  marks: readonly Marks[];
  /** The def of the innermost schema of the chain (wrappers removed). */
  def: Def | undefined;
  /** A mark states a length bound. */
  lengthStated: boolean;
  /** An object that may carry properties its shape does not name (a mark allows them, or its catchall takes them). */
  extraOk: boolean;
}

const NO_NODE: Node = { marks: [], def: undefined, lengthStated: false, extraOk: true };

/**
 * Keyed on the schema object: its chain and def are fixed once built, and every mark is set while
 * the contract modules are evaluated (src/contract/<surface>/*.ts, at import), before any judgement
 * reads one, so a node's marks never change after it is first read here.
 */
const NODES = new WeakMap<z.ZodType, Node>();

function nodeOf(schema: z.ZodType | undefined): Node {
  if (!schema) return NO_NODE;
  let node = NODES.get(schema);
  if (node) return node;
  const chain = chainOf(schema);
  const marks = marksAt(chain);
  const def = defOf(chain[chain.length - 1]!);
  const shape = def.type === 'object' ? (def.shape ?? {}) : undefined;
  node = {
    marks,
    def,
    lengthStated: marks.some((m) => m.stated.some((s) => s.kinds.includes('length'))),
    extraOk: marks.some((m) => m.extraAllowed !== undefined) || !shape || (def.catchall !== undefined && defOf(def.catchall).type !== 'never' && defOf(def.catchall).type !== 'unknown'),
  };
  NODES.set(schema, node);
  return node;
}

/** Whether two values serialize to the same JSON text; two strings are that exactly when they are equal. */
function sameJson(a: unknown, b: unknown): boolean {
  if (typeof a === 'string' && typeof b === 'string') return a === b;
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Why a body the schema accepts may still be refused by a legal deployment, or undefined: free
 * text with no stated bound that is empty, blank or long; NUL and lone surrogates; numbers past
 * I-JSON's safe range; unknown properties where the description does not allow them; values that
 * name deployment state not given by the profile's own body; values of a list left open.
 */
export function openness(schema: z.ZodType | undefined, value: unknown, path: readonly Segment[], base: unknown): string | undefined {
  if (path.length > 0 || typeof value !== 'object' || value === null) return openAt(schema, value, [...path], base);
  let bySchema = wholeBodies.get(value);
  if (!bySchema) wholeBodies.set(value, (bySchema = new Map()));
  let byBase = bySchema.get(schema);
  if (!byBase) bySchema.set(schema, (byBase = new Map()));
  if (byBase.has(base)) return byBase.get(base);
  const why = openAt(schema, value, [], base);
  byBase.set(base, why);
  return why;
}

/**
 * `openness` of a whole body, by the body's object, the schema and the base: several rules ask it
 * of the same request (each turn rule of /v1/execute, the generated rules). Sound because it reads
 * nothing else (a node's marks are fixed, above) and a parsed body is shared read-only: judgements
 * read it, never change it (src/traffic/read.ts), nor the profile's fixtures they give as base.
 */
const wholeBodies = new WeakMap<object, Map<z.ZodType | undefined, Map<unknown, string | undefined>>>();

/** `openness` at `path`, which it extends and restores as it goes down: the path's text is built only for the reason returned. */
function openAt(schema: z.ZodType | undefined, value: unknown, path: Segment[], base: unknown): string | undefined {
  const node = nodeOf(schema);
  for (const m of node.marks) {
    if (m.context !== undefined) {
      const given = getAt(base, path);
      if (!given.present || !sameJson(given.value, value)) return `${pathText(path)}: ${m.context}`;
    }
    const why = m.openWhen?.(value);
    if (why) return `${pathText(path)}: ${why}`;
    if (m.openValues && typeof value === 'string' && !m.openValues.values.includes(value)) return `${pathText(path)} ${JSON.stringify(value.slice(0, 32))}: ${m.openValues.why}`;
  }
  const def = node.def;
  if (typeof value === 'string') {
    const odd = oddString(value);
    if (odd) return `${pathText(path)}: ${odd} (RFC 8259 §8.2 calls lone surrogates unpredictable, I-JSON forbids them): a deployment may refuse it`;
    const bounded = node.lengthStated || (def !== undefined && def.type !== 'string');
    if (!bounded && value.trim() === '') return `${pathText(path)}: ${value === '' ? 'empty' : 'blank'} text with no stated lower bound: a deployment may refuse it`;
    // Before the scan for unseen characters, which costs some 5 ms over a 1 MiB string.
    if (!bounded && value.length > UNBOUNDED_TEXT) return `${pathText(path)}: ${value.length} characters with no stated upper bound: a deployment may refuse it (400 or 413)`;
    const unseen = UNSEEN.exec(value);
    if (unseen) return `${pathText(path)}: a ${unseen[0].charCodeAt(0) < 0xa0 ? 'control' : 'invisible or combining'} character (U+${unseen[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}): the descriptions say nothing of such characters in text, so a deployment may refuse it`;
    if (value !== '' && value.trim() !== value && (def === undefined || def.type === 'string')) return `${pathText(path)}: ${value.trim() === '' ? 'blank' : 'padded'} text: refusing it and trimming it are both legal`;
    return undefined;
  }
  if (typeof value === 'number') return Math.abs(value) > Number.MAX_SAFE_INTEGER ? `${pathText(path)}: ${value} is past I-JSON's safe integer range (RFC 7493 §2.2)` : undefined;
  if (Array.isArray(value)) {
    const element = def?.type === 'array' ? def.element : undefined;
    for (let i = 0; i < value.length; i += 1) {
      const item: unknown = value[i];
      const itemSchema = element ?? elementOfUnion(def, item);
      path.push(i);
      const why = openAt(itemSchema, item, path, base);
      path.pop();
      if (why) return why;
    }
    return undefined;
  }
  if (!isRecord(value)) return undefined;
  const option = def?.type === 'union' ? optionFor(def, value) : undefined;
  if (option) return openAt(option, value, path, base);
  const shape = def?.type === 'object' ? (def.shape ?? {}) : undefined;
  const valueType = def?.type === 'record' ? def.valueType : undefined;
  for (const k of Object.keys(value)) {
    const v = value[k];
    const field = shape?.[k] ?? valueType;
    path.push(k);
    if (shape && !shape[k] && !node.extraOk && !getAt(base, path).present) return `${pathText(path)}: an unknown property where the description does not say whether the object takes them`;
    const odd = oddString(k);
    if (odd) return `${pathText(path)}: a property name with ${odd}: a deployment may refuse it`;
    const why = openAt(field, v, path, base);
    path.pop();
    if (why) return why;
  }
  return undefined;
}

function elementOfUnion(def: Def | undefined, value: unknown): z.ZodType | undefined {
  return def?.type === 'union' ? optionFor(def, value) : undefined;
}

/** Which body shape of an endpoint a body is (`/v1/execute`: task or turn): the one whose schema it fits best. */
export function bodySpecOf(endpoint: Endpoint, body: unknown): BodySpec | undefined {
  if (endpoint.bodies.length <= 1) return endpoint.bodies[0];
  if (isRecord(body) && body.mode === 'task') return endpoint.bodies.find((b) => b.name === 'task');
  return endpoint.bodies.find((b) => b.name === 'turn') ?? endpoint.bodies[0];
}

/** Nesting past this many levels: RFC 8259 §9 lets a parser set a limit. */
const OPEN_DEPTH = 64;

/** Valid or near-valid JSON texts a parser may read either way (RFC 8259 §4, §8.1, §9), or undefined. */
function wireForm(text: string): string | undefined {
  if (text.charCodeAt(0) === 0xfeff) return 'a byte order mark before the JSON text: RFC 8259 §8.1 lets a parser ignore it rather than treat it as an error';
  const shape = textShape(text, OPEN_DEPTH);
  if (shape === 'deep') return `JSON nested deeper than ${OPEN_DEPTH} levels: RFC 8259 §9 lets a parser limit the depth`;
  if (shape === 'duplicate') return 'an object with a duplicate name: RFC 8259 §4 calls what a parser does with it unpredictable';
  return undefined;
}

/** Whether some object of a JSON text names a member twice: one pass over the text, keys compared per object. */
export function hasDuplicateKey(text: string): boolean {
  return textShape(text, Infinity) === 'duplicate';
}

/**
 * In one pass over a JSON text: whether brackets outside strings nest deeper than `maxDepth`
 * (`nestsDeeperThan`'s count, wherever in the text), else whether some object names a member twice
 * (names compared as written, per object). With no depth limit it stops at the first duplicate.
 */
function textShape(text: string, maxDepth: number): 'deep' | 'duplicate' | undefined {
  // Per open object, the names it gave: none yet (undefined), its one name (most objects), or a set of them. null: an array.
  const stack: Array<Set<string> | string | undefined | null> = [];
  let depth = 0;
  let duplicate = false;
  let expectKey = false;
  const n = text.length;
  for (let i = 0; i < n; i += 1) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const j = closingQuote(text, i);
      const at = stack.length - 1;
      const top = stack[at];
      if (expectKey && !duplicate && at >= 0 && top !== null) {
        const name = text.slice(i + 1, j);
        if (top === undefined) stack[at] = name;
        else if (typeof top === 'string' ? top === name : top.has(name)) duplicate = true;
        else if (typeof top === 'string') stack[at] = new Set([top, name]);
        else top.add(name);
        if (duplicate && maxDepth === Infinity) return 'duplicate';
      }
      expectKey = false;
      i = j;
    } else if (c === 0x7b) {
      if (++depth > maxDepth) return 'deep';
      stack.push(undefined);
      expectKey = true;
    } else if (c === 0x5b) {
      if (++depth > maxDepth) return 'deep';
      stack.push(null);
      expectKey = false;
    } else if (c === 0x7d || c === 0x5d) {
      depth -= 1;
      stack.pop();
      expectKey = false;
    } else if (c === 0x2c) expectKey = stack[stack.length - 1] !== null && stack.length > 0;
  }
  return duplicate ? 'duplicate' : undefined;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Where the string opened at `open` ends: the first quote after it not escaped by an odd run of backslashes (the text's end when none). */
function closingQuote(text: string, open: number): number {
  let at = open + 1;
  for (;;) {
    const quote = text.indexOf('"', at);
    if (quote === -1) return text.length;
    let backslashes = 0;
    while (quote - backslashes - 1 > open && text.charCodeAt(quote - backslashes - 1) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return quote;
    at = quote + 1;
  }
}

const MALFORMED_V8 = V8('Errors', '`400` missing fields, budget out of range, malformed JSON');

/**
 * Whether a text that is not JSON still ends every string and bracket it opens, so an extension
 * (trailing commas, a second value, comments, single quotes) may read a value from it; a text cut
 * short (`{"a":`) no extension reads.
 */
export function closesEveryValue(text: string): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = closingQuote(text, i);
      if (i >= text.length) return false;
    } else if (c === 0x7b || c === 0x5b) depth += 1;
    else if (c === 0x7d || c === 0x5d) depth -= 1;
  }
  return depth <= 0 && text.trim() !== '';
}

/**
 * A POST /mcp body that is not JSON yet a parser's extension may read: as on /v1 and /v8, "A JSON parser
 * MAY accept non-JSON forms or extensions" (RFC 8259 §9). A message is an object or a batch, so such a
 * text opens one and closes every value it opens; -32700 stays owed for text cut short or that opens no message.
 */
export function mcpExtensionMayRead(text: string): boolean {
  return /^\s*[[{]/.test(text) && closesEveryValue(text);
}

function parseBody(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/**
 * `parseBody(sent.body)`, from the journal's parse when it parsed this text: that parse failing
 * means not JSON, or nested deeper than MAX_JSON_DEPTH, which JSON.parse may still read; so a
 * failure is parsed again here unless the text is known to nest no deeper (`shallow`).
 */
function parsedBody(sent: SentRequest, text: string, shallow: boolean): { ok: true; value: unknown } | { ok: false } {
  const known = sent.parsed;
  if (known !== undefined && known.text === text && (known.value !== undefined || shallow)) return known.value === undefined ? { ok: false } : { ok: true, value: known.value };
  return parseBody(text);
}

function body(endpoint: Endpoint, sent: SentRequest, known: Known, out: Finding[]): BodySpec | undefined {
  if (endpoint.bodies.length === 0) {
    if (sent.body !== undefined) out.push({ kind: 'open', why: `a body on ${endpoint.method} ${endpoint.path}, whose request body is not shown`, constraint: `${key(endpoint)} (body) not shown` });
    return undefined;
  }
  const first = endpoint.bodies[0]!;
  const bodyConstraint = (cause: string) => `${key(endpoint)} ${endpoint.bodies.length > 1 ? '' : ''}(body) ${cause}`;
  if (sent.body === undefined || sent.body.trim() === '') {
    const f: Finding = { kind: 'refuse', because: first.stated ?? S.jsonBody, constraint: bodyConstraint('malformed') };
    const status = namedStatus(endpoint, 'malformed');
    if (status !== undefined) f.status = status;
    out.push(f);
    return first;
  }
  // A body serialized from a value is plain JSON: no wire form to read, nothing to parse again.
  const wire = sent.json === undefined ? wireForm(sent.body) : undefined;
  if (wire) {
    out.push({ kind: 'open', why: wire, constraint: bodyConstraint('wire') });
    return first;
  }
  // The wire form read above rules out nesting past OPEN_DEPTH (< MAX_JSON_DEPTH): the journal's parse failing is JSON.parse failing.
  const parsed: ReturnType<typeof parseBody> = sent.json !== undefined ? { ok: true, value: sent.json } : parsedBody(sent, sent.body, true);
  if (!parsed.ok) {
    // "A JSON parser MAY accept non-JSON forms or extensions" (RFC 8259 §9): only /v8/missions's error table names malformed JSON.
    if (endpoint.path !== '/v8/missions' && closesEveryValue(sent.body)) {
      out.push({ kind: 'open', why: 'a text that is not JSON but closes every value it opens (a trailing comma, data after the value, single quotes): RFC 8259 §9 lets a parser accept non-JSON forms or extensions', constraint: bodyConstraint('extension') });
      return first;
    }
    const f: Finding = { kind: 'refuse', because: endpoint.path === '/v8/missions' ? MALFORMED_V8 : S.jsonBody, constraint: bodyConstraint('malformed') };
    const status = namedStatus(endpoint, 'malformed');
    if (status !== undefined) f.status = status;
    out.push(f);
    return first;
  }
  const spec = bodySpecOf(endpoint, parsed.value)!;
  const prefix = endpoint.bodies.length > 1 ? `${spec.name}: ` : '';
  if (!isRecord(parsed.value)) {
    const f: Finding = { kind: 'refuse', because: spec.stated ?? S.jsonBody, constraint: `${key(endpoint)} ${prefix}(body) not-object` };
    const status = namedStatus(endpoint, 'type');
    if (status !== undefined) f.status = status;
    out.push(f);
    return spec;
  }
  const before = out.length;
  bodyIssues(endpoint, spec, parsed.value, prefix, out);
  if (out.length > before) return spec;
  const runId = endpoint.path.endsWith('/approve') ? safeDecode(sent.path.split('?', 1)[0]!.split('/')[3] ?? '') : undefined;
  const base = (runId !== undefined ? known.approvals?.[runId] : undefined) ?? (spec.fixture ? known.bases[spec.fixture] : undefined);
  const why = openness(spec.schema, parsed.value, [], base);
  if (why) out.push({ kind: 'open', why, constraint: `${key(endpoint)} ${prefix}(body) open` });
  if (spec.contextual && !(known.publicReceiverUrl && parsed.value.url === known.publicReceiverUrl)) out.push({ kind: 'open', why: spec.contextual, constraint: `${key(endpoint)} ${prefix}(body) context` });
  return spec;
}

// ---------------------------------------------------------------------------------------------
// /mcp: JSON-RPC messages.

const MCP_METHODS = new Set(['initialize', 'ping', 'tools/list', 'tools/call', 'resources/list', 'resources/read', 'resources/templates/list', 'resources/subscribe', 'resources/unsubscribe', 'prompts/list', 'prompts/get', 'logging/setLevel', 'completion/complete']);

/** Whether a message breaks JSON-RPC 2.0 itself (not only MCP's narrower schema). */
export function breaksJsonRpc(value: unknown): boolean {
  if (!isRecord(value)) return true;
  if (value.jsonrpc !== '2.0' || typeof value.method !== 'string') return !('result' in value || 'error' in value) || value.jsonrpc !== '2.0';
  if (!('id' in value)) return 'params' in value && (value.params === null || typeof value.params !== 'object');
  const id = value.id;
  if (id !== null && typeof id !== 'string' && typeof id !== 'number') return true;
  return 'params' in value && (value.params === null || typeof value.params !== 'object');
}

function mcpExpectation(sent: SentRequest, known: Known): Expectation {
  const constraint = (what: string) => `POST /mcp ${what}`;
  if (sent.method === 'GET') return { kind: 'refuse', because: S.getMcp, constraint: 'GET /mcp method', status: 405 };
  if (sent.method !== 'POST') return { kind: 'open', why: `${sent.method} /mcp: the Streamable HTTP transport's answer to it is not stated`, constraint: `${sent.method} /mcp method` };
  if (sent.body === undefined) return { kind: 'open', why: 'a POST /mcp without a body', constraint: constraint('(body) missing') };
  const parsed = parsedBody(sent, sent.body, false);
  if (!parsed.ok && mcpExtensionMayRead(sent.body)) return { kind: 'open', why: 'a text that is not JSON but closes every value it opens (a trailing comma, data after the value): RFC 8259 §9 lets a parser accept non-JSON forms or extensions', constraint: constraint('(body) extension') };
  if (!parsed.ok) return { kind: 'refuse', because: S.parseError, constraint: constraint('(body) malformed'), codes: [-32700] };
  const value = parsed.value;
  if (Array.isArray(value)) {
    if (value.length === 0) return { kind: 'refuse', because: S.emptyBatch, constraint: constraint('batch empty'), codes: [-32600] };
    return { kind: 'open', why: 'a batch: each of its messages has its own answer, judged by the batch rules', constraint: constraint('batch') };
  }
  const session = sent.headers['mcp-session-id'];
  const initializing = isRecord(value) && value.method === 'initialize';
  if (!initializing && (session === undefined || session !== known.mcpSession)) return { kind: 'open', why: `Mcp-Session-Id ${session === undefined ? 'missing' : 'not the one this session was given'}: a server SHOULD (not MUST) answer 400 or 404`, constraint: constraint('header mcp-session-id') };
  if (breaksJsonRpc(value)) return { kind: 'refuse', because: S.invalidRequest, constraint: constraint('(body) not a JSON-RPC message'), codes: [-32600, -32602, -32700] };
  const message = value as Record<string, unknown>;
  if (!('id' in message)) return { kind: 'open', why: 'a notification: the server accepts it (202) or answers an HTTP error', constraint: constraint('notification') };
  // "Requests MUST include a string or integer ID" binds the requester; JSON-RPC 2.0 §4 allows a Number or Null id, so a server may serve one.
  if (message.id === null) return { kind: 'open', why: 'id null: MCP binds the client to string or integer ids; JSON-RPC 2.0 §4 allows Null, so a server may serve it or refuse it', constraint: constraint('id null') };
  if (typeof message.id === 'number' && !Number.isInteger(message.id)) return { kind: 'open', why: 'a fractional id: MCP binds the client to string or integer ids; JSON-RPC 2.0 §4 allows a Number, so a server may serve it or refuse it', constraint: constraint('id fractional') };
  // A response the client sends (to a request of the server's): "202 Accepted" when the server takes it, else an HTTP error.
  if (!('method' in message) && ('result' in message || 'error' in message)) return { kind: 'open', why: 'a JSON-RPC response sent to the server: 202 when it takes it, an HTTP error otherwise', constraint: constraint('response') };
  const method = String(message.method);
  // Before the operation phase began, a server may refuse any request but ping for that (mcp.lifecycle/initialized-required's -32600).
  if (!MCP_METHODS.has(method) && known.mcpInitialized !== true) return { kind: 'open', why: `method ${method.slice(0, 40)} before notifications/initialized was accepted: a server may refuse it as outside the operation phase (MCP Lifecycle > Initialization)`, constraint: constraint(`method ${method.slice(0, 40)}`) };
  if (!MCP_METHODS.has(method)) return { kind: 'refuse', because: S.methodNotFound, constraint: constraint(`method ${method.slice(0, 40)}`), codes: [-32601] };
  if (method === 'ping' && (!('params' in message) || isRecord(message.params))) return { kind: 'accept', because: MCP('Base Protocol', 'All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification.'), constraint: constraint('method ping') };
  return { kind: 'open', why: `${method}: its params and what this server offers decide the answer`, constraint: constraint(`method ${method}`) };
}

// ---------------------------------------------------------------------------------------------

/** The expectation of one request, from the request as sent and what the deployment is known to hold. */
export function expectationOf(sent: SentRequest, known: Known = NOTHING_KNOWN): Expectation {
  const bare = sent.path.split('?', 1)[0]!;
  if (bare === '/mcp') return mcpExpectation(sent, known);
  const endpoint = endpointFor(sent.method, sent.path);
  if (!endpoint) {
    const surface = bare.split('/')[1] ?? '';
    if (isKnownPath(bare)) return { kind: 'open', why: `${sent.method} ${bare}: nothing forbids a deployment to serve a method the description does not list`, constraint: `${surface} method ${sent.method}` };
    return { kind: 'open', why: `${bare} is not a path of the description`, constraint: `${surface} unknown path` };
  }
  const findings: Finding[] = [];
  authorization(endpoint, sent, findings);
  const spec = body(endpoint, sent, known, findings);
  headers(endpoint, spec, sent, findings);
  pathParams(endpoint, sent, known, findings);
  query(endpoint, sent, findings);
  if (endpoint.surface === 'v1' && endpoint.path.endsWith('/approve')) {
    const id = safeDecode(bare.split('/')[3] ?? '');
    if (!known.parked.includes(id)) findings.push({ kind: 'open', why: 'an approve body sent to a run that is not parked awaiting approval: its answer is not stated', constraint: `${key(endpoint)} path id` });
  }
  return decide(findings, () => {
    const because = spec?.stated ?? endpoint.stated;
    if (!because) return { kind: 'open', why: `${key(endpoint)}: no sentence promises an answer to this request`, constraint: `${key(endpoint)} as described` };
    const out: Expectation = { kind: 'accept', because, constraint: `${key(endpoint)} ${spec ? `${endpoint.bodies.length > 1 ? `${spec.name}: ` : ''}(body) valid` : 'as described'}${charsetIgnored(sent)}` };
    if (scopeNotShown(endpoint)) out.scopeOpen = `the scope ${key(endpoint)} needs is not shown (${sentenceText(S.v1Scopes)}): a key holding runs:read and runs:write may lack it, and no profile can say it holds it`;
    return out;
  });
}

/** Why a JSON body labelled with a charset other than UTF-8 has no stated answer. */
const OTHER_CHARSET = 'RFC 8259 §11 defines no charset for application/json ("Adding one really has no effect on compliant recipients") and §8.1 has JSON between systems "MUST be encoded using UTF-8": a deployment may read the label as absent or refuse a body labelled with another encoding';

/**
 * What an accepted body's Content-Type charset parameter (`charset=utf-8`) adds to why it must be
 * accepted: the media type registration defines none, so it changes nothing, or '' without one.
 * Another charset leaves the request open (`OTHER_CHARSET`), so it never reaches here.
 */
function charsetIgnored(sent: SentRequest): string {
  if (sent.body === undefined || !/;\s*charset\s*=/i.test(sent.headers['content-type'] ?? '')) return '';
  return `; its charset parameter is read as absent, ${sentenceText(S.charsetIgnored)}`;
}

/**
 * A /v1 endpoint whose scope the description does not show: every one but webhook registration
 * ("Creating or changing a webhook endpoint needs a key holding both `runs:read` and `runs:write`."),
 * the one a profile's scopes can say a key holds. /v8 names each endpoint's scope.
 */
function scopeNotShown(endpoint: Endpoint): boolean {
  return endpoint.surface === 'v1' && !(endpoint.method === 'POST' && endpoint.path === '/v1/webhooks');
}

/** `scopeNotShown` of the endpoint a /v1 request went to: a /v1 path that names no endpoint shows no scope either. */
export function scopeNotShownFor(ex: { method: string; path: string }): boolean {
  const endpoint = endpointOf(ex.method, ex.path);
  return endpoint === undefined || scopeNotShown(endpoint);
}

/**
 * Whether `answer` refuses a request the description accepts for a scope it does not show: a 4xx
 * problem with `authorization_failed` or `entitlement_failed` ("Related errors: …"; "Mapping of each
 * `code` to an HTTP status: not shown.") where the expectation leaves the scope open. Such a refusal
 * is legal: the deployment's scope for the endpoint may be one the caller's key does not hold.
 */
export function refusedForScope(e: Expectation, answer: { status: number; json?: unknown }): boolean {
  return e.kind === 'accept' && e.scopeOpen !== undefined && scopeRefusal(answer);
}
