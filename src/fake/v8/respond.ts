import type { ServerResponse } from 'node:http';
import { CONTRACT_HEADER, CONTRACT_VERSION } from '../../contract/v8/common.ts';
import { PROBLEM_CONTENT_TYPE, type V8Problem } from '../../contract/v8/problem.ts';
import { uuidv4 } from '../../util/uuid.ts';
import type { FakeCaller } from '../auth.ts';
import { v8RateLimited } from './rate-limit.ts';
import type { FakeContext } from '../context.ts';
import type { RouteRequest } from '../http.ts';

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Content Too Large',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
};

/** Responses of the /v8 gateway: JSON or problem+json, always with the contract header. */
export class V8Responder {
  private readonly fake: FakeContext;
  constructor(fake: FakeContext) {
    this.fake = fake;
  }

  json(res: ServerResponse, status: number, body: unknown): void {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', [CONTRACT_HEADER]: CONTRACT_VERSION, 'content-length': Buffer.byteLength(text) });
    res.end(text);
  }

  /** A pre-serialized JSON body, as stored for idempotent replay. */
  raw(res: ServerResponse, status: number, text: string, contentType = 'application/json'): void {
    res.writeHead(status, { 'content-type': contentType, [CONTRACT_HEADER]: CONTRACT_VERSION, 'content-length': Buffer.byteLength(text) });
    res.end(text);
  }

  empty(res: ServerResponse, status: number): void {
    res.writeHead(status, { [CONTRACT_HEADER]: CONTRACT_VERSION, 'content-length': 0 });
    res.end();
  }

  private tooManyRequests(res: ServerResponse, retryAfter: number): void {
    res.setHeader('retry-after', String(retryAfter));
    if (!this.fake.faults.has('load.v8.rate-limit.429-problem/plain-text')) {
      this.problem(res, 429, 'rate_limited', 'This principal is over its rate limit: wait for Retry-After.');
      return;
    }
    res.writeHead(429, { 'content-type': 'text/plain', [CONTRACT_HEADER]: CONTRACT_VERSION });
    res.end('Too Many Requests');
  }

  problem(res: ServerResponse, status: number, code: string, detail: string): void {
    const body: V8Problem = {
      type: `https://errors.apicert.invalid/v8/${code}`,
      title: TITLES[status] ?? 'Error',
      status: this.fake.faults.has('v8.errors.problem-shape/status-mismatch') ? 400 : status,
      detail,
      code,
      requestId: uuidv4(),
    };
    const text = JSON.stringify(body);
    const headers: Record<string, string | number> = { 'content-type': PROBLEM_CONTENT_TYPE, 'content-length': Buffer.byteLength(text) };
    if (!this.fake.faults.has('v8.contract.version-header/missing-on-errors')) headers[CONTRACT_HEADER] = CONTRACT_VERSION;
    res.writeHead(status, headers);
    res.end(text);
  }

  /**
   * Authenticates and authorizes a /v8 request; on refusal it answers 401 or 403 itself and
   * returns undefined.
   */
  authorize(r: RouteRequest, scope: string | undefined): FakeCaller | undefined {
    const caller = this.fake.tokens.lookup(r.header('authorization'));
    if (!caller) {
      this.problem(r.res, 401, 'unauthenticated', 'A valid bearer token is required: send Authorization: Bearer <token>.');
      return undefined;
    }
    if (caller.expired && !this.fake.faults.has('v8.missions.auth.expired-token-401/accepted')) {
      this.problem(r.res, 401, 'token_expired', 'The bearer token has expired.');
      return undefined;
    }
    if (scope && !caller.scopes.has(scope)) {
      this.problem(r.res, 403, 'insufficient_scope', `This operation needs the scope ${scope}.`);
      return undefined;
    }
    const retryAfter = v8RateLimited(this.fake, caller);
    if (retryAfter !== undefined) {
      this.tooManyRequests(r.res, retryAfter);
      return undefined;
    }
    return caller;
  }
}
