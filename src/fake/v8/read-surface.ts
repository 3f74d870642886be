import type { z } from 'zod';
import type { FakeCaller } from '../auth.ts';
import type { FakeContext } from '../context.ts';
import { parseJson } from '../../util/json.ts';
import type { RouteRequest } from '../http.ts';
import { authBend, authorize, type ReadEndpoint } from './auth.ts';
import { answeredNotModified, contractHeader, jsonContentType } from './contract.ts';
import { writeInvalid } from './errors.ts';
import { V8Responder } from './respond.ts';

const ANONYMOUS: FakeCaller = { principal: 'anonymous', tenant: 'none', scopes: new Set(), expired: false };

/** Shared plumbing of the read surfaces: auth, JSON bodies, validation answers. */
export class ReadSurface {
  readonly fake: FakeContext;
  readonly v8: V8Responder;
  constructor(fake: FakeContext) {
    this.fake = fake;
    this.v8 = new V8Responder(fake);
  }

  /** Authenticates for `endpoint` with its `scope`, as the auth area's faults bend it there. */
  authorize(r: RouteRequest, endpoint: ReadEndpoint, scope: string): FakeCaller | undefined {
    const bend = authBend(this.fake, endpoint);
    if (bend.anonymous && r.header('authorization') === undefined) return ANONYMOUS;
    const caller = this.fake.tokens.lookup(r.header('authorization'));
    if (caller?.expired && bend.expired) return caller;
    return authorize(this.fake, r, bend.anyScope ? undefined : scope);
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
    writeInvalid(this.fake, r.res, error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '));
  }

  /** "A body containing `principalId` is rejected with `403`": answers it and returns true. */
  refusePrincipalInBody(r: RouteRequest, body: unknown, ignoreFault: boolean): boolean {
    if (ignoreFault || !body || typeof body !== 'object' || Array.isArray(body) || !('principalId' in body)) return false;
    this.v8.problem(r.res, 403, 'principal_in_body', 'The principal is taken from the token: remove principalId from the body.');
    return true;
  }

  /** 200 JSON on the listing surfaces (goals, certificates, coverage). */
  listing(r: RouteRequest, body: unknown): void {
    const text = JSON.stringify(body);
    if (answeredNotModified(this.fake, r.res, text, 'listing')) return;
    r.res.writeHead(200, { 'content-type': jsonContentType(this.fake), ...contractHeader(this.fake, 'listing'), 'content-length': Buffer.byteLength(text) });
    r.res.end(text);
  }
}
