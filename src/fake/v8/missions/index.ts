import { canonicalJson } from '../../../util/json.ts';
import type { FakeContext } from '../../context.ts';
import type { Route, RouteRequest } from '../../http.ts';
import { ownerOf } from '../principal.ts';
import { isTerminal, type MissionEngine } from './engine.ts';
import { events } from './events.ts';
import { answeredInFlight, holdInFlight } from './in-flight.ts';
import { cancelWithGap, reviveAfterSignal } from './sequence-faults.ts';
import { signals } from './signals.ts';
import { cancelAnswer, limitsCreatesOnly, refusesEndedCancel } from './variants.ts';
import { answeredByKey, findMission, idempotencyKey, invalidBody, jsonBody, missionSurface, respondStored, type MissionSurface, type StoredResponse } from './surface.ts';

const RUN_ID = '([^/]+)';

/** The mission as it is now, under the original's status: a replay that is not the original response. */
function currentProjection(engine: MissionEngine, stored: StoredResponse): StoredResponse {
  const runId = (JSON.parse(stored.body) as { runId: string }).runId;
  const mission = engine.missions.get(runId);
  return mission ? { status: stored.status, body: JSON.stringify({ ...engine.projection(mission), sequence: engine.projection(mission).sequence + 1 }) } : stored;
}

async function create(surface: MissionSurface, r: RouteRequest): Promise<void> {
  const { fake, v8, engine } = surface;
  const scope = fake.faults.has('v8.missions.auth.scope-403/create-without-write') ? undefined : 'missions:write';
  const caller = v8.authorize(r, scope, { as503: fake.faults.has('v8.missions.rate-limit-429/limit-as-503'), neverLimits: fake.faults.has('v8.missions.rate-limit-429/never-limits') });
  if (!caller) return;
  const key = idempotencyKey(surface, r, fake.faults.has('v8.missions.idempotency.key-required/optional-on-create'));
  if (key === undefined) return;
  const body = await jsonBody(surface, r);
  if (!body.ok) return;
  const parsed = surface.schemas.create.safeParse(body.value);
  if (!parsed.success) {
    invalidBody(surface, r, parsed.error);
    return;
  }
  const fingerprint = canonicalJson(body.value);
  const scopeKey = `${caller.principal}:create`;
  const bend = {
    replayConflict: fake.faults.has('v8.missions.idempotency.conflict/replays-different-body'),
    reExecuteReplay: fake.faults.has('v8.missions.idempotency.replay/re-executes'),
    conflictDetail: 'This Idempotency-Key was used with a different body: use a new key for a new request.',
    ...(fake.faults.has('v8.missions.idempotency.replay/current-projection') ? { replayCurrent: (stored: StoredResponse) => currentProjection(engine, stored) } : {}),
  };
  if (key && answeredByKey(surface, r, { key, scopeKey, fingerprint }, bend)) return;
  if (key && answeredInFlight(surface, r, { key, scopeKey, fingerprint }, bend.conflictDetail)) return;
  const release = key ? await holdInFlight(surface, { key, scopeKey, fingerprint }) : () => undefined;
  try {
    // The race a storm of one new key finds (a load fault): the key is checked, then remembered later.
    if (key && fake.faults.has('load.v8.idempotency.storm-one-mission/race')) await new Promise((resolve) => setTimeout(resolve, 25));
    const goalSpec = parsed.data.goalSpec as Record<string, unknown>;
    const mission = engine.create(ownerOf(fake, caller, goalSpec), goalSpec, parsed.data.resourceBudget);
    const stored: StoredResponse = { status: 202, body: JSON.stringify(engine.projection(mission)) };
    if (key) surface.idempotency.remember(scopeKey, key, fingerprint, stored);
    respondStored(surface, r.res, stored);
  } finally {
    release();
  }
}

function get(surface: MissionSurface, r: RouteRequest): void {
  const { fake, v8, engine } = surface;
  const open = fake.faults.has('v8.missions.auth.missing-token-401/get-open') && r.header('authorization') === undefined;
  const caller = open ? undefined : v8.authorize(r, 'missions:read', limitsCreatesOnly(fake));
  if (!caller && !open) return;
  const mission = findMission(surface, caller, r.params[0]!);
  if (!mission) {
    if (fake.faults.has('v8.missions.get.unknown-404/server-error')) v8.problem(r.res, 500, 'internal_error', 'Lookup failed.');
    else v8.problem(r.res, 404, 'not_found', 'No such mission for this principal.');
    return;
  }
  const projection = engine.projection(mission);
  v8.json(r.res, 200, fake.faults.has('v8.missions.get.ok/sequence-as-string') ? { ...projection, sequence: String(projection.sequence) } : projection);
}

async function cancel(surface: MissionSurface, r: RouteRequest): Promise<void> {
  const { fake, v8, engine } = surface;
  const caller = v8.authorize(r, 'missions:write', limitsCreatesOnly(fake));
  if (!caller) return;
  const key = idempotencyKey(surface, r, fake.faults.has('v8.missions.cancel.key-required/optional'));
  if (key === undefined) return;
  const mission = findMission(surface, caller, r.params[0]!);
  if (!mission) {
    v8.problem(r.res, 404, 'not_found', 'No such mission for this principal.');
    return;
  }
  // "Replay with the same key and the same body returns the original response without re-executing":
  // an accepted cancel's answer is kept as sent (a projection rendered again may differ: live-step-details).
  const scopeKey = `${mission.principal}:cancel:${mission.runId}`;
  const replayed = key ? surface.idempotency.replayOf(scopeKey, key, '') : undefined;
  if (replayed && fake.faults.has('v8.missions.cancel.replay/second-answer')) {
    v8.problem(r.res, 409, 'mission_ended', `The mission is ${mission.status}: there is nothing to cancel.`);
    return;
  }
  if (replayed) {
    respondStored(surface, r.res, replayed);
    return;
  }
  if (refusesEndedCancel(fake, mission, key, isTerminal(mission.status))) {
    v8.problem(r.res, 422, 'mission_ended', `The mission is ${mission.status}: there is nothing to cancel.`);
    return;
  }
  const answer = cancelAnswer(fake);
  const accepted = (stored: StoredResponse): void => {
    if (key) surface.idempotency.remember(scopeKey, key, '', stored);
    respondStored(surface, r.res, stored);
  };
  if (answer === 'async') {
    // "Cancel request body and response body: not shown": a receipt now, the cancel a moment later.
    fake.lifecycle.later(40, () => engine.cancel(mission, 'cancelled by request'));
    accepted({ status: 202, body: JSON.stringify({ runId: mission.runId, cancelRequested: true }) });
    return;
  }
  if (!fake.faults.has('v8.missions.cancel.cancelled/no-effect') && !(await cancelWithGap(fake, engine, mission, 'cancelled by request'))) engine.cancel(mission, 'cancelled by request');
  reviveAfterSignal(fake, mission);
  accepted(answer === 'empty' ? { status: 204, body: '' } : { status: 200, body: JSON.stringify(engine.projection(mission)) });
}

/** POST /v8/missions, GET one, its events, signals and cancel. */
export function missionsRoutes(fake: FakeContext, engine: MissionEngine): Route[] {
  const surface = missionSurface(fake, engine);
  return [
    { method: 'POST', pattern: /^\/v8\/missions$/, handler: (r) => create(surface, r) },
    { method: 'GET', pattern: new RegExp(`^/v8/missions/${RUN_ID}$`), handler: (r) => get(surface, r) },
    { method: 'GET', pattern: new RegExp(`^/v8/missions/${RUN_ID}/events$`), handler: (r) => events(surface, r) },
    { method: 'POST', pattern: new RegExp(`^/v8/missions/${RUN_ID}/signals$`), handler: (r) => signals(surface, r) },
    { method: 'POST', pattern: new RegExp(`^/v8/missions/${RUN_ID}/cancel$`), handler: (r) => cancel(surface, r) },
  ];
}
