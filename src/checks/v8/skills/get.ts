/** Endpoints: GET /v8/skills/{skillId}; Resources: skill. */
import { type CheckContext, section } from '../../../rule/index.ts';
import { skill } from '../../../contract/v8/skills.ts';
import { getSkill, judgePathIdBounds, randomSuffix, skillFixture } from '../support/read.ts';

const rule = section({ surface: 'v8', document: 'v8-integration-gateway.md', needs: { credentials: ['v8:holding:skills:read'] } });

export const skillOk = rule({
  id: 'v8.skills.get.ok',
  title: 'A visible skill answers 200 with kind "skill", a documented healthState, a 64-hex contractHash and an evidenceScore in 0-1',
  level: 'required',
  needs: { fixtures: ['v8.skillId'] },
  spec: {
    section: 'Resources > Skill',
    quote: 'kind | string | always `skill` … contractHash | string | 64 hex chars … `lastVerifiedAt` (timestamp), `evidenceScore` (number 0-1), `verificationPassed` (boolean)',
  },
  async check(ctx: CheckContext) {
    const skillId = skillFixture(ctx);
    const res = await getSkill(ctx, skillId, 'read the fixture skill');
    ctx.check(res.status === 200, `skill ${skillId} answered ${res.status}, expected 200`);
    ctx.check(res.contentType.startsWith('application/json'), `the skill answered content-type "${res.contentType}", expected application/json`);
    const parsed = ctx.expectShape(skill, res.json, 'the skill');
    ctx.check(parsed.skillId === skillId, `asked for skill ${skillId}, got ${parsed.skillId}`);
    ctx.observe('skill health and evidence', { healthState: parsed.healthState, ...parsed.evidenceState });
  },
});

export const skillUnknown = rule({
  id: 'v8.skills.get.unknown-404',
  title: 'A skillId that names no skill answers 404',
  level: 'required',
  spec: { section: 'Errors', quote: '`GET /v8/skills/{skillId}` | `401`; `403`; `404`' },
  async check(ctx: CheckContext) {
    const res = await getSkill(ctx, `apicert-unknown-skill-${randomSuffix()}`, 'read a skill that does not exist');
    ctx.expect(res.status === 404, `an unknown skillId answered ${res.status}, expected 404`);
  },
});

export const skillPathBounds = rule({
  id: 'v8.skills.get.path-bounds',
  title: 'A 256-character skillId is not refused as malformed; a skillId outside 1-256 characters or the pattern is refused with 400 or 404',
  level: 'required',
  spec: {
    section: 'Endpoints; Limits',
    quote: 'path `skillId`: string, 1-256 chars, pattern `^[A-Za-z0-9][A-Za-z0-9._:-]*$` … traceId and skillId | 1-256 chars',
  },
  async check(ctx: CheckContext) {
    await judgePathIdBounds(ctx, 'skillId', (id, label) => getSkill(ctx, id, label));
  },
});
