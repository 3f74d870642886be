import { RATE_PROBE_PRINCIPAL } from '../../../../scenarios/v8/principal.ts';
import type { FakeCaller } from '../../auth.ts';
import type { RouteRequest } from '../../http.ts';
import type { MissionSurface } from './surface.ts';

/** The probe principal's window; its limit is `FakeConfig.v8RateLimitPerWindow` (the embedded profile declares both). */
export const PER_PRINCIPAL_WINDOW_MS = 60_000;

/**
 * The per-principal rate limit on mission creation: only the low-tier probe principal is limited
 * (every other principal's tier is above what a certification sends). Answers 429 itself.
 */
export function perPrincipalLimit(): (surface: MissionSurface, r: RouteRequest, caller: FakeCaller) => boolean {
  const windows = new Map<string, { startedAt: number; count: number }>();
  return ({ fake, v8 }, r, caller) => {
    if (caller.principal !== RATE_PROBE_PRINCIPAL) return true;
    const now = Date.now();
    let window = windows.get(caller.principal);
    if (!window || now - window.startedAt >= PER_PRINCIPAL_WINDOW_MS) windows.set(caller.principal, (window = { startedAt: now, count: 0 }));
    window.count += 1;
    if (window.count <= fake.config.v8RateLimitPerWindow || fake.faults.has('v8.missions.rate-limit-429/never-limits')) return true;
    if (fake.faults.has('v8.missions.rate-limit-429/limit-as-503')) v8.problem(r.res, 503, 'unavailable', 'The gateway is busy.');
    else v8.problem(r.res, 429, 'rate_limited', 'This principal is over its rate limit: retry later.');
    return false;
  };
}
