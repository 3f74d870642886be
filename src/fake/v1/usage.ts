import type { FakeContext } from '../context.ts';
import type { Route, RouteRequest } from '../http.ts';
import { withExtraProperties } from '../support/extra-properties.ts';
import { gate } from './auth.ts';
import { serviceTime, stateName, type Run } from './runs/engine.ts';
import type { V1Surface } from './surface.ts';

/** The scope usage asks for under `v1.usage/scope-beyond-runs` or `v1.usage/scope-needed` ("Scopes required by the other `/v1` endpoints: not shown."). */
const USAGE_SCOPE = 'usage:read';

/**
 * The scopes beyond runs:read and runs:write usage asks for (none by default), and which of the
 * embedded profile's keys hold them: the ordinary keys holding both runs scopes, or the two
 * rate-limit keys. Under `v1.usage/scope-beyond-runs` only the rate-limit keys do; under
 * `v1.usage/scope-needed` only the ordinary ones.
 */
export function usageScopes(fake: FakeContext): { asked: readonly string[]; ordinary: readonly string[]; limiter: readonly string[] } {
  if (fake.variants.has('v1.usage/scope-beyond-runs')) return { asked: [USAGE_SCOPE], ordinary: [], limiter: [USAGE_SCOPE] };
  if (fake.variants.has('v1.usage/scope-needed')) return { asked: [USAGE_SCOPE], ordinary: [USAGE_SCOPE], limiter: [] };
  return { asked: [], ordinary: [], limiter: [] };
}

/** Counters a real deployment may keep that move without any new request: the clock, and the events of runs still going. */
function liveCounters(runs: readonly Run[]): Record<string, number> {
  return {
    period_elapsed_us: Math.round((performance.timeOrigin + performance.now()) * 1000) % 86_400_000_000,
    events_emitted: runs.reduce((n, run) => n + run.events.length, 0),
  };
}

function usage(surface: V1Surface, r: RouteRequest): void {
  const { fake, state } = surface;
  const { asked } = usageScopes(fake);
  const caller = gate(surface, r, asked.length > 0 ? asked : ['runs:read']);
  if (!caller) return;
  const runs = state.engine.ofTenant(fake.faults.has('v1.usage.tenant-scoped/all-tenants') ? undefined : caller.tenant);
  // The fault lists only the tenant's runs but counts everyone's: no run id leaks, the counts do.
  const counted = fake.faults.has('v1.usage.tenant-scoped/counts-all-tenants') ? state.engine.ofTenant(undefined) : runs;
  const byState: Record<string, number> = {};
  for (const run of counted) byState[stateName(fake, run.state)] = (byState[stateName(fake, run.state)] ?? 0) + 1;
  const body = {
    period: { start: serviceTime(fake, Date.now() - 86_400_000), end: serviceTime(fake, Date.now()) },
    requests: state.requests.get(caller.tenant) ?? 0,
    runs: { total: counted.length, by_state: byState },
    recent_runs: runs.slice(0, 200).map((run) => ({ run_id: run.id, mode: run.mode, state: stateName(fake, run.state) })),
    spend: { currency: 'USD', amount: Math.round(counted.length * 0.0012 * 1e6) / 1e6 },
  };
  const live = fake.variants.has('v1.usage/live-counters') ? liveCounters(counted) : {};
  const text = JSON.stringify(fake.variants.has('v1.usage/extra-properties') ? withExtraProperties({ ...body, ...live }) : { ...body, ...live });
  r.res.writeHead(200, { 'content-type': fake.faults.has('v1.usage.readback/text-plain') ? 'text/plain' : 'application/json', 'content-length': Buffer.byteLength(text) });
  r.res.end(text);
}

/** GET /v1/usage: the caller's tenant's runs and requests. */
export function usageRoutes(surface: V1Surface): Route[] {
  return [{ method: 'GET', pattern: /^\/v1\/usage$/, handler: (r) => usage(surface, r) }];
}
