/**
 * Which requests to a missions endpoint only authentication can refuse. "A missing or expired token
 * gives `401`. A token without the scope required for the endpoint gives `403`." and "`400` missing
 * fields ..., malformed JSON" name two causes, and no sentence orders the checks: a request that also
 * carries another cause of refusal may be refused for either, so the auth rules judge only requests
 * that carry none (the reading `v8.auth.scope-matrix` takes of "ordinary" requests).
 */
import { endpointOf, type Endpoint } from '../../../contract/endpoints.ts';
import { pathIdentifier } from '../../../contract/v8/common.ts';
import { type Exchange, mediaType, pathOnly } from '../../../rule/index.ts';
import { exchangeFact, oversizedHead, parsedAs, requestJson } from '../../../traffic/read.ts';
import { acceptAdmitsNoAnswer } from '../../../traffic/http-fields.ts';
import { isRecord } from '../../../util/json.ts';
import { mayBeRefused } from './traffic.ts';

/**
 * Why a request to a /v8 endpoint may be refused for its form before (or instead of) its
 * credential, or undefined when it carries no such cause: a query, a head past what a server may
 * limit it to (`oversizedHead`, the reading `openRequestForm` takes), a foreign Origin, an Accept no
 * answer satisfies, a malformed path parameter, a required header missing or malformed (the
 * credential aside), a body not of the contract's shape, or one a legal deployment may still refuse.
 */
export function otherCauseOfRefusal(ex: Exchange, e: Endpoint): string | undefined {
  // Four rules ask it of every exchange of a recording: worked out once while the request's body stands.
  return e === endpointOf(ex.method, ex.path) ? exchangeFact(ex, causeOfOwnEndpoint, ex.requestBody) : findCause(ex, e);
}

function causeOfOwnEndpoint(ex: Exchange): string | undefined {
  return findCause(ex, endpointOf(ex.method, ex.path)!);
}

function findCause(ex: Exchange, e: Endpoint): string | undefined {
  if (ex.path.includes('?')) return 'a query';
  const head = oversizedHead(ex);
  if (head !== undefined) return head;
  if (ex.requestHeaders.origin !== undefined) return 'an Origin header';
  if (acceptAdmitsNoAnswer(ex.requestHeaders.accept)) return `Accept: ${ex.requestHeaders.accept}`;
  const template = e.path.split('/');
  const actual = pathOnly(ex).split('/');
  if (template.length !== actual.length) return 'another path';
  for (const [i, part] of template.entries()) {
    const name = /^\{(.+)\}$/.exec(part)?.[1];
    if (name === undefined) continue;
    let value: string;
    try {
      value = decodeURIComponent(actual[i]!);
    } catch {
      return `a malformed ${name}`;
    }
    if (!(e.pathParams[name]?.safeParse(value).success ?? pathIdentifier.safeParse(value).success)) return `a malformed ${name}`;
  }
  for (const h of e.headers) {
    if (h.name === 'authorization' || !h.required) continue;
    const value = h.name === 'content-type' ? mediaType(ex.requestHeaders) : ex.requestHeaders[h.name];
    if (value === undefined) return `no ${h.name}`;
    if (h.schema !== undefined && !h.schema.safeParse(value).success) return `a malformed ${h.name}`;
  }
  const spec = e.bodies[0];
  if (spec === undefined) return ex.requestBody === undefined || ex.requestBody === '' ? undefined : 'a body where none is shown';
  const body = requestJson(ex);
  if (!isRecord(body) || !parsedAs(spec.schema, body).success) return 'a body not of the contract\'s shape';
  return mayBeRefused(ex, body);
}
