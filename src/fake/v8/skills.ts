import { skillScenarios } from '../../../scenarios/v8/skills.ts';
import { pathIdentifier } from '../../contract/v8/common.ts';
import type { Route, RouteRequest } from '../http.ts';
import { otherPrincipalsVisible } from './auth.ts';
import type { ReadSurface } from './read-surface.ts';

function skill(surface: ReadSurface, r: RouteRequest): void {
  const { fake, v8 } = surface;
  const caller = surface.authorize(r, 'skills', 'skills:read');
  if (!caller) return;
  const id = r.params[0]!;
  if (!pathIdentifier.safeParse(id).success || (id.length === 256 && fake.faults.has('v8.skills.get.path-bounds/rejects-256'))) {
    v8.problem(r.res, 400, 'invalid_skill_id', 'skillId must be 1-256 characters matching ^[A-Za-z0-9][A-Za-z0-9._:-]*$.');
    return;
  }
  const found = skillScenarios.find((s) => s.skill.skillId === id);
  if (!found) {
    if (fake.faults.has('v8.skills.get.unknown-404/server-error')) v8.problem(r.res, 500, 'internal_error', 'Skill lookup failed.');
    else v8.problem(r.res, 404, 'not_found', 'No such skill for this principal.');
    return;
  }
  if (found.owner !== caller.principal && !otherPrincipalsVisible(fake, 'skills')) {
    v8.problem(r.res, 404, 'not_found', 'No such skill for this principal.');
    return;
  }
  const body: Record<string, unknown> = structuredClone(found.skill);
  if (fake.faults.has('v8.skills.get.ok/kind-capability')) body.kind = 'api';
  if (fake.faults.has('v8.skills.get.ok/evidence-score-above-1')) body.evidenceState = { ...found.skill.evidenceState, evidenceScore: 1.5 };
  v8.json(r.res, 200, body);
}

/** GET /v8/skills/{skillId}: a lookup limited to the caller's principal. */
export function skillsRoutes(surface: ReadSurface): Route[] {
  return [{ method: 'GET', pattern: /^\/v8\/skills\/([^/]+)$/, handler: (r) => skill(surface, r) }];
}
