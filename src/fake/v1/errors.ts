import type { ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import { PROBLEM_CONTENT_TYPE } from '../../contract/v8/problem.ts';
import type { ErrorCode, FieldError, V1Problem } from '../../contract/v1/problem.ts';
import type { FakeContext } from '../context.ts';
import type { RouteRequest } from '../http.ts';
import { retryAfterSeconds } from '../rate-limit.ts';
import type { V1State } from './state.ts';
import type { VariantSet } from '../variants/index.ts';
import { holdsOddString } from '../support/odd-strings.ts';
import { challengeHeaders } from './auth/challenge.ts';

const TITLES: Record<number, string> = {
  400: 'Invalid request',
  401: 'Authentication failed',
  403: 'Authorization failed',
  404: 'Not found',
  405: 'Method not allowed',
  409: 'Conflict',
  413: 'Request too large',
  422: 'Invalid request',
  429: 'Rate limited',
  500: 'Internal failure',
  503: 'Service unavailable',
};

export interface V1ProblemOptions {
  detail?: string;
  retryable?: boolean;
  retryAfterMs?: number;
  fieldErrors?: FieldError[];
  headers?: Record<string, string>;
  /** A refusal by the HTTP layer whose status RFC 9112 names (two Host lines): no mapping of codes changes it. */
  exactStatus?: boolean;
}

/** "Mapping of each `code` to an HTTP status: not shown.": the fake's mapping, or another one a variant takes. */
function statusOf(fake: FakeContext, status: number, code: ErrorCode): number {
  if (status === 400 && code === 'invalid_request' && fake.variants.has('v1.errors/invalid-request-422')) return 422;
  if (status === 401 && code === 'authentication_failed' && fake.variants.has('v1.errors/authentication-403')) return 403;
  if (status === 403 && code === 'authorization_failed' && fake.variants.has('v1.errors/authorization-401')) return 401;
  return status;
}

/** The optional members, left out (`v1.errors/minimal-problem`) or all given (`v1.errors/full-problem`). */
function optionalMembers(fake: FakeContext, body: V1Problem): V1Problem {
  if (fake.variants.has('v1.errors/minimal-problem')) {
    const { detail: _d, instance: _i, requestId: _r, retryAfterMs: _a, fieldErrors: _f, ...required } = body;
    return required;
  }
  if (!fake.variants.has('v1.errors/full-problem')) return body;
  return {
    ...body,
    detail: body.detail ?? `${body.title}.`,
    instance: `request ${body.requestId ?? 'unknown'} on the apicert fake (free-form, not a URI)`,
    ...(body.retryable && body.retryAfterMs === undefined ? { retryAfterMs: 1000 } : {}),
    fieldErrors: body.fieldErrors ?? [],
  };
}

/** The closed v1 problem+json. */
export function writeProblem(fake: FakeContext, res: ServerResponse, given: number, code: ErrorCode, options: V1ProblemOptions = {}): void {
  const status = options.exactStatus ? given : statusOf(fake, given, code);
  let body: V1Problem = {
    type: fake.variants.has('v1.errors/relative-problem-type') ? `/problems/${code}` : `https://errors.apicert.invalid/v1/${code}`,
    title: TITLES[status] ?? 'Error',
    status,
    code,
    requestId: `req_${randomBytes(8).toString('hex')}`,
    retryable: options.retryable ?? (status === 429 || status === 503),
  };
  if (options.detail !== undefined) body.detail = options.detail.slice(0, 2048);
  if (options.retryAfterMs !== undefined) body.retryAfterMs = options.retryAfterMs;
  if (options.fieldErrors?.length) body.fieldErrors = options.fieldErrors.slice(0, 64);
  body = optionalMembers(fake, body);
  const sent: Record<string, unknown> = fake.faults.has('v1.errors.problem-shape/extra-member') ? { ...body, error: code } : body;
  const text = JSON.stringify(sent);
  res.writeHead(status, { 'content-type': PROBLEM_CONTENT_TYPE, 'content-length': Buffer.byteLength(text), ...(status === 401 ? challengeHeaders(fake) : {}), ...options.headers });
  res.end(text);
}

/** zod issues as v1 FieldErrors; an unknown property is reported at its own path. */
export function fieldErrors(error: z.ZodError): FieldError[] {
  const out: FieldError[] = [];
  for (const issue of error.issues) {
    const base = issue.path.map(String);
    const paths = issue.code === 'unrecognized_keys' ? issue.keys.map((k) => [...base, k].join('.')) : [base.join('.') || '$'];
    for (const path of paths) out.push({ path: path.slice(0, 256), code: issue.code.slice(0, 96), message: (issue.message || 'invalid').slice(0, 512) });
  }
  return out.slice(0, 64);
}

export function bearerKey(r: RouteRequest): string {
  return (r.header('authorization') ?? '').slice(7).trim();
}

/** Applies the key's rate-limit tier; answers 429 or 503 itself. `onRefused` runs first (for the key-burning faults). */
export function limit(fake: FakeContext, state: V1State, r: RouteRequest, onRefused?: (status: 429 | 503) => void): boolean {
  const key = bearerKey(r);
  const decision = fake.rateLimiter.v1(key, state.keyNames.get(key));
  if (decision.kind === 'ok') return true;
  // The fault: the probe key's declared tier is never enforced (the limiter counts, nobody is refused).
  if (decision.kind === 'limited' && fake.faults.has('v1.errors.rate-limited/never-limits')) return true;
  if (decision.kind === 'unavailable') {
    if (fake.faults.has('v1.errors.limiter-unavailable-503/fail-open')) return true;
    onRefused?.(503);
    writeProblem(fake, r.res, 503, fake.variants.has('v1.errors/unavailable-rate-limited-code') ? 'rate_limited' : 'internal_failed', { detail: 'Rate-limit protection is unavailable for this key; the request was refused (fail-closed). Retry later.', retryable: !fake.faults.has('v1.errors.limiter-unavailable-503/not-retryable') });
    return false;
  }
  // Load faults: a limiter that goes wrong only once a burst is well past the limit.
  if (decision.refused > 5 && fake.faults.has('load.v1.rate-limit.refusals-are-429/overload-500')) {
    // It says it is the limit (rate_limited): a bare 500 under load would be any overloaded backend, which no sentence forbids.
    writeProblem(fake, r.res, 500, 'rate_limited', { detail: 'The rate limiter is overloaded.', retryable: false });
    return false;
  }
  // The legal twin of overload-500: a busy backend's 500 that does not say it is the limit.
  if (decision.refused > 5 && fake.variants.has('v1.errors/overloaded-500-under-burst')) {
    writeProblem(fake, r.res, 500, 'internal_failed', { detail: 'The service is overloaded.', retryable: true });
    return false;
  }
  onRefused?.(429);
  if (fake.faults.has('v1.errors.rate-limited/limit-as-403')) {
    writeProblem(fake, r.res, 403, 'entitlement_failed', { detail: 'This API key is over its rate limit.', retryable: false });
    return false;
  }
  const headers: Record<string, string> = fake.faults.has('v1.errors.rate-limited-retry-after/no-retry-after') || fake.variants.has('v1.errors/no-retry-after') ? {} : { 'retry-after': String(retryAfterSeconds(decision.retryAfterMs)) };
  const retryable = !fake.faults.has('v1.errors.rate-limited/not-retryable') && !(decision.refused > 3 && fake.faults.has('load.v1.rate-limit.429-shape/retryable-false-under-burst'));
  writeProblem(fake, r.res, 429, 'rate_limited', { detail: 'This API key is over its rate limit: wait for Retry-After.', retryable, retryAfterMs: decision.retryAfterMs, headers });
  return false;
}

/** Why a body is refused for holding NUL or lone surrogates (I-JSON, RFC 8259 8.2: a legal refusal), or undefined. */
export function oddStringRefusal(v: VariantSet, body: unknown): string | undefined {
  return v.has('v1.errors/refuses-nul-and-lone-surrogates') && holdsOddString(body) ? 'Strings may not hold NUL characters or lone surrogates.' : undefined;
}
