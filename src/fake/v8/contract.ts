import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { readAsAjv } from '../../contract/coercion.ts';
import { endpointOf, unimplementedMethod } from '../../contract/endpoints.ts';
import { CONTRACT_HEADER, CONTRACT_VERSION } from '../../contract/v8/common.ts';
import { PROBLEM_CONTENT_TYPE } from '../../contract/v8/problem.ts';
import type { FakeContext } from '../context.ts';
import type { VariantSet } from '../variants/index.ts';
import type { RouteRequest } from '../http.ts';
import { refuseManyHosts } from '../support/http-layer.ts';
import { lenientJson } from '../support/lenient-json.ts';
import { bodyJson, CHOSEN_BODY_LIMIT, withBody } from '../support/route-body.ts';
import { holdsControlString, holdsOddString } from '../support/odd-strings.ts';
import { isRecord, parseJson, repeatedMember } from '../../util/json.ts';
import { mediaTypeOf, otherCharset } from '../../rule/media-type.ts';

/** What a /v8 response is, as far as the contract-version header goes. */
export type ResponseKind = 'success' | 'problem' | 'listing';

/** `x-service-contract-version` on every /v8 response; each fault drops it from one kind of response. */
export function contractHeader(fake: FakeContext, kind: ResponseKind): Record<string, string> {
  if (kind === 'problem' && fake.faults.has('v8.contract.version-header/missing-on-errors')) return {};
  if (kind === 'listing' && fake.faults.has('v8.contract.version-header/missing-on-read-surfaces')) return {};
  return { [CONTRACT_HEADER]: CONTRACT_VERSION };
}

/** The Allow field of a /v8 405 (RFC 9110 15.5.6): the methods the path serves; none under the fault. */
export function allowHeaders(fake: FakeContext, methods: readonly string[]): Record<string, string> {
  return fake.faults.has('v8.contract.allow-on-405/no-allow') ? {} : { allow: methods.join(', ') };
}

/** Under the variant, a method /v8 uses for no resource is answered 501, the status RFC 9110 15.6.2 names for it, instead of 404 or 405. */
export function answersUnimplemented(fake: FakeContext, method: string): boolean {
  return unimplementedMethod('v8', method) && fake.variants.has('v8.contract/unimplemented-methods-501');
}

/**
 * "HTTP origins are rejected": true when the request comes from an http:// Origin the gateway
 * refuses (the header reading). Under `v8.contract/origin-ignored` no Origin is looked at (the
 * transport reading: the fake's own listener is what a deployment would serve over HTTPS only).
 * The fault keeps the header reading but forgets it on the capability search.
 */
export function refusesOrigin(fake: FakeContext, origin: string | undefined, path: string): boolean {
  if (origin === undefined || !/^http:/i.test(origin) || fake.variants.has('v8.contract/origin-ignored')) return false;
  return !(path === '/v8/capabilities/search' && fake.faults.has('v8.contract.http-origin/accepted'));
}

/** Under the variant the HTTP layer refuses a message with more than one Host line as Go does (refuseManyHosts). Returns true when it answered. */
export function httpLayerRefusal(fake: FakeContext, res: ServerResponse): boolean {
  return fake.variants.has('v8.contract/http-layer-400-text') && refuseManyHosts(res, contractHeader(fake, 'problem'));
}

/**
 * Under the variant a request whose head (request line and header fields, as received) is past
 * 8 KiB is refused 431 with a problem before any route reads it, as a deployment behind Tomcat's or
 * Jetty's default 8 KiB limit (RFC 9110 §5.4) would be. Returns true when it answered.
 */
function refusedHead(fake: FakeContext, r: RouteRequest, writeProblem: WriteProblem): boolean {
  const req = r.req;
  let bytes = req.method!.length + req.url!.length + 12;
  for (let i = 0; i < req.rawHeaders.length; i += 2) bytes += req.rawHeaders[i]!.length + req.rawHeaders[i + 1]!.length + 4;
  if (bytes <= HEAD_LIMIT_BYTES || !fake.variants.has('v8.contract/header-limit-431')) return false;
  writeProblem(431, 'header_fields_too_large', `A request head is at most ${HEAD_LIMIT_BYTES} bytes here.`);
  return true;
}

const HEAD_LIMIT_BYTES = 8 * 1024;

/**
 * Under the variant a 200 JSON answer to a GET asked with If-None-Match is answered as Express's
 * `res.json` with its default weak ETag and `req.fresh` answer it: 304 without content when the
 * field is `*` or names the entity tag (RFC 9110 §13.1.2, §13.2.2), else 200 carrying the tag.
 * `text`: the JSON the 200 would carry, `kind` its kind. Returns true when it answered 304.
 */
export function answeredNotModified(fake: FakeContext, res: ServerResponse, text: string, kind: ResponseKind = 'success'): boolean {
  const asked = res.req?.method === 'GET' ? res.req.headers['if-none-match'] : undefined;
  if (asked === undefined || !fake.variants.has('v8.contract/conditional-304')) return false;
  const tag = `W/"${createHash('sha1').update(text).digest('base64url')}"`;
  res.setHeader('etag', tag);
  if (asked.trim() !== '*' && !asked.split(',').some((t) => t.trim().replace(/^W\//, '') === tag.slice(2))) return false;
  res.writeHead(304, contractHeader(fake, kind));
  res.end();
  return true;
}

/** `charset=utf-8` on every content type under the variant: a media-type parameter the seed neither asks for nor forbids. */
function withCharset(fake: FakeContext, type: string): string {
  return fake.variants.has('v8.contract/content-type-parameters') ? `${type}; charset=utf-8` : type;
}

/**
 * The content type of a /v8 JSON answer (every success; failures are problem+json). Under
 * `v8.contract/json-suffix-media-type` it is a vendor `+json` type: "everything else returns JSON"
 * names no single type (RFC 6839 §3.1). Only faults write a non-2xx answer through here.
 */
export function jsonContentType(fake: FakeContext): string {
  return withCharset(fake, fake.variants.has('v8.contract/json-suffix-media-type') ? JSON_SUFFIX_MEDIA_TYPE : 'application/json');
}

const JSON_SUFFIX_MEDIA_TYPE = 'application/vnd.gateway.v8+json';

export function problemContentType(fake: FakeContext): string {
  return withCharset(fake, PROBLEM_CONTENT_TYPE);
}

export function eventStreamContentType(fake: FakeContext): string {
  return withCharset(fake, 'text/event-stream');
}

/**
 * Faults of the generated contract rules (`v8.contract.generated.*`): each bends one endpoint where
 * only requests derived from the schemas look (a body type no hand-written rule sends, a header length
 * on an endpoint no key rule probes). Returns the request to route (its body perhaps rewritten), or
 * undefined when the fault already answered.
 */
export type WriteProblem = (status: number, code: string, detail: string) => void;

export async function contractFaultRoute(fake: FakeContext, r: RouteRequest, writeProblem: WriteProblem): Promise<RouteRequest | undefined> {
  const faults = fake.faults;
  const method = r.req.method;
  if (method === 'GET') {
    if (faults.has('v8.contract.generated.no-5xx/long-last-event-id-500') && (r.header('last-event-id')?.length ?? 0) > 1024) {
      writeProblem(500, 'internal_error', 'The cursor column is 1024 characters wide.');
      return undefined;
    }
    if (faults.has('v8.contract.generated.problem-json/query-plain-text') && r.path === '/v8/context-twin/goals' && r.query.has('apicert')) {
      r.res.writeHead(400, { 'content-type': 'text/plain', ...contractHeader(fake, 'problem') });
      r.res.end('unknown parameter');
      return undefined;
    }
  }
  if (method !== 'POST') return r;
  const raw = faults.has('v8.contract.generated.accepts-valid/leading-whitespace-refused') || faults.has('v8.contract.generated.problem-json/bom-plain-text') ? await r.body() : '';
  if (faults.has('v8.contract.generated.problem-json/bom-plain-text') && raw.charCodeAt(0) === 0xfeff) {
    r.res.writeHead(400, { 'content-type': 'text/plain', ...contractHeader(fake, 'problem') });
    r.res.end('byte order mark');
    return undefined;
  }
  if (r.path === '/v8/capabilities/search' && faults.has('v8.contract.generated.accepts-valid/leading-whitespace-refused') && /^\s/.test(raw)) {
    writeProblem(400, 'invalid_request', 'The body must start with "{".');
    return undefined;
  }
  if (/^\/v8\/missions\/[^/]+\/cancel$/.test(r.path) && faults.has('v8.contract.generated.no-5xx/cancel-array-body-500') && Array.isArray(await bodyJson(r))) {
    writeProblem(500, 'internal_error', 'Cannot read properties of an array.');
    return undefined;
  }
  if (r.path === '/v8/capabilities/search' && faults.has('v8.contract.generated.no-5xx/array-body-500') && Array.isArray(await bodyJson(r))) {
    writeProblem(500, 'internal_error', 'Cannot read properties of an array.');
    return undefined;
  }
  if (/^\/v8\/missions\/[^/]+\/signals$/.test(r.path)) {
    if (faults.has('v8.contract.generated.no-5xx/long-key-signal-500') && (r.header('idempotency-key')?.length ?? 0) >= 128) {
      writeProblem(500, 'internal_error', 'The key column is 127 characters wide.');
      return undefined;
    }
    const body = await bodyJson(r);
    if (faults.has('v8.contract.generated.accepts-valid/non-ascii-signal-refused') && isRecord(body) && typeof body.signal === 'string' && /[^\x20-\x7e]/.test(body.signal)) {
      writeProblem(400, 'invalid_request', 'signal must be printable ASCII.');
      return undefined;
    }
  }
  if (r.path === '/v8/memory/query') {
    const body = await bodyJson(r);
    if (!isRecord(body)) return r;
    if (faults.has('v8.contract.generated.problem-json/type-error-plain-json') && body.queryText !== undefined && typeof body.queryText !== 'string') {
      r.res.writeHead(400, { 'content-type': jsonContentType(fake), ...contractHeader(fake, 'problem') });
      r.res.end(JSON.stringify({ error: 'queryText must be a string' }));
      return undefined;
    }
    if (faults.has('v8.contract.generated.error-status/null-query-text') && body.queryText === null) return withBody(r, { ...body, queryText: ' ' });
  }
  if (r.path === '/v8/missions' && faults.has('v8.contract.generated.error-status/null-steps')) {
    const body = await bodyJson(r);
    const budget = isRecord(body) ? body.resourceBudget : undefined;
    if (isRecord(budget) && budget.maximumSteps === null) return withBody(r, { ...(body as object), resourceBudget: { ...budget, maximumSteps: 10_000 } });
  }
  return r;
}

/** A capability search answer as served: under its fault, manifests found for a non-ASCII purpose carry a health state outside the enum. */
export function servedManifests<T extends { healthState: string }>(fake: FakeContext, purpose: string, manifests: T[]): T[] {
  if (!fake.faults.has('v8.contract.generated.response-schema/non-ascii-purpose-health') || !/[^\x20-\x7e]/.test(purpose)) return manifests;
  return manifests.map((m) => ({ ...m, healthState: 'ok' }));
}

const BUDGET_FIELDS = ['maximumSteps', 'maximumToolCalls', 'maximumElapsedMs', 'maximumParallelism'];

/**
 * Under `v8.contract/coerces-types` a body is read as a Fastify route schema on ajv's defaults
 * (`coerceTypes: 'array'`) reads it before the route validates it: "3" is 3 for an integer, 42 is "42"
 * for a string, "x" is ["x"] for an array, null is 0 or "" (src/contract/coercion.ts). The /v8 error
 * tables name no wrong-type cause, so reading such a value is as legal as refusing it.
 */
function coercedAsAjv(v: VariantSet, r: RouteRequest, body: unknown): { r: RouteRequest; body: unknown } {
  // Asked only where a value is coerced, so the run shows the variant taken only where it bent.
  const spec = v.size > 0 ? endpointOf('POST', r.path)?.bodies[0] : undefined;
  const read = spec && readAsAjv(spec.schema, body);
  return read && read.coerced.length > 0 && v.has('v8.contract/coerces-types') ? { r: withBody(r, read.value), body: read.value } : { r, body };
}

/** The request-side choices of the whole /v8 contract (docs/legal-variation.md): the request to route, or undefined when a variant already answered. */
export function contractOpenChoice(v: VariantSet, given: RouteRequest, sent: unknown, writeProblem: WriteProblem): RouteRequest | undefined {
  const { r, body } = coercedAsAjv(v, given, sent);
  if (v.has('v8.contract/refuses-nul-and-lone-surrogates') && holdsOddString(body)) {
    writeProblem(400, 'invalid_request', 'Strings may not hold NUL characters or lone surrogates.');
    return undefined;
  }
  const budget = r.path === '/v8/missions' && isRecord(body) ? body.resourceBudget : undefined;
  if (isRecord(body) && isRecord(budget) && Object.keys(budget).some((k) => !BUDGET_FIELDS.includes(k)) && v.has('v8.contract/open-request-objects')) {
    return withBody(r, { ...body, resourceBudget: Object.fromEntries(Object.entries(budget).filter(([k]) => BUDGET_FIELDS.includes(k))) });
  }
  return r;
}

/**
 * The wire-side choices of the whole /v8 contract (docs/legal-variation.md), read before the body
 * is taken as JSON: the request to route (its body perhaps read another way), or undefined when a
 * variant already answered.
 */
export async function contractWireChoice(fake: FakeContext, given: RouteRequest, writeProblem: WriteProblem): Promise<RouteRequest | undefined> {
  let r = given;
  const v = fake.variants;
  if (refusedHead(fake, r, writeProblem)) return undefined;
  // No /v8 endpoint defines a query parameter: under the variant any one is refused before the route runs, so before its token is read.
  if (r.query.size > 0 && v.has('v8.contract/unknown-query-400')) {
    writeProblem(400, 'unknown_query_parameter', 'No /v8 endpoint takes a query parameter.');
    return undefined;
  }
  if (r.req.method !== 'POST') return r;
  if (r.header('transfer-encoding') !== undefined && r.header('content-length') === undefined && v.has('v8.contract/length-required')) {
    writeProblem(411, 'length_required', 'Send the body with a Content-Length.');
    return undefined;
  }
  const text = await r.body();
  if (Buffer.byteLength(text) > CHOSEN_BODY_LIMIT && v.has('v8.contract/body-limit-413')) {
    writeProblem(413, 'body_too_large', `A request body is at most ${CHOSEN_BODY_LIMIT} bytes here.`);
    return undefined;
  }
  // "`Content-Type: application/json`": a body under another type, a `+json` one too, refused as Express's json parser leaves it unread.
  if (text !== '' && mediaTypeOf(r.header('content-type')) !== 'application/json' && v.has('v8.contract/json-only-request-type')) {
    writeProblem(415, 'unsupported_media_type', 'A request body is read as application/json only.');
    return undefined;
  }
  // RFC 8259 §11 defines no charset for application/json, §8.1 has JSON between systems in UTF-8: refusing another label (as Express's body parser does) is one reading.
  if (v.has('v8.contract/other-charset-415') && otherCharset(r.header('content-type')) !== undefined) {
    writeProblem(415, 'unsupported_charset', 'A JSON body is read as UTF-8 only: send it without a charset parameter, or with charset=utf-8.');
    return undefined;
  }
  // RFC 8259 §4: names "SHOULD be unique", and what software does with an object naming one twice "is unpredictable": refusing it is one reading.
  // repeatedMember reads a text that parses: another one is the other checks' to refuse.
  if (v.has('v8.contract/duplicate-names-400') && parseJson(text).ok && repeatedMember(text) !== undefined) {
    writeProblem(400, 'invalid_request', 'A JSON object of the body names a member twice.');
    return undefined;
  }
  // RFC 8259 §8.1: a parser "MAY ignore the presence of a byte order mark rather than treating it as an error".
  if (v.has('v8.contract/bom-ignored') && text.startsWith('\uFEFF')) {
    const bare = parseJson(text.slice(1));
    if (bare.ok) r = withBody(r, bare.value);
  }
  // Only /v8/missions's error table names malformed JSON (400): elsewhere a parser's extension may read it (RFC 8259 §9).
  const lenient = r.path === '/v8/missions' ? undefined : lenientJson(text);
  if (lenient && v.has('v8.contract/lenient-json')) return withBody(r, lenient.value);
  const body = await bodyJson(r);
  if (holdsControlString(body) && v.has('v8.contract/refuses-control-characters')) {
    writeProblem(400, 'invalid_request', 'Strings may not hold control or invisible formatting characters.');
    return undefined;
  }
  if (/^\/v8\/missions\/[^/]+\/signals$/.test(r.path) && isRecord(body) && body.signal === '' && v.has('v8.contract/empty-signal-422')) {
    writeProblem(422, 'signal_empty', 'The signal name is empty.');
    return undefined;
  }
  const budget = r.path === '/v8/missions' && isRecord(body) ? body.resourceBudget : undefined;
  const big = isRecord(budget) ? Object.keys(budget).filter((k) => typeof budget[k] === 'number' && Number.isInteger(budget[k]) && Math.abs(budget[k] as number) > Number.MAX_SAFE_INTEGER) : [];
  if (isRecord(budget) && big.length > 0 && v.has('v8.contract/big-integers-accepted')) {
    // Read as a 64-bit integer would be, clamped to the largest it holds exactly here.
    const clamped = Object.fromEntries(big.map((k) => [k, Math.sign(budget[k] as number) * Number.MAX_SAFE_INTEGER]));
    return withBody(r, { ...(body as object), resourceBudget: { ...budget, ...clamped } });
  }
  return r;
}
