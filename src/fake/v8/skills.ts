import { PRIMARY_SKILL_ID, skillScenarios, type SkillScenario } from '../../../scenarios/v8/skills.ts';
import { pathIdentifier } from '../../contract/v8/common.ts';
import type { FakeContext } from '../context.ts';
import type { Route, RouteRequest } from '../http.ts';
import { withExtraProperties } from '../support/extra-properties.ts';
import type { ReadSurface } from './read-surface.ts';

function otherFormats(fake: FakeContext): boolean {
  return fake.variants.has('v8.skills/other-formats');
}

/**
 * Whether another principal reads a skill of the primary principal: a skill is a catalogue entry, and
 * whether another principal's policy scope includes it is not stated ("Mission, trace and skill lookups
 * are limited to the caller's principal and policy scope"), so the variant serves it.
 */
function sharedCatalogue(fake: FakeContext): boolean {
  return fake.variants.has('v8.skills/shared-catalogue');
}

/** A skillId as the gateway names it: the scenario's, or under the variant a long one that starts with a digit and uses `:` and `_`. */
export function shownSkillId(fake: FakeContext, skillId: string): string {
  return otherFormats(fake) ? `7_${skillId.replace(/\./g, ':')}-v2.0`.padEnd(200, '_') : skillId;
}

/** The skill the embedded profile names as fixtures.v8.skillId. */
export function primarySkillId(fake: FakeContext): string {
  return shownSkillId(fake, PRIMARY_SKILL_ID);
}

/** The skill as served: other formats (uppercase hash, epoch lastVerifiedAt) and unknown properties under the variants. */
function shown(fake: FakeContext, found: SkillScenario): Record<string, unknown> {
  const body: Record<string, unknown> = structuredClone(found.skill);
  if (otherFormats(fake)) {
    body.skillId = shownSkillId(fake, found.skill.skillId);
    body.contractHash = found.skill.contractHash.toUpperCase();
    body.evidenceState = { ...found.skill.evidenceState, lastVerifiedAt: Date.parse(String(found.skill.evidenceState.lastVerifiedAt)) };
  }
  // inputSchema is a JSON Schema of the skill's own: its keywords stay as they are.
  return fake.variants.has('v8.skills/extra-properties') ? withExtraProperties(body, { keep: ['inputSchema'] }) : body;
}

function skill(surface: ReadSurface, r: RouteRequest): void {
  const { fake, v8 } = surface;
  const caller = surface.authorize(r, 'skills', 'skills:read');
  if (!caller) return;
  const id = r.params[0]!;
  if (!pathIdentifier.safeParse(id).success || (id.length === 256 && fake.faults.has('v8.skills.get.path-bounds/rejects-256'))) {
    // The seed lists only 401, 403 and 404 here: 400 is the fake's choice, 404 the variant's.
    const status = fake.variants.has('v8.skills/malformed-id-404') ? 404 : 400;
    v8.problem(r.res, status, 'invalid_skill_id', 'skillId must be 1-256 characters matching ^[A-Za-z0-9][A-Za-z0-9._:-]*$.');
    return;
  }
  const found = skillScenarios.find((s) => shownSkillId(fake, s.skill.skillId) === id);
  if (!found) {
    if (fake.faults.has('v8.skills.get.unknown-404/server-error')) v8.problem(r.res, 500, 'internal_error', 'Skill lookup failed.');
    else v8.problem(r.res, 404, 'not_found', 'No such skill for this principal.');
    return;
  }
  if (found.owner !== caller.principal && !sharedCatalogue(fake)) {
    v8.problem(r.res, 404, 'not_found', 'No such skill for this principal.');
    return;
  }
  const body = shown(fake, found);
  if (fake.faults.has('v8.skills.get.ok/kind-capability')) body.kind = 'api';
  if (fake.faults.has('v8.skills.get.ok/evidence-score-above-1')) body.evidenceState = { ...found.skill.evidenceState, evidenceScore: 1.5 };
  v8.json(r.res, 200, body);
}

/** GET /v8/skills/{skillId}: a lookup limited to the caller's principal. */
export function skillsRoutes(surface: ReadSurface): Route[] {
  return [{ method: 'GET', pattern: /^\/v8\/skills\/([^/]+)$/, handler: (r) => skill(surface, r) }];
}
