/** Endpoints: GET /v8/missions/{runId}; Authentication: lookups limited to the caller's principal. */
import { section } from '../../../rule/index.ts';
import { missionProjection } from '../../../contract/v8/missions.ts';
import { answerJson, hasWholeBody, issuesOf, operation, parsedAs } from '../../../traffic/read.ts';
import { uuidv7 } from '../../../util/uuid.ts';
import { createMission, getMission, MISSIONS } from '../support/missions.ts';
import { admitted, limiterRefused, stopIfLimited } from '../support/limiter.ts';
import { createdMission, judgeJsonMediaType, missionOf, withMissions, withMissionsOn } from '../support/traffic.ts';

const rule = section({ surface: 'v8', document: 'v8-integration-gateway.md', needs: { credentials: ['v8:holding:missions:write+missions:read'] } });

export const getOk = rule({
  id: 'v8.missions.get.ok',
  title: 'Get answers 200 with the projection of the mission asked for',
  level: 'required',
  needs: { fixtures: ['v8.missions.succeeds'] },
  destructive: 'mutate',
  spec: { section: 'Endpoints', quote: 'path `runId` (UUID v7) | `200` mission projection' },
  judgement: {
    record: 'a GET /v8/missions/{runId} of a mission the same caller created earlier, from a caller holding missions:read',
    judge(j) {
      withMissionsOn(j, 'v8.missions.get', (ex, seen, callers) => {
        if (operation(ex) !== 'v8.missions.get' || !seen.creator || ex.status === undefined || ex.status === 429 || !callers.holds(ex, 'missions:read')) return;
        if (!j.check(ex, ex.status === 200, `get of the caller's own mission answered ${ex.status}, expected 200`, [seen.creator])) return;
        judgeJsonMediaType(j, ex, 'get');
        const json = answerJson(j, ex);
        if (json === undefined && !hasWholeBody(ex)) return;
        const parsed = parsedAs(missionProjection, json);
        if (!j.check(ex, parsed.success, `the 200 is not a mission projection (${parsed.success ? '' : issuesOf(parsed.error)})`) || !parsed.success) return;
        j.check(ex, parsed.data.runId === missionOf(ex), `get returned runId ${parsed.data.runId}, asked for ${missionOf(ex)}`);
      });
    },
  },
  async provoke(ctx) {
    const created = await createMission(ctx, 'succeeds');
    await getMission(ctx, created.runId);
  },
});

export const getUnknown = rule({
  id: 'v8.missions.get.unknown-404',
  title: 'Get of a runId that does not exist answers 404',
  level: 'required',
  spec: { section: 'Errors', quote: '`404` no such mission for the principal' },
  activeOnly: 'that a runId was never created anywhere is known only to the prober that made it up; a recording cannot show it',
  async check(ctx) {
    const runId = uuidv7();
    const res = await admitted(ctx, () => getMission(ctx, runId, undefined, 'read a runId that was never created'));
    stopIfLimited(ctx, res, 'the read of an unknown runId');
    ctx.expect(res.status === 404, `an unknown runId answered ${res.status}, expected 404`);
  },
});

export const getOtherPrincipal = rule({
  id: 'v8.missions.get.other-principal-404',
  title: "Another principal's mission answers 404 on get and events",
  level: 'required',
  needs: { credentials: ['v8:other-principal:missions:read'], fixtures: ['v8.missions.waits'] },
  destructive: 'mutate',
  spec: {
    section: 'Authentication',
    quote: "Mission, trace and skill lookups are limited to the caller's principal and policy scope; a resource outside it gives `404`.",
  },
  judgement: {
    record: 'a GET /v8/missions/{runId} or its events by a credential of another principal than the mission\'s creator (principals come from --profile)',
    judge(j) {
      // Whose principal a token is, is not in the traffic: the profile says it.
      const creators = new Map<string, { principal: string; ex: (typeof j.exchanges)[number] }>();
      withMissions(j, (ex, _seen, callers) => {
        const op = operation(ex);
        const runId = missionOf(ex);
        if (runId !== undefined && (op === 'v8.missions.get' || op === 'v8.missions.events') && ex.status !== undefined && ex.requestHeaders.authorization !== undefined) {
          const creator = creators.get(runId);
          const asker = creator ? j.credentialOf(ex) : undefined;
          if (creator && asker && !asker.expired && asker.principal !== creator.principal && callers.holds(ex, 'missions:read') && !limiterRefused(j, ex)) {
            j.check(ex, ex.status === 404, `another principal's ${op === 'v8.missions.get' ? 'get' : 'event stream'} answered ${ex.status}, expected 404`, [creator.ex]);
          }
        }
        if (op === 'v8.missions.create' && ex.status === 202) {
          const made = createdMission(ex)?.runId;
          const principal = callers.principalOf(ex);
          if (made && principal !== undefined && !creators.has(made)) creators.set(made, { principal, ex });
        }
      });
    },
  },
  async provoke(ctx) {
    const other = ctx.otherPrincipal('v8', ['missions:read']);
    const created = await createMission(ctx, 'waits');
    await getMission(ctx, created.runId, other, "read another principal's mission");
    // A stream that stays open (status 200) never completes this read; only a refusal is judged.
    await ctx.http
      .send({ method: 'GET', path: `${MISSIONS}/${created.runId}/events`, credential: other, headers: { accept: 'text/event-stream' }, label: "open another principal's event stream", timeoutMs: 5_000 })
      .catch(() => undefined);
  },
});
