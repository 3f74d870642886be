/**
 * Idempotency storms: many concurrent requests with one key and one body must be answered as one
 * execution, and the same key with other bodies must be refused. /v8 missions and /v1 executes
 * (task mode for the run id, turn mode for the `replayed` flag of the admission event).
 */
import { eventKindOf } from '../../sse/event-kind.ts';
import { parseEventStreamText } from '../../sse/text.ts';
import { conflictCodeCase, conflictStatusCase, refusedInFlight, replayCase, sameRunCase, type AnswerCase } from '../../traffic/answer-cases.ts';
import { canonicalJson } from '../../util/json.ts';
import { parseJsonObject, Verdicts, type LoadRequest, type LoadResponse, type StepResult, type Transport } from '../transport.ts';
import { bearer, repeat, unjudgeable } from './common.ts';
import { ACCEPTED } from '../../contract/v1/event-kinds.ts';

export interface StormConfig {
  baseUrl: string;
  token: string;
  /** Concurrent requests per phase. */
  storm: number;
  /** A fresh Idempotency-Key of 16-128 allowed characters. */
  key: () => string;
}

/** Another body for a used key that a strictly validating /v8 deployment still accepts as a create. */
export function otherMissionBody(body: unknown, i: number): unknown {
  const b = body as { goalSpec?: { task?: unknown }; resourceBudget?: { maximumSteps?: unknown } };
  if (typeof b.goalSpec?.task === 'string') return { ...b, goalSpec: { ...b.goalSpec, task: `${b.goalSpec.task} (variant ${i + 1})` } };
  if (typeof b.resourceBudget?.maximumSteps === 'number') return { ...b, resourceBudget: { ...b.resourceBudget, maximumSteps: b.resourceBudget.maximumSteps + i + 1 } };
  return { ...(body as object), apicertVariant: i + 1 };
}

function idOf(res: LoadResponse, field: 'runId' | 'run_id'): string | undefined {
  const value = parseJsonObject(res.body)?.[field];
  return typeof value === 'string' ? value : undefined;
}

/** What a storm's same-body phase admitted: the accepted answers, and how many duplicates were refused while the first was in flight. */
interface SameBody {
  admitted: LoadResponse[];
  refusedInFlight: number;
}

/**
 * Judges one storm of same-key same-body requests: each accepted answer is a replay of the
 * original, judged as certify's replay rule judges it (`isReplay`, shared). Which request the
 * target took first is unknown under a storm, so the first accepted answer stands for the
 * original: every replay must answer as it did, so they must all answer alike. A replay is only
 * compared when two answers at least were admitted: with one (the rest refused by a limit), the
 * storm showed nothing about replays, and only a wrong status is judged. An answer was admitted
 * when the key is used, so other bodies under it are conflicts.
 */
function judgeSameBody(v: Verdicts, rule: string, responses: readonly LoadResponse[], accepted: number, field: 'runId' | 'run_id', isReplay: (original: LoadResponse, replay: LoadResponse) => AnswerCase, skip: Skip): SameBody {
  const admitted: LoadResponse[] = [];
  let refused = 0;
  for (const res of responses) {
    if (unjudgeable(res)) continue;
    if (skip.when(res)) {
      refused += 1;
      if (skip.figure) v.figure(skip.figure, 1);
      continue;
    }
    if (res.status === accepted) admitted.push(res);
    else v.judge(rule, false, `a same-key same-body request is answered ${accepted} (${skip.or})`);
  }
  if (admitted.length >= 2) judgeReplays(v, rule, admitted, accepted, field, isReplay, skip);
  return { admitted, refusedInFlight: refused };
}

function judgeReplays(v: Verdicts, rule: string, admitted: readonly LoadResponse[], accepted: number, field: 'runId' | 'run_id', isReplay: (original: LoadResponse, replay: LoadResponse) => AnswerCase, skip: Skip): void {
  for (let i = 0; i < admitted.length; i += 1) v.judge(rule, true, `a same-key same-body request is answered ${accepted} (${skip.or})`);
  v.judge(rule, admitted.every((res) => idOf(res, field) !== undefined), `every accepted answer carries ${field}`);
  for (const res of admitted.slice(1)) v.judgeCase(rule, isReplay(admitted[0]!, res));
}

/**
 * A storm that admitted one request and refused the others while it was in flight resolved the
 * race the rule is about, and showed nothing of replays: one more same-key same-body request, sent
 * once the storm is over, must replay the admitted answer ("Same key with the same request replays
 * safely"). Its answer, when admitted, is judged with the storm's own judgement. Returns it.
 */
async function followUp(t: Transport, same: SameBody, request: LoadRequest, skip: Skip): Promise<LoadResponse | undefined> {
  if (same.admitted.length !== 1 || same.refusedInFlight === 0) return undefined;
  const [again] = await t.batch([{ ...request, name: `${request.name} (after the storm)` }]);
  // Refused again (still in flight, a limit) or not answered: nothing more to judge, and the figure already says why.
  if (unjudgeable(again!) || skip.when(again!)) return undefined;
  return again;
}

/** The figures counting same-key same-body requests of a storm refused while the first was in flight (`refusedInFlight`). */
export const V1_IN_FLIGHT_FIGURE = 'v1_storm_refused_in_flight';
export const V8_IN_FLIGHT_FIGURE = 'v8_storm_refused_in_flight';

/** Answers of a storm that admit nothing and so judge nothing, beyond `unjudgeable`'s, and how the check sentence names them. */
interface Skip {
  when: (res: LoadResponse) => boolean;
  or: string;
  /** The figure counting the answers skipped, so a storm that compared nothing can say why (src/load/summary.ts). */
  figure?: string;
}

/**
 * Neither surface says what a request arriving while the first with its key is still in flight
 * gets: "Replay with the same key and the same body returns the original response without
 * re-executing" (v8) and "Same key with the same request replays safely" (v1) speak of an original
 * that was answered. A 409 to such a duplicate (Stripe's and the IETF draft's "request in
 * progress"; say `idempotency_replay`, retryable, on /v1) admits nothing and creates nothing, so it
 * is not judged, as certify's replay rules leave it (src/traffic/idempotency.ts): one judgement,
 * `refusedInFlight`. On /v1 a 409 `conflict` to the same body is judged: the same request is no
 * conflict. Every request of a storm is sent before the first is answered.
 */
const V8_SKIP: Skip = { when: (res) => refusedInFlight(res.status), or: 'or refused 429/503, or 409 while the first was in flight', figure: V8_IN_FLIGHT_FIGURE };
const V1_SKIP: Skip = { when: (res) => refusedInFlight(res.status, parseJsonObject(res.body)?.code), or: 'or refused 429/503, or 409 other than conflict', figure: V1_IN_FLIGHT_FIGURE };

export interface V8StormConfig extends StormConfig {
  missionBody: unknown;
}

export async function v8IdempotencyStorm(t: Transport, c: V8StormConfig): Promise<StepResult> {
  const v = new Verdicts();
  const url = `${c.baseUrl}/v8/missions`;
  const headers = bearer(c.token, { 'Content-Type': 'application/json', 'Idempotency-Key': c.key() });
  const create = (body: unknown, name: string, expect: number[]): LoadRequest => ({ method: 'POST', url, headers, body: JSON.stringify(body), name, expect });
  const oneMission = 'load.v8.idempotency.storm-one-mission';
  const request = create(c.missionBody, 'storm same-body POST /v8/missions', [202, 409, 429]);
  const same = judgeSameBody(v, oneMission, await t.batch(repeat(c.storm, () => request)), 202, 'runId', replayCase, V8_SKIP);
  if (same.admitted.length === 0) return v;
  const again = await followUp(t, same, request, V8_SKIP);
  if (again && v.judge(oneMission, again.status === 202, `a same-key same-body request sent after the storm is answered 202 (${V8_SKIP.or})`)) {
    judgeReplays(v, oneMission, [same.admitted[0]!, again], 202, 'runId', replayCase, V8_SKIP);
  }
  const other = await t.batch(repeat(c.storm, (i) => create(otherMissionBody(c.missionBody, i), 'storm other-body POST /v8/missions', [409, 429])));
  for (const res of other) {
    if (unjudgeable(res)) continue;
    v.judgeCase('load.v8.idempotency.storm-conflict', conflictStatusCase(res.status));
  }
  return v;
}

export interface V1StormConfig extends StormConfig {
  taskBody: unknown;
  /**
   * Another task body the target admits (the profile's `fails` fixture): the different request under
   * a used key. Not an extra member: a digest may cover the documented members only ("a normalized
   * digest of the request"), and certify's conflict rule sends another fixture too.
   */
  otherTaskBody: unknown;
  turnBody: Record<string, unknown>;
}

function executeRequest(c: V1StormConfig, key: string, body: unknown, name: string, expect: number[], accept = 'application/json'): LoadRequest {
  return {
    method: 'POST',
    url: `${c.baseUrl}/v1/execute`,
    headers: bearer(c.token, { 'Content-Type': 'application/json', Accept: accept, 'Idempotency-Key': key }),
    body: JSON.stringify(body),
    name,
    expect,
    timeoutMs: 30_000,
  };
}

/** The `replayed` flag of a turn stream's request.accepted event (its kind read as certify reads it); undefined when there is none. */
function replayedFlag(res: LoadResponse): unknown {
  const accepted = parseEventStreamText(res.body).events.find((e) => eventKindOf(e) === ACCEPTED);
  if (!accepted) return undefined;
  return parseJsonObject(accepted.data)?.replayed;
}

export async function v1IdempotencyStorm(t: Transport, c: V1StormConfig): Promise<StepResult> {
  const v = new Verdicts();
  const taskKey = c.key();
  const oneRun = 'load.v1.idempotency.storm-one-run';
  const sameRun = (original: LoadResponse, replay: LoadResponse) => sameRunCase(idOf(original, 'run_id'), idOf(replay, 'run_id'));
  const task = executeRequest(c, taskKey, c.taskBody, 'storm task same-body POST /v1/execute', [200, 409, 429, 503]);
  const tasks = judgeSameBody(v, oneRun, await t.batch(repeat(c.storm, () => task)), 200, 'run_id', sameRun, V1_SKIP);
  const taskAgain = await followUp(t, tasks, task, V1_SKIP);
  if (taskAgain && v.judge(oneRun, taskAgain.status === 200, `a same-key same-body request sent after the storm is answered 200 (${V1_SKIP.or})`)) {
    judgeReplays(v, oneRun, [tasks.admitted[0]!, taskAgain], 200, 'run_id', sameRun, V1_SKIP);
  }

  const turnKey = c.key();
  // One body for the whole storm, so every request is "the same request".
  const turn = executeRequest(c, turnKey, { ...c.turnBody, requestId: turnKey }, 'storm turn same-body POST /v1/execute', [200, 409, 429, 503], 'text/event-stream');
  const turns = await t.batch(repeat(c.storm, () => turn));
  const inFlight = turns.filter(V1_SKIP.when).length;
  for (let i = 0; i < inFlight; i += 1) v.figure(V1_IN_FLIGHT_FIGURE, 1);
  const admittedTurns = turns.filter((res) => res.status === 200);
  const turnAgain = await followUp(t, { admitted: admittedTurns, refusedInFlight: inFlight }, turn, V1_SKIP);
  if (turnAgain) admittedTurns.push(turnAgain);
  const flags: boolean[] = [];
  const replayed = 'load.v1.idempotency.storm-replayed';
  const boolean = 'an admitted turn streams request.accepted with a boolean replayed';
  for (const res of admittedTurns) {
    if (res.status !== 200) continue;
    const flag = replayedFlag(res);
    if (typeof flag === 'boolean') flags.push(flag);
    else v.judge(replayed, false, boolean);
  }
  // One admission shows nothing about replays: the rule is judged when two at least were admitted
  // (the storm's, or its one admission and the request sent after it).
  if (flags.length >= 2) {
    for (let i = 0; i < flags.length; i += 1) v.judge(replayed, true, boolean);
    v.judge(replayed, flags.filter((f) => !f).length <= 1, 'at most one admission of one key and body is not a replay');
  }

  // The same body again would be a replay, not a conflict (config.ts leaves the rule untestable then).
  if (tasks.admitted.length === 0 || canonicalJson(c.otherTaskBody) === canonicalJson(c.taskBody)) return v;
  const others = await t.batch(repeat(c.storm, () => executeRequest(c, taskKey, c.otherTaskBody, 'storm task other-body POST /v1/execute', [409, 429, 503])));
  for (const res of others) {
    if (unjudgeable(res)) continue;
    if (v.judgeCase('load.v1.idempotency.storm-conflict', conflictStatusCase(res.status))) v.judgeCase('load.v1.idempotency.storm-conflict', conflictCodeCase(parseJsonObject(res.body)));
  }
  return v;
}
