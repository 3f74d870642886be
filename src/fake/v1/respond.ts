import type { ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { PROBLEM_CONTENT_TYPE } from '../../contract/v8/problem.ts';
import type { ErrorCode, FieldError, V1Problem } from '../../contract/v1/problem.ts';
import type { FakeCaller } from '../auth.ts';
import type { FakeContext } from '../context.ts';
import type { RouteRequest } from '../http.ts';

const TITLES: Record<number, string> = {
  400: 'Invalid request',
  401: 'Authentication failed',
  403: 'Authorization failed',
  404: 'Not found',
  405: 'Method not allowed',
  409: 'Conflict',
  413: 'Request too large',
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
}

/** Responses of the /v1 execution fabric: JSON, or the closed v1 problem+json. */
export class V1Responder {
  private readonly fake: FakeContext;
  constructor(fake: FakeContext) {
    this.fake = fake;
  }

  json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
    res.end(text);
  }

  problem(res: ServerResponse, status: number, code: ErrorCode, options: V1ProblemOptions = {}): void {
    const body: V1Problem = {
      type: `https://errors.apicert.invalid/v1/${code}`,
      title: TITLES[status] ?? 'Error',
      status,
      code,
      requestId: `req_${randomBytes(8).toString('hex')}`,
      retryable: options.retryable ?? (status === 429 || status === 503),
    };
    if (options.detail !== undefined) body.detail = options.detail.slice(0, 2048);
    if (options.retryAfterMs !== undefined) body.retryAfterMs = options.retryAfterMs;
    if (options.fieldErrors?.length) body.fieldErrors = options.fieldErrors.slice(0, 64);
    const sent: Record<string, unknown> = this.fake.faults.has('v1.errors.problem-shape/extra-member') ? { ...body, error: code } : body;
    const text = JSON.stringify(sent);
    res.writeHead(status, { 'content-type': PROBLEM_CONTENT_TYPE, 'content-length': Buffer.byteLength(text), ...options.headers });
    res.end(text);
  }

  /**
   * Authenticates a `service_sk_` API key and checks it holds every scope in `scopes`; on refusal it
   * answers 401 `authentication_failed` or 403 `authorization_failed` itself and returns undefined.
   */
  authorize(r: RouteRequest, scopes: readonly string[]): FakeCaller | undefined {
    const caller = this.fake.tokens.lookup(r.header('authorization'));
    if (!caller || caller.expired) {
      this.problem(r.res, 401, 'authentication_failed', { detail: 'Send Authorization: Bearer <API key> with a valid, unexpired service_sk_ key.', retryable: false });
      return undefined;
    }
    const missing = scopes.filter((s) => !caller.scopes.has(s));
    if (missing.length > 0) {
      this.problem(r.res, 403, 'authorization_failed', { detail: `This operation needs the scope(s) ${missing.join(', ')}.`, retryable: false });
      return undefined;
    }
    return caller;
  }
}
