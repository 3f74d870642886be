import { canonicalJson } from '../../../util/json.ts';
import type { RouteRequest } from '../../http.ts';
import { isTerminal, type Mission } from './engine.ts';
import { answeredByKey, findMission, idempotencyKey, invalidBody, jsonBody, respondStored, type MissionSurface, type StoredResponse } from './surface.ts';
import { limitsCreatesOnly, signalReplayTerminalFirst } from './variants.ts';

function accept(surface: MissionSurface, mission: Mission, signal: { signal: string; payload?: unknown }): StoredResponse {
  surface.engine.recordSignal(mission, signal.signal, signal.payload);
  return surface.fake.faults.has('v8.missions.signals.accepted/json-body') ? { status: 202, body: JSON.stringify({ accepted: true }) } : { status: 200, body: '' };
}

/** POST /v8/missions/{runId}/signals. */
export async function signals(surface: MissionSurface, r: RouteRequest): Promise<void> {
  const { fake, v8 } = surface;
  const caller = v8.authorize(r, 'missions:write', limitsCreatesOnly(fake));
  if (!caller) return;
  const key = idempotencyKey(surface, r, fake.faults.has('v8.missions.signals.key-required/optional'));
  if (key === undefined) return;
  const mission = findMission(surface, caller, r.params[0]!);
  if (!mission) {
    v8.problem(r.res, 404, 'not_found', 'No such mission for this principal.');
    return;
  }
  const body = await jsonBody(surface, r);
  if (!body.ok) return;
  const parsed = surface.schemas.signal.safeParse(body.value);
  if (!parsed.success) {
    invalidBody(surface, r, parsed.error);
    return;
  }
  const fingerprint = canonicalJson(body.value);
  const scopeKey = `${caller.principal}:signal:${mission.runId}`;
  const bend = {
    replayConflict: fake.faults.has('v8.missions.signals.idempotency-conflict/replays'),
    reExecuteReplay: false,
    conflictDetail: 'This Idempotency-Key was used with a different signal: use a new key.',
  };
  if (key && isTerminal(mission.status) && signalReplayTerminalFirst(fake) && surface.idempotency.lookup(scopeKey, key, fingerprint).kind === 'replay') {
    v8.problem(r.res, 409, 'mission_terminal', `The mission is ${mission.status}; signals to a terminal mission are refused.`);
    return;
  }
  if (key && fake.faults.has('v8.missions.signals.replay/replay-409') && surface.idempotency.lookup(scopeKey, key, fingerprint).kind === 'replay') {
    v8.problem(r.res, 409, 'idempotency_conflict', bend.conflictDetail);
    return;
  }
  if (key && answeredByKey(surface, r, { key, scopeKey, fingerprint }, bend)) return;
  const acceptsTerminal = fake.faults.has('v8.missions.signals.terminal-409/accepted') || (mission.status === 'failed' && fake.faults.has('v8.missions.signals.terminal-409/failed-accepts-signal'));
  if (isTerminal(mission.status) && !acceptsTerminal) {
    v8.problem(r.res, 409, 'mission_terminal', `The mission is ${mission.status}; signals to a terminal mission are refused.`);
    return;
  }
  const stored = accept(surface, mission, parsed.data);
  if (key) surface.idempotency.remember(scopeKey, key, fingerprint, stored);
  respondStored(surface, r.res, stored);
}
