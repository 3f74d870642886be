import type { ServerResponse } from 'node:http';
import { API_KEY_PREFIX } from '../../contract/v1/common.ts';
import type { ErrorCode } from '../../contract/v1/problem.ts';
import type { FakeCaller } from '../auth.ts';
import type { FakeContext } from '../context.ts';
import type { RouteRequest } from '../http.ts';
import { httpLayerRefusal } from './contract/http-layer.ts';
import { writeProblem, type V1ProblemOptions } from './errors.ts';

export type { V1ProblemOptions } from './errors.ts';

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
    if (options.exactStatus && httpLayerRefusal(this.fake, res)) return;
    writeProblem(this.fake, res, status, code, options);
  }

  /**
   * Authenticates a `service_sk_` API key and checks it holds every scope in `scopes`; on refusal it
   * answers 401 `authentication_failed` or 403 `authorization_failed` itself and returns undefined.
   */
  authorize(r: RouteRequest, scopes: readonly string[]): FakeCaller | undefined {
    const authorization = r.header('authorization');
    const caller = this.fake.tokens.lookup(authorization);
    // The fake's registry holds every surface's tokens: on /v1 only a service_sk_ key is an API key.
    if (!caller || caller.expired || !isApiKey(authorization)) {
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

function isApiKey(authorization: string | undefined): boolean {
  return authorization?.replace(/^Bearer\s+/i, '').startsWith(API_KEY_PREFIX) ?? false;
}
