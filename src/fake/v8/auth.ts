import type { FakeCaller } from '../auth.ts';
import type { FakeContext } from '../context.ts';
import type { RouteRequest } from '../http.ts';
import { writeProblem } from './errors.ts';
import { echoedToken } from './redaction.ts';
import { expiredTokensAccepted } from './missions/auth.ts';
import { v8RateLimited, type LimitBend } from './rate-limit.ts';

/**
 * Authenticates and authorizes a /v8 request; on refusal it answers 401 or 403 itself and
 * returns undefined. `scope` undefined: any valid token will do. A caller over its rate-limit tier
 * is refused here too, after authorization (`limit` bends that refusal).
 */
export function authorize(fake: FakeContext, r: RouteRequest, scope: string | undefined, limit: LimitBend = {}): FakeCaller | undefined {
  const caller = fake.tokens.lookup(r.header('authorization'));
  if (!caller) {
    writeProblem(fake, r.res, 401, 'unauthenticated', 'A valid bearer token is required: send Authorization: Bearer <token>.');
    return undefined;
  }
  if (caller.expired && !expiredTokensAccepted(fake)) {
    writeProblem(fake, r.res, 401, 'token_expired', `The bearer token has expired.${echoedToken(fake, r.header('authorization'))}`);
    return undefined;
  }
  if (scope && !caller.scopes.has(scope)) {
    writeProblem(fake, r.res, 403, 'insufficient_scope', `This operation needs the scope ${scope}.${echoedToken(fake, r.header('authorization'), 403)}`);
    return undefined;
  }
  if (v8RateLimited(fake, r.res, caller, limit)) return undefined;
  return caller;
}

/** How a fault may bend authentication on one read endpoint; every flag off means the contract. */
export interface AuthBend {
  /** Serve a request that carries no Authorization header at all. */
  anonymous?: boolean;
  /** Accept an expired token. */
  expired?: boolean;
  /** Do not require the endpoint's scope. */
  anyScope?: boolean;
}

export type ReadEndpoint = 'capabilities' | 'certificates' | 'coverage' | 'goals' | 'memory' | 'skills' | 'traces';

/** The scope matrix's faults, each on the one endpoint it breaks. */
export function authBend(fake: FakeContext, endpoint: ReadEndpoint): AuthBend {
  switch (endpoint) {
    case 'capabilities':
      return { anonymous: fake.faults.has('v8.auth.scope-matrix/search-without-token') };
    case 'certificates':
      return { expired: fake.faults.has('v8.auth.scope-matrix/expired-token-on-certificates') };
    case 'coverage':
      return { anyScope: fake.faults.has('v8.auth.scope-matrix/coverage-without-scope') };
    default:
      return {};
  }
}

/** Whether a trace of another principal is served: it must look like it does not exist, but under its fault. */
export function otherPrincipalsTracesVisible(fake: FakeContext): boolean {
  return fake.faults.has('v8.auth.scope-matrix/trace-other-principal');
}
