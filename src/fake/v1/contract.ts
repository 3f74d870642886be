/**
 * Faults of the generated contract rules (`v1.contract.generated.*`): each bends /v1 where only
 * requests derived from the schemas look (a body type, a nested bound or an optional object no
 * hand-written rule sends, a header value only the generated header cases try).
 */
import { unimplementedMethod } from '../../contract/endpoints.ts';
import type { FakeContext } from '../context.ts';
import { isRecord } from '../../util/json.ts';
import { mediaTypeOf } from '../../rule/media-type.ts';
import type { Route, RouteRequest } from '../http.ts';
import { lenientJson } from '../support/lenient-json.ts';
import { bodyJson, CHOSEN_BODY_LIMIT, withBody } from '../support/route-body.ts';
import { gzipAnswers } from './contract/gzip-answers.ts';
import { openChoiceRoute } from './open-choices.ts';
import type { V1Surface } from './surface.ts';

/** Under the variant, a method /v1 uses for no resource is answered 501, the status RFC 9110 15.6.2 names for it, instead of 404 or 405. */
export function answersUnimplemented(fake: FakeContext, method: string): boolean {
  return unimplementedMethod('v1', method) && fake.variants.has('v1.contract/unimplemented-methods-501');
}

/** The Allow field of a /v1 405 (RFC 9110 15.5.6): the methods the path serves; none under the fault. */
export function allowHeaders(fake: FakeContext, methods: readonly string[]): Record<string, string> {
  return fake.faults.has('v1.contract.allow-on-405/no-allow') ? {} : { allow: methods.join(', ') };
}

/** The request to route (its body perhaps rewritten), or undefined when a fault already answered. */
async function contractFaultRoute({ fake, v1 }: V1Surface, r: RouteRequest): Promise<RouteRequest | undefined> {
  const faults = fake.faults;
  if (r.req.method === 'GET') {
    if (r.path === '/v1/usage' && faults.has('v1.contract.generated.no-5xx/repeated-query-500') && [...new Set(r.query.keys())].some((k) => r.query.getAll(k).length > 1)) {
      v1.problem(r.res, 500, 'internal_failed', { detail: 'A parameter was given twice.', retryable: false });
      return undefined;
    }
    if (/\/events$/.test(r.path) && faults.has('v1.contract.generated.problem-json/last-event-id-plain-text') && r.header('last-event-id')?.startsWith('apicert-')) {
      r.res.writeHead(400, { 'content-type': 'text/plain' });
      r.res.end('Last-Event-ID is not a sequence');
      return undefined;
    }
  }
  if (r.req.method !== 'POST') return r;
  if (faults.has('v1.contract.generated.no-5xx/method-override-500') && r.header('x-http-method-override') !== undefined) {
    v1.problem(r.res, 500, 'internal_failed', { detail: 'Method override is not supported.', retryable: false });
    return undefined;
  }
  if (/^\/v1\/runs\/[^/]+\/cancel$/.test(r.path) && faults.has('v1.contract.generated.no-5xx/cancel-large-body-500') && (await r.body()).length > 64 * 1024) {
    v1.problem(r.res, 500, 'internal_failed', { detail: 'The body buffer is 64 KiB.', retryable: false });
    return undefined;
  }
  if (/^\/v1\/runs\/[^/]+\/approve$/.test(r.path)) {
    if (faults.has('v1.contract.generated.accepts-valid/approve-whitespace-refused') && /^\s/.test(await r.body())) {
      v1.problem(r.res, 400, 'invalid_request', { detail: 'The body must start with "{".', retryable: false });
      return undefined;
    }
    const approve = await bodyJson(r);
    if (faults.has('v1.contract.generated.error-status/approve-extra-accepted') && isRecord(approve) && 'apicertExtra' in approve) {
      const { apicertExtra: _dropped, ...rest } = approve;
      return withBody(r, rest);
    }
  }
  if (/^\/v1\/runs\/[^/]+\/approve$/.test(r.path) && faults.has('v1.contract.generated.no-5xx/approve-array-500') && Array.isArray(await bodyJson(r))) {
    v1.problem(r.res, 500, 'internal_failed', { detail: 'Cannot read properties of an array.', retryable: false });
    return undefined;
  }
  if (r.path !== '/v1/execute') return r;
  const body = await bodyJson(r);
  if (!isRecord(body) || body.mode !== 'task') return r;
  if (faults.has('v1.contract.generated.problem-json/task-tools-plain-json') && 'tools' in body && !isRecord(body.tools)) {
    v1.json(r.res, 400, { error: 'tools must be an object' });
    return undefined;
  }
  if (faults.has('v1.contract.generated.accepts-valid/task-empty-tools-refused') && isRecord(body.tools) && Array.isArray(body.tools.allow) && body.tools.allow.length === 0) {
    v1.problem(r.res, 400, 'invalid_request', { detail: 'tools must name a tool.', retryable: false });
    return undefined;
  }
  const deny = isRecord(body.tools) ? body.tools.deny : undefined;
  if (faults.has('v1.contract.generated.error-status/task-tools-unchecked') && Array.isArray(deny) && deny.some((d) => typeof d === 'string' && d.length > 128)) {
    const { tools: _dropped, ...rest } = body;
    return withBody(r, rest);
  }
  return r;
}

/** Every /v1 route behind the generated contract faults. */
export function withContractFaults(surface: V1Surface, routes: Route[]): Route[] {
  return routes.map((route) => ({
    ...route,
    handler: async (r) => {
      gzipAnswers(surface.fake, r);
      const routed = await contractFaultRoute(surface, r);
      const wire = routed && (await contractOpenChoice(surface, routed));
      const chosen = wire && (await openChoiceRoute(surface, wire));
      if (chosen) await route.handler(chosen);
    },
  }));
}

/** A task answer as served: under its fault, `run_id` is a number when the request asked for exactly application/json. */
export function servedTaskAnswer(surface: V1Surface, r: RouteRequest, answer: { run_id: string; accepted: boolean }): Record<string, unknown> {
  if (!surface.fake.faults.has('v1.contract.generated.response-schema/numeric-run-id') || r.header('accept') !== 'application/json') return answer;
  return { ...answer, run_id: Number.parseInt(answer.run_id.replace(/\D/g, '').slice(0, 12) || '1', 10) };
}

/** Whether an Accept field value admits JSON (a range with q above 0); absent admits anything. */
function admitsJson(accept: string | undefined): boolean {
  if (accept === undefined) return true;
  return accept.split(',').some((range) => {
    const [type = '', ...params] = range.split(';').map((p) => p.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    return (q === undefined || Number(q.slice(2)) > 0) && (type === '*/*' || type === 'application/*' || type === 'application/json');
  });
}

/**
 * The request-side choices of the whole /v1 contract (docs/legal-variation.md): the request to
 * route (its body or headers perhaps read another way), or undefined when a variant already answered.
 */
export async function contractOpenChoice({ fake, v1 }: V1Surface, r: RouteRequest): Promise<RouteRequest | undefined> {
  const v = fake.variants;
  if (r.header('authorization') === undefined && r.query.get('access_token') && v.has('v1.contract/query-token')) r.req.headers.authorization = `Bearer ${r.query.get('access_token')}`;
  if (r.req.method === 'GET' && !/\/events$/.test(r.path) && !admitsJson(r.header('accept')) && v.has('v1.contract/not-acceptable-406')) {
    v1.problem(r.res, 406, 'invalid_request', { detail: 'None of the media types in Accept is served here.', retryable: false });
    return undefined;
  }
  if (r.req.method !== 'POST') return r;
  if (r.header('transfer-encoding') !== undefined && r.header('content-length') === undefined && v.has('v1.contract/length-required')) {
    v1.problem(r.res, 411, 'invalid_request', { detail: 'Send the body with a Content-Length.', retryable: false });
    return undefined;
  }
  const text = await r.body();
  if (text !== '' && mediaTypeOf(r.header('content-type')) !== 'application/json' && v.has('v1.contract/json-only-request-type')) {
    v1.problem(r.res, 415, 'invalid_request', { detail: 'A request body is read as application/json only.', retryable: false });
    return undefined;
  }
  if (Buffer.byteLength(text) > CHOSEN_BODY_LIMIT && v.has('v1.contract/body-limit-413')) {
    v1.problem(r.res, 413, 'invalid_request', { detail: `A request body is at most ${CHOSEN_BODY_LIMIT} bytes here.`, retryable: false });
    return undefined;
  }
  if (r.path === '/v1/execute' && r.header('accept')?.trim() === 'text/event-stream' && isRecord(await bodyJson(r)) && ((await bodyJson(r)) as Record<string, unknown>).mode === 'task' && v.has('v1.contract/task-event-stream-406')) {
    v1.problem(r.res, 406, 'invalid_request', { detail: 'A task answers JSON; Accept admits only an event stream.', retryable: false });
    return undefined;
  }
  const lenient = lenientJson(text);
  if (lenient && v.has('v1.contract/lenient-json')) return withBody(r, lenient.value);
  return r;
}
