/** Authentication: the principal is derived from the token, whatever a body names. */
import { type CheckContext, type Exchange, section } from '../../../rule/index.ts';
import { missionProjection } from '../../../contract/v8/missions.ts';
import { operation, parsedAs, requestJson, responseJson, startsAfterEnd } from '../../../traffic/read.ts';
import { canonicalJson, isRecord } from '../../../util/json.ts';
import { admitted } from '../support/limiter.ts';
import { fixture, getMission, postMission, writer } from '../support/missions.ts';
import { Callers, missionOf } from '../support/traffic.ts';

const rule = section({ destructive: 'mutate', surface: 'v8', document: 'v8-integration-gateway.md', needs: { credentials: ['v8:holding:missions:write+missions:read', 'v8:other-principal:missions:read'], fixtures: ['v8.missions.succeeds'] } });

/** The principal a create's goalSpec names, with the body without it. */
function namedPrincipal(body: unknown): { principal: string; plain: string } | undefined {
  if (!isRecord(body) || !isRecord(body.goalSpec) || typeof body.goalSpec.principalId !== 'string') return undefined;
  const { principalId, ...goalSpec } = body.goalSpec;
  return { principal: principalId, plain: canonicalJson({ ...body, goalSpec }) };
}

export const principalFromToken = rule({
  id: 'v8.principal.from-token',
  title: 'A mission whose goal names another principal still belongs to the caller: readable by the caller, 404 to the principal it names',
  level: 'required',
  spec: {
    section: 'Authentication; Endpoints > Rules 1',
    quote: 'goalSpec | object | yes | opaque to the gateway and forwarded intact … The principal is derived from the token. … The gateway takes the principal from the token.',
  },
  judgement: {
    record: "a create (a mission fixture of the profile) whose goalSpec names another principal, then reads of that mission by the creator's or the named principal's credential",
    judge(j) {
      const callers = new Callers(j);
      const made = new Map<string, { create: Exchange; creator: string; named: string }>();
      for (const ex of j.exchanges) {
        const op = operation(ex);
        if (op === 'v8.missions.create' && ex.status !== undefined && ex.status !== 429 && callers.holds(ex, 'missions:write') && ex.requestHeaders['idempotency-key'] !== undefined) {
          const naming = namedPrincipal(requestJson(ex));
          if (naming === undefined) continue;
          // The principals are not in the traffic: the profile's credentials say whose token it was, and its fixtures which bodies are valid creates.
          const creator = j.credentialOf(ex)?.principal;
          const fixtures = Object.values(j.profile?.fixtures.v8.missions ?? {}).filter((f) => f !== undefined);
          const named = fixtures.some((f) => canonicalJson(f) === naming.plain) ? naming.principal : undefined;
          if (creator === undefined || named === undefined || named === creator) continue;
          // goalSpec is opaque and forwarded intact, so a goal naming a principal is no reason to refuse the create.
          j.check(ex, ex.status === 202, `create with goalSpec.principalId answered ${ex.status}, expected 202: goalSpec is opaque to the gateway and forwarded intact, and the principal comes from the token`);
          const created = parsedAs(missionProjection, responseJson(ex));
          if (created.success && !made.has(created.data.runId)) made.set(created.data.runId, { create: ex, creator, named });
          continue;
        }
        if (op !== 'v8.missions.get' || ex.status === undefined || ex.status === 429) continue;
        const mission = made.get(missionOf(ex) ?? '');
        const reader = mission && startsAfterEnd(ex, mission.create) && callers.holds(ex, 'missions:read') ? j.credentialOf(ex) : undefined;
        if (!mission || !reader) continue;
        if (reader.principal === mission.creator) j.check(ex, ex.status === 200, `the creator reading its own mission answered ${ex.status}, expected 200: the mission went to the principal the body named`, [mission.create]);
        else if (reader.principal === mission.named) j.check(ex, ex.status === 404, `${reader.name} (the principal the goal named) reading the mission answered ${ex.status}, expected 404`, [mission.create]);
      }
    },
  },
  async provoke(ctx: CheckContext) {
    const other = ctx.otherPrincipal('v8', ['missions:read']);
    const base = fixture(ctx, 'succeeds');
    const body = { ...base, goalSpec: { ...base.goalSpec, principalId: other.principal } };
    // A 429 of a per-principal limit is waited out once (its numbers are not shown): the rule judges answers of the API.
    const res = await admitted(ctx, () => postMission(ctx, body, { label: `create a mission whose goalSpec names principal "${other.principal}"` }));
    const created = missionProjection.safeParse(res.json);
    if (!created.success) return;
    const runId = created.data.runId;
    await admitted(ctx, () => getMission(ctx, runId, writer(ctx), 'read the mission as its creator'));
    await admitted(ctx, () => getMission(ctx, runId, other, `read the mission as ${other.name}`));
  },
});
