/** Endpoints: GET /v8/skills/{skillId}; Resources: skill. */
import { type CheckContext, section } from '../../../rule/index.ts';
import { skill } from '../../../contract/v8/skills.ts';
import { getSkill, randomSuffix, sendPathIdBounds, skillFixture } from '../support/read.ts';
import { judgeIdBounds, judgeJsonMediaType, lastSegment, primaryPrincipal, withCallersOn } from '../support/traffic.ts';
import { admitted, limiterRefused, stopIfLimited } from '../support/limiter.ts';
import { answerJson, hasWholeBody, issuesOf, operation, parsedAs } from '../../../traffic/read.ts';

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
  judgement: {
    record: "a GET /v8/skills/{skillId} of the profile's fixtures.v8.skillId (or any answered 200), from a caller holding skills:read",
    judge(j) {
      // Which skill is visible to the caller is not in the traffic: the profile's fixture names one.
      const fixed = j.profile?.fixtures.v8.skillId;
      withCallersOn(j, 'v8.skills.get', (ex, callers) => {
        if (operation(ex) !== 'v8.skills.get' || ex.status === undefined || !callers.holds(ex, 'skills:read')) return;
        const asked = lastSegment(ex);
        const owed = asked === fixed && callers.principalOf(ex) === primaryPrincipal(j);
        // A 429 answers no read: the fixture's read lacks it (limiterRefused); any other read was judged only were it a 200.
        if (ex.status === 429) {
          if (owed) limiterRefused(j, ex);
          return;
        }
        if (owed) j.check(ex, ex.status === 200, `skill ${asked} answered ${ex.status}, expected 200`);
        if (ex.status !== 200) return;
        judgeJsonMediaType(j, ex, 'the skill');
        const json = answerJson(j, ex);
        if (json === undefined && !hasWholeBody(ex)) return;
        const parsed = parsedAs(skill, json);
        if (!j.check(ex, parsed.success, `the skill does not have the contract's shape (${parsed.success ? '' : issuesOf(parsed.error)})`) || !parsed.success) return;
        j.check(ex, parsed.data.skillId === asked, `asked for skill ${asked}, got ${parsed.data.skillId}`);
        j.observe('skill health and evidence', { healthState: parsed.data.healthState, ...parsed.data.evidenceState });
      });
    },
  },
  async provoke(ctx: CheckContext) {
    await admitted(ctx, () => getSkill(ctx, skillFixture(ctx), 'read the fixture skill'));
  },
});

export const skillUnknown = rule({
  id: 'v8.skills.get.unknown-404',
  title: 'A skillId that names no skill answers 404',
  level: 'required',
  spec: { section: 'Errors', quote: '`GET /v8/skills/{skillId}` | `401`; `403`; `404`' },
  activeOnly: 'that a skillId names no skill is known only to the prober that made it up; a recording cannot show it',
  async check(ctx: CheckContext) {
    const asked = `apicert-unknown-skill-${randomSuffix()}`;
    const res = await admitted(ctx, () => getSkill(ctx, asked, 'read a skill that does not exist'));
    stopIfLimited(ctx, res, 'the read of an unknown skillId');
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
  judgement: {
    record: 'a GET /v8/skills/{skillId} with a skillId of 256 characters, or outside 1-256 characters or the pattern, from a caller holding skills:read',
    judge: (j) => judgeIdBounds(j, 'v8.skills.get', 'skills:read', 'skillId'),
  },
  async provoke(ctx: CheckContext) {
    await sendPathIdBounds(ctx, 'skillId', (id, label) => getSkill(ctx, id, label));
  },
});
