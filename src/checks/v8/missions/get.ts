/** Endpoints: GET /v8/missions/{runId}; Authentication: lookups limited to the caller's principal. */
import { section } from '../../../rule/index.ts';
import { missionProjection } from '../../../contract/v8/missions.ts';
import { uuidv7 } from '../../../util/uuid.ts';
import { createMission, getMission, MISSIONS } from '../support/missions.ts';

const rule = section({ surface: 'v8', document: 'v8-integration-gateway.md', needs: { credentials: ['v8:holding:missions:write+missions:read'] } });

export const getOk = rule({
  id: 'v8.missions.get.ok',
  title: 'Get answers 200 with the projection of the mission asked for',
  level: 'required',
  needs: { fixtures: ['v8.missions.succeeds'] },
  destructive: 'mutate',
  spec: { section: 'Endpoints', quote: 'path `runId` (UUID v7) | `200` mission projection' },
  async check(ctx) {
    const created = await createMission(ctx, 'succeeds');
    const res = await getMission(ctx, created.runId);
    ctx.check(res.status === 200, `get answered ${res.status}, expected 200`);
    ctx.check(res.contentType.startsWith('application/json'), `get answered content-type "${res.contentType}", expected application/json`);
    const projection = ctx.expectShape(missionProjection, res.json, 'the get response');
    ctx.check(projection.runId === created.runId, `get returned runId ${projection.runId}, asked for ${created.runId}`);
  },
});

export const getUnknown = rule({
  id: 'v8.missions.get.unknown-404',
  title: 'Get of a runId that does not exist answers 404',
  level: 'required',
  spec: { section: 'Errors', quote: '`404` no such mission for the principal' },
  async check(ctx) {
    const res = await getMission(ctx, uuidv7(), undefined, 'read a runId that was never created');
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
  async check(ctx) {
    const other = ctx.otherPrincipal('v8', ['missions:read']);
    const created = await createMission(ctx, 'waits');
    const res = await getMission(ctx, created.runId, other, "read another principal's mission");
    ctx.check(res.status === 404, `another principal's get answered ${res.status}, expected 404`);
    const events = await ctx.http.send({
      method: 'GET',
      path: `${MISSIONS}/${created.runId}/events`,
      credential: other,
      headers: { accept: 'text/event-stream' },
      label: "open another principal's event stream",
      timeoutMs: 5_000,
    }).catch(() => undefined);
    // A stream that stays open (status 200) never completes this read; only a refusal is judged.
    if (events) ctx.check(events.status === 404, `another principal's event stream answered ${events.status}, expected 404`);
  },
});
