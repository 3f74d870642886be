/**
 * Idempotency storms: many concurrent requests with one key and one body must be answered as one
 * execution, and the same key with other bodies must be refused. /v8 missions and /v1 executes
 * (task mode for the run id, turn mode for the `replayed` flag of the admission event).
 */
import { parseEventStreamText } from '../../sse/text.ts';
import { conflictCodeCase, conflictStatusCase, replayCase, sameRunCase, type AnswerCase } from '../../traffic/answer-cases.ts';
import { parseJsonObject, Verdicts, type LoadRequest, type LoadResponse, type StepResult, type Transport } from '../transport.ts';
import { bearer, repeat, unjudgeable } from './common.ts';

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

/**
 * Judges one storm of same-key same-body requests: each accepted answer is a replay of the
 * original, judged as certify's replay rule judges it (`isReplay`, shared). Which request the
 * target took first is unknown under a storm, so the first accepted answer stands for the
 * original: every replay must answer as it did, so they must all answer alike.
 */
function judgeSameBody(v: Verdicts, rule: string, responses: readonly LoadResponse[], accepted: number, field: 'runId' | 'run_id', isReplay: (original: LoadResponse, replay: LoadResponse) => AnswerCase): boolean {
  const admitted: LoadResponse[] = [];
  for (const res of responses) {
    if (unjudgeable(res)) continue;
    if (v.judge(rule, res.status === accepted, `a same-key same-body request is answered ${accepted} (or refused 429/503)`)) admitted.push(res);
  }
  if (admitted.length === 0) return false;
  v.judge(rule, admitted.every((res) => idOf(res, field) !== undefined), `every accepted answer carries ${field}`);
  for (const res of admitted.slice(1)) v.judgeCase(rule, isReplay(admitted[0]!, res));
  return true;
}

export interface V8StormConfig extends StormConfig {
  missionBody: unknown;
}

export async function v8IdempotencyStorm(t: Transport, c: V8StormConfig): Promise<StepResult> {
  const v = new Verdicts();
  const url = `${c.baseUrl}/v8/missions`;
  const headers = bearer(c.token, { 'Content-Type': 'application/json', 'Idempotency-Key': c.key() });
  const create = (body: unknown, name: string, expect: number[]): LoadRequest => ({ method: 'POST', url, headers, body: JSON.stringify(body), name, expect });
  const same = await t.batch(repeat(c.storm, () => create(c.missionBody, 'storm same-body POST /v8/missions', [202, 429])));
  if (!judgeSameBody(v, 'load.v8.idempotency.storm-one-mission', same, 202, 'runId', replayCase)) return v;
  const other = await t.batch(repeat(c.storm, (i) => create(otherMissionBody(c.missionBody, i), 'storm other-body POST /v8/missions', [409, 429])));
  for (const res of other) {
    if (unjudgeable(res)) continue;
    v.judgeCase('load.v8.idempotency.storm-conflict', conflictStatusCase(res.status));
  }
  return v;
}

export interface V1StormConfig extends StormConfig {
  taskBody: unknown;
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

/** The `replayed` flag of a turn stream's request.accepted event; undefined when there is none. */
function replayedFlag(res: LoadResponse): unknown {
  const accepted = parseEventStreamText(res.body).events.find((e) => e.event === 'request.accepted');
  if (!accepted) return undefined;
  return parseJsonObject(accepted.data)?.replayed;
}

export async function v1IdempotencyStorm(t: Transport, c: V1StormConfig): Promise<StepResult> {
  const v = new Verdicts();
  const taskKey = c.key();
  const tasks = await t.batch(repeat(c.storm, () => executeRequest(c, taskKey, c.taskBody, 'storm task same-body POST /v1/execute', [200, 429, 503])));
  const admitted = judgeSameBody(v, 'load.v1.idempotency.storm-one-run', tasks, 200, 'run_id', (original, replay) => sameRunCase(idOf(original, 'run_id'), idOf(replay, 'run_id')));

  const turnKey = c.key();
  // One body for the whole storm, so every request is "the same request".
  const turn = { ...c.turnBody, requestId: turnKey };
  const turns = await t.batch(repeat(c.storm, () => executeRequest(c, turnKey, turn, 'storm turn same-body POST /v1/execute', [200, 429, 503], 'text/event-stream')));
  const flags: unknown[] = [];
  for (const res of turns) {
    if (res.status !== 200) continue;
    const flag = replayedFlag(res);
    if (v.judge('load.v1.idempotency.storm-replayed', typeof flag === 'boolean', 'an admitted turn streams request.accepted with a boolean replayed')) flags.push(flag);
  }
  if (flags.length > 0) v.judge('load.v1.idempotency.storm-replayed', flags.filter((f) => f !== true).length <= 1, 'at most one admission of one key and body is not a replay');

  if (!admitted) return v;
  const others = await t.batch(repeat(c.storm, (i) => executeRequest(c, taskKey, { ...(c.taskBody as object), apicertVariant: i + 1 }, 'storm task other-body POST /v1/execute', [409, 429, 503])));
  for (const res of others) {
    if (unjudgeable(res)) continue;
    if (v.judgeCase('load.v1.idempotency.storm-conflict', conflictStatusCase(res.status))) v.judgeCase('load.v1.idempotency.storm-conflict', conflictCodeCase(parseJsonObject(res.body)));
  }
  return v;
}
