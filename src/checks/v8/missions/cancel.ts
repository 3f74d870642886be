/** States and transitions: POST /v8/missions/{runId}/cancel. */
import { section } from '../../../rule/index.ts';
import { missionProjection } from '../../../contract/v8/missions.ts';
import { createMission, followEvents, getMission, newKey, writer, MISSIONS } from '../support/missions.ts';

const rule = section({ destructive: 'mutate', surface: 'v8', document: 'v8-integration-gateway.md', needs: { credentials: ['v8:holding:missions:write+missions:read'], fixtures: ['v8.missions.cancellable'] } });

export const cancelled = rule({
  id: 'v8.missions.cancel.cancelled',
  title: 'Cancel moves a running mission to cancelled and emits mission.cancelled',
  level: 'required',
  spec: {
    section: 'States and transitions',
    quote: '`POST /v8/missions/{runId}/cancel` | | `cancelled` | event `mission.cancelled`',
  },
  async check(ctx) {
    const mission = await createMission(ctx, 'cancellable');
    const res = await ctx.http.send({
      method: 'POST',
      path: `${MISSIONS}/${mission.runId}/cancel`,
      credential: writer(ctx),
      headers: { 'idempotency-key': newKey() },
      label: 'cancel a running mission',
    });
    ctx.check(res.status >= 200 && res.status < 300, `cancel answered ${res.status}, expected a 2xx`);
    // "Cancel request body and response body: not shown."
    ctx.observe('cancel response', { status: res.status, contentType: res.contentType, body: res.json ?? (res.text.length > 0 ? 'non-JSON' : 'empty') });
    const stream = await followEvents(ctx, mission.runId, { label: 'follow the cancelled mission' });
    const last = stream.events.at(-1);
    ctx.check(last?.event === 'mission.cancelled', `the stream ended with ${last?.event ?? 'no event'}, expected mission.cancelled`);
    const after = await getMission(ctx, mission.runId);
    const projection = ctx.expectShape(missionProjection, after.json, 'the mission after cancel');
    ctx.expect(projection.status === 'cancelled', `the mission reads back as ${projection.status} after cancel, expected cancelled`);
  },
});
