import { contextGoals, goalCompartments } from '../../../scenarios/v8/goals.ts';
import type { ContextGoal } from '../../contract/v8/goals.ts';
import type { FakeContext } from '../context.ts';
import type { Route, RouteRequest } from '../http.ts';
import { withExtraProperties } from '../support/extra-properties.ts';
import type { ReadSurface } from './read-surface.ts';
import { utcWithOffset } from './timestamps.ts';

/** A goal in the variant's formats: a URN goalId and offset timestamps. */
function otherFormats(goal: ContextGoal): ContextGoal {
  return { ...goal, goalId: `urn:apicert:goal/${goal.compartment}/${goal.goalId}`, createdAt: utcWithOffset(goal.createdAt), updatedAt: utcWithOffset(goal.updatedAt) };
}

function payload(fake: FakeContext, goals: unknown[]): unknown {
  const body = fake.variants.has('v8.goals/array-payload') ? goals : { goals };
  return fake.variants.has('v8.goals/extra-properties') ? withExtraProperties(body) : body;
}

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
        const out: Record<string, unknown> = surface.fake.variants.has('v8.goals/other-formats') ? otherFormats(g) : { ...g };
        if (i === 0 && faults.has('v8.goals.shape/priority-urgent')) out.priority = 'urgent';
        if (i === 0 && faults.has('v8.goals.shape/local-time')) out.updatedAt = '2026-11-15T18:30:00.250+02:00';
        return out;
      });
    surface.listing(r, payload(surface.fake, visible));
  }

  return [{ method: 'GET', pattern: /^\/v8\/context-twin\/goals$/, handler: goals }];
}
