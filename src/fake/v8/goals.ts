import { contextGoals, goalCompartments } from '../../../scenarios/v8/goals.ts';
import type { Route, RouteRequest } from '../http.ts';
import type { ReadSurface } from './read-surface.ts';

/** GET /v8/context-twin/goals: goals of the caller's compartments only, in the `{goals: [...]}` wrapper. */
export function goalsRoutes(surface: ReadSurface): Route[] {
  const faults = surface.fake.faults;

  function goals(r: RouteRequest): void {
    const caller = surface.authorize(r, 'goals', 'context:read');
    if (!caller) return;
    const allowed = goalCompartments[caller.principal] ?? [];
    const visible = contextGoals
      .filter((g) => allowed.includes(g.compartment) || faults.has('v8.goals.compartment-boundary/leaks'))
      .map((g, i) => {
        const out: Record<string, unknown> = { ...g };
        if (i === 0 && faults.has('v8.goals.shape/priority-urgent')) out.priority = 'urgent';
        if (i === 0 && faults.has('v8.goals.shape/local-time')) out.updatedAt = '2026-11-15T18:30:00.250+02:00';
        return out;
      });
    surface.listing(r, surface.fake.variants.has('v8.goals/array-payload') ? visible : { goals: visible });
  }

  return [{ method: 'GET', pattern: /^\/v8\/context-twin\/goals$/, handler: goals }];
}
