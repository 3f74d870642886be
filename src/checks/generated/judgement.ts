/**
 * The one judgement of a generated case: an answer against the expectation of the request sent.
 * Pure over (request sent, expectation, answer), so a recorded exchange is judged exactly as the
 * active run judged it.
 *
 * - An answer that never became a final one (a redirect, a body cut at the cap) judges nothing: the
 *   rules that would judge it lack it (`unjudged`), so it never counts towards a pass.
 * - A broken answer (invalid UTF-8, a JSON type that is not JSON) fails every aspect: it is never
 *   an acceptance, a refusal or "no 5xx".
 * - `no-5xx`: every answer, but a 501 to a method the surface does not use (RFC 9110 names it). `problem-json`: every refusal is in the surface's error format
 *   (problem+json with the surface's shape on /v1 and /v8; on /mcp a JSON-RPC error with an integer
 *   code and a message, while an HTTP 4xx's body is the server's choice: "MAY comprise a JSON-RPC error").
 *   `error-status`: a must-refuse case is refused (with the named status or codes).
 *   `accepts-valid`: a must-accept case gets the endpoint's documented success answer.
 */
import type { z } from 'zod';
import { errorFormOwed, unimplementedMethod, type EndpointSurface, type SuccessSpec } from '../../contract/endpoints.ts';
import { v1Problem } from '../../contract/v1/problem.ts';
import { PROBLEM_CONTENT_TYPE, v8Problem } from '../../contract/v8/problem.ts';
import { sentenceText, type Sentence } from '../../contract/sentence.ts';
import { eventData, parseJson } from '../../probe/body.ts';
import type { ProbeResponse } from '../../rule/index.ts';
import { mediaTypeOf } from '../../rule/media-type.ts';
import { parsedAs } from '../../traffic/read.ts';
import { isRecord } from '../../util/json.ts';
import { bodySpecOf, endpointFor, refusedForScope, type Expectation, type SentRequest } from './expectation.ts';

/** The aspects of one answer the generated rules judge, one rule each. */
export type Aspect = 'no-5xx' | 'problem-json' | 'error-status' | 'accepts-valid';

export interface Finding {
  ok: boolean;
  /** Why it failed, naming the request and the sentence behind the expectation. */
  reason: string;
}

export interface Judgement {
  /** Set when the answer cannot be judged (no final answer, a cut body): no aspect is judged. */
  unjudged?: string;
  /** The aspects this answer bears on; an aspect absent here does not apply to it. */
  findings: Partial<Record<Aspect, Finding>>;
}

/** What the judgement reads of an answer. */
export type Answer = Pick<ProbeResponse, 'status' | 'headers' | 'contentType' | 'json' | 'text' | 'cut' | 'malformed'>;

const PROBLEMS: Record<EndpointSurface, z.ZodType> = { v1: v1Problem, v8: v8Problem };

function issues(error: z.ZodError): string {
  return error.issues
    .slice(0, 4)
    .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
    .join('; ');
}

/** `POST /v8/missions answered 400`. */
function what(sent: SentRequest, answer: Answer): string {
  return `${sent.method} ${sent.path.split('?', 1)[0]} answered ${answer.status}`;
}

function expected(e: Expectation): string {
  if (e.kind === 'open') return `open (${e.why})`;
  const status = e.kind === 'refuse' && e.status !== undefined ? ` with ${e.status}` : e.kind === 'refuse' && e.codes ? ` with JSON-RPC error ${e.codes.join(' or ')}` : '';
  return `must ${e.kind}${status} [${e.constraint}], because ${sentenceText(e.because)}`;
}

/** The JSON-RPC messages of an /mcp answer: its JSON body, or the data of its events. */
export function rpcMessages(answer: Answer): unknown[] {
  // An event may carry a batch of responses (a JSON array): its messages are the array's.
  if (mediaTypeOf(answer.contentType) === 'text/event-stream') return eventData(answer.text).flatMap((d) => { const m = parseJson(d); return m === undefined ? [] : Array.isArray(m) ? m : [m]; });
  if (Array.isArray(answer.json)) return answer.json;
  return answer.json === undefined ? [] : [answer.json];
}

function rpcError(m: unknown): { code: unknown; message: unknown } | undefined {
  return isRecord(m) && isRecord(m.error) ? (m.error as { code: unknown; message: unknown }) : undefined;
}

interface Reading {
  refused: boolean;
  /** Whether the refusal is in the surface's error format, and why not. */
  format?: Finding;
  /** A refusal's HTTP status or JSON-RPC code. */
  code?: number;
  /** For a 2xx: whether it is the documented success answer, and why not. */
  success?: Finding;
}

function documentedSuccess(spec: SuccessSpec, answer: Answer): Finding {
  if (!spec.statuses.includes(answer.status)) return { ok: false, reason: `${answer.status} is not a documented success status (${spec.statuses.join(', ')})` };
  if (spec.body === 'sse') return { ok: mediaTypeOf(answer.contentType) === 'text/event-stream', reason: `a ${answer.contentType || 'untyped'} body, not the documented event stream` };
  if (spec.body === 'empty') return { ok: answer.text.trim() === '', reason: 'a body where the documented success answer is empty' };
  if (spec.body === 'unshown') return { ok: answer.text.trim() === '' || answer.json !== undefined, reason: 'a body that is neither empty nor JSON' };
  if (answer.json === undefined) return { ok: false, reason: `a ${answer.contentType || 'untyped'} body that is not JSON` };
  const parsed = spec.schema ? parsedAs(spec.schema, answer.json) : { success: true as const };
  return { ok: parsed.success, reason: parsed.success ? '' : `a body that is not the documented success answer: ${issues(parsed.error)}` };
}

/** `parseJson(body)`: the journal's parse of this very text when it made one (the same reading: undefined when not JSON or too deep). */
function sentJson(sent: SentRequest, body: string): unknown {
  return sent.parsed !== undefined && sent.parsed.text === body ? sent.parsed.value : parseJson(body);
}

function readRest(sent: SentRequest, answer: Answer): Reading {
  const surface = (sent.path.split('/')[1] ?? '') as EndpointSurface;
  if (answer.status >= 400 && answer.status < 500) {
    if (!errorFormOwed(sent.method, sent.path)) return { refused: true, code: answer.status };
    const shape = PROBLEMS[surface];
    if (mediaTypeOf(answer.contentType) !== PROBLEM_CONTENT_TYPE) return { refused: true, code: answer.status, format: { ok: false, reason: `refused as ${answer.contentType || 'no content type'}, not ${PROBLEM_CONTENT_TYPE}` } };
    const parsed = shape ? parsedAs(shape, answer.json) : { success: true as const };
    return { refused: true, code: answer.status, format: { ok: parsed.success, reason: parsed.success ? '' : `the problem document does not match the ${surface} problem shape: ${issues(parsed.error)}` } };
  }
  if (answer.status < 200 || answer.status >= 300) return { refused: false };
  const endpoint = endpointFor(sent.method, sent.path);
  if (!endpoint) return { refused: false, success: { ok: false, reason: 'no endpoint of the description answers here' } };
  const spec = sent.body === undefined ? undefined : bodySpecOf(endpoint, sent.json !== undefined ? sent.json : sentJson(sent, sent.body));
  return { refused: false, success: documentedSuccess(spec?.success ?? endpoint.success, answer) };
}

function readMcp(sent: SentRequest, answer: Answer): Reading {
  const messages = rpcMessages(answer);
  const error = messages.map(rpcError).find((e) => e !== undefined);
  const sentId = (() => {
    const m = sent.body === undefined ? undefined : sentJson(sent, sent.body);
    return isRecord(m) ? m.id : undefined;
  })();
  if (error) {
    const ok = Number.isInteger(error.code) && typeof error.message === 'string';
    return { refused: true, code: typeof error.code === 'number' ? error.code : undefined, format: { ok, reason: 'a JSON-RPC error without an integer code and a message' } } as Reading;
  }
  if (answer.status >= 400 && answer.status < 500) {
    // An HTTP error on /mcp "MAY comprise a JSON-RPC error response that has no id": its body is the server's choice.
    return { refused: true, code: answer.status };
  }
  if (answer.status === 202) return { refused: false, success: { ok: sentId === undefined && answer.text.trim() === '', reason: sentId === undefined ? 'a 202 with a body' : 'a 202 to a request, which is owed a response' } };
  if (answer.status < 200 || answer.status >= 300) return { refused: false };
  const result = messages.find((m) => isRecord(m) && 'result' in m && m.id === sentId);
  return { refused: false, success: { ok: result !== undefined, reason: `no JSON-RPC result carrying the request's id ${JSON.stringify(sentId)}` } };
}

/** A 501 to a method the deployment need not implement anywhere is the answer RFC 9110 names for it (15.6.2), not a server error. */
function notImplemented(sent: SentRequest, status: number): boolean {
  if (status !== 501) return false;
  const bare = sent.path.split('?', 1)[0]!;
  const surface = bare === '/mcp' ? 'mcp' : bare.startsWith('/v8/') ? 'v8' : bare.startsWith('/v1/') ? 'v1' : undefined;
  return surface !== undefined && unimplementedMethod(surface, sent.method);
}

/**
 * A 3xx: RFC 9110 §15.4 makes it a legal answer to some requests, but not the final answer a case's
 * expectation judges. apicert does not follow it, so what it lacks is the answer: every rule that
 * would judge the case lacks it (`j.lacks`), and a run whose cases were all redirected is never a pass.
 * A 304 is none: it is the final answer to a conditional request ("would have resulted in a 200 (OK)
 * response if it were not for the fact that the condition evaluated to false", RFC 9110 §15.4.5),
 * with nothing to follow, and is judged as an answer.
 */
export function isRedirect(status: number): boolean {
  return status >= 300 && status < 400 && status !== 304;
}

/** The Location as a report may show it: origin and path only (a query or fragment may carry a token), clipped. */
function redirectTarget(location: string | undefined): string {
  if (location === undefined || location.trim() === '') return 'no Location';
  let shown: string;
  try {
    const u = new URL(location);
    shown = `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    // A relative reference: its path, without query or fragment.
    shown = location.trim().split(/[?#]/, 1)[0]!;
  }
  return shown.length > 120 ? `${shown.slice(0, 120)}…` : shown;
}

/** Whether a case expected to be of this kind gives `aspect` anything to judge: a refusal's status only where one is expected, an acceptance only where one is. */
export function judgesAspect(aspect: Aspect, expected: Expectation['kind']): boolean {
  if (aspect === 'error-status') return expected === 'refuse';
  if (aspect === 'accepts-valid') return expected === 'accept';
  return true;
}

/** Judges one answer against the expectation of the request that provoked it. */
export function judgeAnswer(sent: SentRequest, expectation: Expectation, answer: Answer): Judgement {
  const head = what(sent, answer);
  if (isRedirect(answer.status)) return { unjudged: `${head}: a redirect (${answer.status} to ${redirectTarget(answer.headers.location)}): apicert does not follow redirects, the final answer is unknown`, findings: {} };
  if (answer.cut) return { unjudged: `${head}: the body was cut at the body cap, so the answer was not read whole`, findings: {} };
  if (answer.malformed) {
    const broken = { ok: false, reason: `${head}: the body ${answer.malformed}, so it is neither an acceptance nor a refusal` };
    const findings: Judgement['findings'] = { 'no-5xx': broken, 'problem-json': broken };
    if (expectation.kind === 'refuse') findings['error-status'] = broken;
    if (expectation.kind === 'accept') findings['accepts-valid'] = broken;
    return { findings };
  }
  const findings: Judgement['findings'] = { 'no-5xx': { ok: answer.status < 500 || notImplemented(sent, answer.status), reason: serverError(head, expectation) } };
  const mcp = sent.path.split('?', 1)[0] === '/mcp';
  const reading = mcp ? readMcp(sent, answer) : readRest(sent, answer);
  // A HEAD answer has no content (RFC 9110, 9.3.2), and a head too large or a target too long is refused by the HTTP layer before the API (a bodiless 414 or 431): no format to read.
  const bodiless = sent.method === 'HEAD' || ((answer.status === 414 || answer.status === 431) && answer.text.trim() === '');
  if (reading.refused && reading.format && !bodiless) findings['problem-json'] = { ok: reading.format.ok, reason: `${head}: ${reading.format.reason}` };
  if (expectation.kind === 'refuse' && answer.status < 500) {
    if (!reading.refused) findings['error-status'] = { ok: false, reason: `${head}, not a refusal; expected: ${expected(expectation)}` };
    else if (mcp && expectation.codes && answer.status < 300) findings['error-status'] = { ok: expectation.codes.includes(reading.code as number), reason: `${head} with JSON-RPC error ${JSON.stringify(reading.code)}; expected: ${expected(expectation)}` };
    else if (!mcp && expectation.status !== undefined) findings['error-status'] = { ok: answer.status === expectation.status, reason: `${head}, not ${owedStatus(expectation.status, expectation.because)}; expected: ${expected(expectation)}` };
    else findings['error-status'] = { ok: true, reason: '' };
  }
  // A key lacking a scope the description does not show is refused legally: that refusal is open (its format is still judged).
  if (expectation.kind === 'accept' && answer.status < 500 && !refusedForScope(expectation, answer)) {
    if (reading.refused) findings['accepts-valid'] = { ok: false, reason: `${head}: refused a request the description accepts; expected: ${expected(expectation)}` };
    else if (reading.success) findings['accepts-valid'] = { ok: reading.success.ok, reason: `${head}: ${reading.success.reason}; expected: ${expected(expectation)}` };
    else findings['accepts-valid'] = { ok: false, reason: `${head}: neither a refusal nor the documented success answer; expected: ${expected(expectation)}` };
  }
  return { findings };
}

/** A 5xx where the case expects something else: an open case is no acceptance to fail, any answer a deployment may give would do. */
function serverError(head: string, e: Expectation): string {
  if (e.kind === 'open') return `${head}: a server error; any 2xx or 4xx would do here (the case is open: ${e.why})`;
  return `${head}: a server error; expected: ${expected(e)}`;
}

/**
 * The status a refusal owes, named by where it comes from: a standard's sentence requires it (RFC
 * 9112 §3.2's 400 for two Host lines), else the endpoint's error table (or the description's
 * authentication sentence, which the tables repeat) names it.
 */
export function owedStatus(status: number, because: Sentence): string {
  return because.kind === 'standard' ? `the ${status} ${because.standard} ${because.section} requires` : `the ${status} its error table names`;
}

/** How a failing case names its expectation in a report: the kind, the constraint and its sentence. */
export function expectationText(e: Expectation): string {
  return expected(e);
}
