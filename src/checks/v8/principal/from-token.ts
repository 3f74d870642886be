/** Authentication: the principal is derived from the token, whatever a body names. */
import { type CheckContext, section } from '../../../rule/index.ts';
import { missionProjection } from '../../../contract/v8/missions.ts';
import { fixture, getMission, postMission, writer } from '../support/missions.ts';

const rule = section({ destructive: 'mutate', surface: 'v8', document: 'v8-integration-gateway.md', needs: { credentials: ['v8:holding:missions:write+missions:read', 'v8:other-principal:missions:read'], fixtures: ['v8.missions.succeeds'] } });

export const principalFromToken = rule({
  id: 'v8.principal.from-token',
  title: 'A mission whose goal names another principal still belongs to the caller: readable by the caller, 404 to the principal it names',
  level: 'required',
  spec: {
    section: 'Authentication; Endpoints > Rules 1',
    quote: 'goalSpec | object | yes | opaque to the gateway and forwarded intact … The principal is derived from the token. … The gateway takes the principal from the token.',
  },
  async check(ctx: CheckContext) {
    const other = ctx.otherPrincipal('v8', ['missions:read']);
    const base = fixture(ctx, 'succeeds');
    const body = { ...base, goalSpec: { ...base.goalSpec, principalId: other.principal } };
    const res = await postMission(ctx, body, { label: `create a mission whose goalSpec names principal "${other.principal}"` });
    // goalSpec is opaque and forwarded intact, so a goal naming a principal is no reason to refuse the
    // create; a refusal leaves nothing to judge the principal by, and a pass would judge nothing.
    ctx.expect(res.status === 202, `create with goalSpec.principalId answered ${res.status}, expected 202: goalSpec is opaque to the gateway and forwarded intact, and the principal comes from the token`);
    const created = missionProjection.safeParse(res.json);
    if (!created.success) ctx.inconclusive('setup failed: the create response has no runId');
    const mine = await getMission(ctx, created.data.runId, writer(ctx), 'read the mission as its creator');
    ctx.check(mine.status === 200, `the creator reading its own mission answered ${mine.status}, expected 200: the mission went to the principal the body named`);
    const theirs = await getMission(ctx, created.data.runId, other, `read the mission as ${other.name}`);
    ctx.check(theirs.status === 404, `${other.name} (the principal the goal named) reading the mission answered ${theirs.status}, expected 404`);
  },
});
