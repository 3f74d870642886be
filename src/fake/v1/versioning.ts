import type { RouteRequest } from '../http.ts';
import type { V1Surface } from './surface.ts';

/** `X-AI-Platform-Version` may be absent or `v1`; anything else is answered 400 here, and true returned. */
export function refusedVersion({ fake, v1 }: V1Surface, r: RouteRequest): boolean {
  const version = r.header('x-ai-platform-version');
  if (version === undefined || (version === 'v1' && !fake.faults.has('v1.versioning.header/rejected'))) return false;
  if (fake.faults.has('v1.versioning.header/any-value')) return false;
  v1.problem(r.res, 400, 'invalid_request', { detail: 'X-AI-Platform-Version may only carry v1.', retryable: false, fieldErrors: [{ path: 'X-AI-Platform-Version', code: 'invalid_value', message: 'must be v1' }] });
  return true;
}
