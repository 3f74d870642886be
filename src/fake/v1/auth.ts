import { API_KEY_PREFIX, V1_SCOPES } from '../../contract/v1/common.ts';
import type { FakeCaller } from '../auth.ts';
import type { RouteRequest } from '../http.ts';
import { limit } from './errors.ts';
import type { V1Surface } from './surface.ts';

/** The fault reads a key by what follows its prefix, so a key stripped of `service_sk_` still works. */
function prefixBent(fake: V1Surface['fake'], authorization: string | undefined): string | undefined {
  if (!authorization || !fake.faults.has('v1.auth.key-prefix/ignored')) return authorization;
  const token = authorization.replace(/^Bearer\s+/i, '');
  if (token.startsWith(API_KEY_PREFIX)) return authorization;
  return `Bearer ${API_KEY_PREFIX}${token.replace(/^[a-z]+_sk_/, '')}`;
}

/** Under the fault, the caller a webhook registration without an API key is served as (registration authenticates on its own, routes.ts). */
export function keylessRegistrar(fake: V1Surface['fake'], r: RouteRequest): FakeCaller | undefined {
  if (r.header('authorization') !== undefined || !fake.faults.has('v1.auth.unauthenticated/webhooks-without-key')) return undefined;
  return { principal: 'anonymous', tenant: 'tenant-a', scopes: new Set(V1_SCOPES), expired: false };
}

/** 401 for a missing, unknown or expired key, 403 for a missing scope; counts the request for usage. */
export function authenticate({ fake, v1, state }: V1Surface, r: RouteRequest, scopes: readonly string[]): FakeCaller | undefined {
  let caller: FakeCaller | undefined;
  if (r.header('authorization') === undefined && fake.faults.has('v1.auth.unauthenticated/serves-without-key')) {
    caller = { principal: 'anonymous', tenant: 'tenant-a', scopes: new Set(V1_SCOPES), expired: false };
  } else {
    const authorization = prefixBent(fake, r.header('authorization'));
    const found = fake.tokens.lookup(authorization);
    if (found?.expired && fake.faults.has('v1.auth.expired-key/accepted')) caller = { ...found, expired: false };
    else if (found && !found.expired && !authorization!.replace(/^Bearer\s+/i, '').startsWith(API_KEY_PREFIX) && fake.faults.has('v1.auth.key-prefix/other-surfaces-accepted')) {
      caller = { ...found, scopes: new Set(V1_SCOPES) };
    }
    // "Related errors: `authentication_failed`, `authorization_failed`, `entitlement_failed`." maps no case to one of them.
    else if (found?.expired && fake.variants.has('v1.auth/expired-as-authorization-failed')) {
      v1.problem(r.res, 403, 'authorization_failed', { detail: 'This API key has expired: it is no longer authorized.', retryable: false });
      return undefined;
    }
    else if (found?.expired && fake.faults.has('v1.auth.run-secrets/key-in-401')) {
      v1.problem(r.res, 401, 'authentication_failed', { detail: `The key ${authorization?.replace(/^Bearer\s+/i, '')} has expired.`, retryable: false });
      return undefined;
    }
    else caller = v1.authorize({ ...r, header: (name) => (name === 'authorization' ? authorization : r.header(name)) }, scopes);
  }
  if (caller) state.requests.set(caller.tenant, (state.requests.get(caller.tenant) ?? 0) + 1);
  return caller;
}

/** Authentication, then the key's rate limit: what every /v1 route but execute goes through first. */
export function gate(surface: V1Surface, r: RouteRequest, scopes: readonly string[]): FakeCaller | undefined {
  const caller = authenticate(surface, r, scopes);
  return caller && limit(surface.fake, surface.state, r) ? caller : undefined;
}
