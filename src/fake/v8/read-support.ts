import type { z } from 'zod';
import type { FakeCaller } from '../auth.ts';
import type { FakeContext } from '../context.ts';
import { parseJson } from '../../util/json.ts';
import type { RouteRequest } from '../http.ts';
import { V8Responder } from './respond.ts';

/** How a fault may bend authentication on one read endpoint; every flag off means the contract. */
export interface AuthBend {
  /** Serve a request that carries no Authorization header at all. */
  anonymous?: boolean;
  /** Accept an expired token. */
  expired?: boolean;
  /** Do not require the endpoint's scope. */
  anyScope?: boolean;
}

const ANONYMOUS: FakeCaller = { principal: 'anonymous', tenant: 'none', scopes: new Set(), expired: false };

/** Shared plumbing of the read surfaces: auth, JSON bodies, validation answers. */
export class ReadSurface {
  readonly fake: FakeContext;
  readonly v8: V8Responder;
  constructor(fake: FakeContext) {
    this.fake = fake;
    this.v8 = new V8Responder(fake);
  }

  authorize(r: RouteRequest, scope: string, bend: AuthBend = {}): FakeCaller | undefined {
    if (bend.anonymous && r.header('authorization') === undefined) return ANONYMOUS;
    const caller = this.fake.tokens.lookup(r.header('authorization'));
    if (caller?.expired && bend.expired) return caller;
    return this.v8.authorize(r, bend.anyScope ? undefined : scope);
  }

  /** The parsed JSON body, or undefined after answering 400 for malformed JSON. */
  async jsonBody(r: RouteRequest): Promise<unknown> {
    const parsed = parseJson(await r.body());
    if (!parsed.ok) {
      this.v8.problem(r.res, 400, 'malformed_json', 'The request body is not valid JSON.');
      return undefined;
    }
    return parsed.value;
  }

  /** Answers 400 naming the fields at fault, never their values (they may be sensitive). */
  invalid(r: RouteRequest, error: z.ZodError): void {
    const detail = error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ');
    if (this.fake.faults.has('v8.errors.problem-shape/plain-json-on-read-surfaces')) {
      this.v8.json(r.res, 400, { error: 'invalid_request', detail });
      return;
    }
    this.v8.problem(r.res, 400, 'invalid_request', detail);
  }

  /** "A body containing `principalId` is rejected with `403`": answers it and returns true. */
  refusePrincipalInBody(r: RouteRequest, body: unknown, ignoreFault: boolean): boolean {
    if (ignoreFault || !body || typeof body !== 'object' || Array.isArray(body) || !('principalId' in body)) return false;
    this.v8.problem(r.res, 403, 'principal_in_body', 'The principal is taken from the token: remove principalId from the body.');
    return true;
  }

  /** 200 JSON; the version-header fault drops the contract header on the listing surfaces. */
  listing(r: RouteRequest, body: unknown): void {
    if (!this.fake.faults.has('v8.contract.version-header/missing-on-read-surfaces')) {
      this.v8.json(r.res, 200, body);
      return;
    }
    const text = JSON.stringify(body);
    r.res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    r.res.end(text);
  }
}

