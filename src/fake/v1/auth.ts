import { V1_SCOPES } from '../../contract/v1/common.ts';
import type { FakeCaller } from '../auth.ts';
import type { RouteRequest } from '../http.ts';
import { limit } from './errors.ts';
import type { V1Surface } from './surface.ts';

/** 401 for a missing, unknown or expired key, 403 for a missing scope; counts the request for usage. */
export function authenticate({ fake, v1, state }: V1Surface, r: RouteRequest, scopes: readonly string[]): FakeCaller | undefined {
  let caller: FakeCaller | undefined;
  if (r.header('authorization') === undefined && fake.faults.has('v1.auth.unauthenticated/serves-without-key')) {
    caller = { principal: 'anonymous', tenant: 'tenant-a', scopes: new Set(V1_SCOPES), expired: false };
  } else {
    const found = fake.tokens.lookup(r.header('authorization'));
    if (found?.expired && fake.faults.has('v1.auth.expired-key/accepted')) caller = { ...found, expired: false };
    else caller = v1.authorize(r, scopes);
  }
  if (caller) state.requests.set(caller.tenant, (state.requests.get(caller.tenant) ?? 0) + 1);
  return caller;
}

/** Authentication, then the key's rate limit: what every /v1 route but execute goes through first. */
export function gate(surface: V1Surface, r: RouteRequest, scopes: readonly string[]): FakeCaller | undefined {
  const caller = authenticate(surface, r, scopes);
  return caller && limit(surface.fake, surface.state, r) ? caller : undefined;
}
