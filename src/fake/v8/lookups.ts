import { skillScenarios } from '../../../scenarios/v8/skills.ts';
import { pathIdentifier } from '../../contract/v8/common.ts';
import type { Route, RouteRequest } from '../http.ts';
import type { MissionEngine, TraceRecord } from './mission-engine.ts';
import type { ReadSurface } from './read-support.ts';

/** GET /v8/skills/{skillId} and GET /v8/traces/{traceId}: lookups limited to the caller's principal. */
export function lookupRoutes(surface: ReadSurface, missions: MissionEngine): Route[] {
  const faults = surface.fake.faults;
  const v8 = surface.v8;

  function skill(r: RouteRequest): void {
    const caller = surface.authorize(r, 'skills:read');
    if (!caller) return;
    const id = r.params[0]!;
    if (!pathIdentifier.safeParse(id).success || (id.length === 256 && faults.has('v8.skills.get.path-bounds/rejects-256'))) {
      v8.problem(r.res, 400, 'invalid_skill_id', 'skillId must be 1-256 characters matching ^[A-Za-z0-9][A-Za-z0-9._:-]*$.');
      return;
    }
    const found = skillScenarios.find((s) => s.skill.skillId === id);
    if (!found) {
      if (faults.has('v8.skills.get.unknown-404/server-error')) v8.problem(r.res, 500, 'internal_error', 'Skill lookup failed.');
      else v8.problem(r.res, 404, 'not_found', 'No such skill for this principal.');
      return;
    }
    if (found.owner !== caller.principal && !faults.has('v8.auth.scope-matrix/skill-other-principal')) {
      v8.problem(r.res, 404, 'not_found', 'No such skill for this principal.');
      return;
    }
    const body: Record<string, unknown> = structuredClone(found.skill);
    if (faults.has('v8.skills.get.ok/kind-capability')) body.kind = 'api';
    if (faults.has('v8.skills.get.ok/evidence-score-above-1')) body.evidenceState = { ...found.skill.evidenceState, evidenceScore: 1.5 };
    v8.json(r.res, 200, body);
  }

  function stepStatus(t: TraceRecord): string | undefined {
    return missions.missions.get(t.missionRunId)?.steps.find((s) => s.stepId === t.stepId)?.status;
  }

  function trace(r: RouteRequest): void {
    const caller = surface.authorize(r, 'traces:read');
    if (!caller) return;
    const id = r.params[0]!;
    if (!pathIdentifier.safeParse(id).success) {
      if (id.length > 256 && faults.has('v8.traces.get.path-bounds/long-id-server-error')) v8.problem(r.res, 500, 'internal_error', 'Trace lookup failed.');
      else v8.problem(r.res, 400, 'invalid_trace_id', 'traceId must be 1-256 characters matching ^[A-Za-z0-9][A-Za-z0-9._:-]*$.');
      return;
    }
    const found = missions.traces.get(id);
    const visible = found && (found.principal === caller.principal || faults.has('v8.auth.scope-matrix/trace-other-principal'));
    const hidden = found && faults.has('v8.traces.get.resolves/failed-step-missing') && stepStatus(found) === 'failed';
    if (!found || !visible || hidden) {
      if (!found && faults.has('v8.traces.get.unknown-404/server-error')) v8.problem(r.res, 500, 'internal_error', 'Trace lookup failed.');
      else v8.problem(r.res, 404, 'not_found', 'No such trace for this principal.');
      return;
    }
    const { principal: _owner, ...body } = structuredClone(found);
    if (faults.has('v8.traces.get.ok/run-id-not-uuid')) body.missionRunId = `run-${found.missionRunId.slice(-12)}`;
    if (faults.has('v8.traces.get.ok/unknown-operation-kind') && body.steps[0]) body.steps[0] = { ...body.steps[0], kind: 'thought' };
    v8.json(r.res, 200, body);
  }

  return [
    { method: 'GET', pattern: /^\/v8\/skills\/([^/]+)$/, handler: skill },
    { method: 'GET', pattern: /^\/v8\/traces\/([^/]+)$/, handler: trace },
  ];
}
