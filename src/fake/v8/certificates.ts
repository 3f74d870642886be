import { worldCertificates } from '../../../scenarios/v8/certificates.ts';
import type { Route, RouteRequest } from '../http.ts';
import type { ReadSurface } from './read-surface.ts';

/** GET /v8/world-model/certificates, in the `{certificates: [...]}` wrapper. */
export function certificatesRoutes(surface: ReadSurface): Route[] {
  const faults = surface.fake.faults;

  function certificates(r: RouteRequest): void {
    const caller = surface.authorize(r, 'certificates', 'world:read');
    if (!caller) return;
    const list = worldCertificates.map((c, i) => {
      const out: Record<string, unknown> = { ...c };
      if (i === 0 && faults.has('v8.certificates.shape/health-stale')) out.healthState = 'stale';
      if (i === 0 && faults.has('v8.certificates.shape/expires-at-date-only')) out.expiresAt = c.expiresAt.slice(0, 10);
      return out;
    });
    surface.listing(r, surface.fake.variants.has('v8.certificates/array-payload') ? list : { certificates: list });
  }

  return [{ method: 'GET', pattern: /^\/v8\/world-model\/certificates$/, handler: certificates }];
}
