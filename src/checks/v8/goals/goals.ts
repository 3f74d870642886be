/** Endpoints: GET /v8/context-twin/goals; Resources: context goal. */
import { z } from 'zod';
import { type CheckContext, section } from '../../../rule/index.ts';
import { contextGoal, goalsResponse } from '../../../contract/v8/goals.ts';
import { answerJson, operation } from '../../../traffic/read.ts';
import { judgeListingForms, judgeListingItems, judgeReadAnswers, primaryPrincipal, withCallersOn } from '../support/traffic.ts';
import { admitted } from '../support/limiter.ts';
import { holder, listingItems, type ListingNames, PATHS } from '../support/read.ts';

const rule = section({ surface: 'v8', document: 'v8-integration-gateway.md', needs: { credentials: ['v8:holding:context:read'] } });

const GOALS: ListingNames = { name: 'context goals', key: 'goals', item: 'goal' };

async function readGoals(ctx: CheckContext) {
  // One read: a 429 of a per-principal limit is waited out once (its numbers are not shown), so the rule judges an answer of the API.
  const res = await admitted(ctx, () => ctx.http.send({ method: 'GET', path: PATHS.goals, credential: holder(ctx, 'context:read'), label: 'list context goals' }));
  return { res, listing: listingItems(res.json, goalsResponse, 'goals') };
}

export const goalsShape = rule({
  id: 'v8.goals.shape',
  title: 'Context goals answer 200 and every goal has a documented status and priority and UTC createdAt and updatedAt',
  level: 'required',
  spec: {
    section: 'Resources > Context goal',
    quote: 'status | string | `active`, `paused`, `archived` … priority | string | `critical`, `high`, `medium`, `low` … createdAt | string | ISO 8601 UTC … updatedAt | string | ISO 8601 UTC',
  },
  judgement: {
    record: 'a GET /v8/context-twin/goals from a caller holding context:read',
    judge: (j) => judgeReadAnswers(j, { op: 'v8.goals.list', scope: 'context:read', name: 'context goals', schema: goalsResponse, expect200: () => true, extra: judgeListingItems(j, 'goals', contextGoal) }),
  },
  async provoke(ctx: CheckContext) {
    await readGoals(ctx);
  },
});

export const goalsPayloadForm = rule({
  id: 'v8.goals.payload-form',
  title: 'Which form the goals payload takes: the {goals: [...]} wrapper of the table or the array of the prose',
  level: 'observation',
  spec: { section: 'Resources > Context goal', quote: 'The response is an object `{goals: [...]}`. The prose calls the payload an array.' },
  judgement: {
    record: 'a GET /v8/context-twin/goals from a caller holding context:read',
    judge: (j) => judgeListingForms(j, 'v8.goals.list', 'context:read', goalsResponse, GOALS),
  },
  async provoke(ctx: CheckContext) {
    await readGoals(ctx);
  },
});

const compartmentOnly = z.looseObject({ compartment: z.unknown().optional() });

export const goalsCompartment = rule({
  id: 'v8.goals.compartment-boundary',
  title: "No goal outside the caller's compartments is listed",
  level: 'required',
  needs: { fixtures: ['v8.goalCompartments'] },
  spec: { section: 'Resources > Context goal', quote: "Goals outside the caller's compartment or purpose boundary are silently excluded." },
  judgement: {
    record: 'a GET /v8/context-twin/goals of the primary principal (whose compartments fixtures.v8.goalCompartments lists), holding context:read',
    judge(j) {
      const listed = new Set<unknown>();
      withCallersOn(j, 'v8.goals.list', (ex, callers) => {
        if (operation(ex) !== 'v8.goals.list' || ex.status !== 200 || !callers.holds(ex, 'context:read')) return;
        // Which compartments the caller may see is not in the traffic: the profile's fixture lists the primary principal's (asked once there is a listing to judge).
        const allowed = j.profile?.fixtures.v8.goalCompartments ?? j.untestable({ need: 'fixture', path: 'v8.goalCompartments', remedy: 'list every compartment whose goals the primary principal may see' });
        if (j.credentialOf(ex)?.principal !== primaryPrincipal(j)) return;
        // A listing lists only when it answers: another status lists no goal, inside or outside (the shape rule judges the status).
        const json = answerJson(j, ex);
        const listing = json === undefined ? undefined : listingItems(json, goalsResponse, 'goals');
        if (!listing || listing.items.length === 0) return;
        const compartments = listing.items.map((g) => compartmentOnly.safeParse(g)).map((p) => (p.success ? p.data.compartment : undefined));
        for (const c of compartments) listed.add(c ?? null);
        const outside = compartments.filter((c) => typeof c !== 'string' || !allowed.includes(c));
        j.check(ex, outside.length === 0, `${outside.length} goal(s) from outside the caller's compartments were listed: ${[...new Set(outside.map(String))].join(', ')}`);
      });
      // The purpose boundary cannot be judged: a goal carries no purpose and a listing request names none.
      if (listed.size > 0) j.observe('compartments listed', [...listed]);
    },
  },
  async provoke(ctx: CheckContext) {
    const { res, listing } = await readGoals(ctx);
    if (res.status === 200 && listing?.items.length === 0) ctx.untestable({ need: 'data', what: 'no goal of the primary principal (context goals listed none), so no boundary was judged', remedy: 'give the primary principal goals in fixtures.v8.goalCompartments (and, ideally, goals elsewhere)' });
  },
});
