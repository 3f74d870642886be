/** Endpoints > Rules 1-3 and Errors > Rules 3-4: Idempotency-Key on POST /v1/execute. */
import { type CheckContext, type Exchange, type Judge, section, type ProbeResponse } from '../../../rule/index.ts';
import { judgeIdempotency } from '../../../traffic/idempotency.ts';
import { dataOf, isEventStream, recordOf, responseJson, streamEvents, wholeBody } from '../../../traffic/read.ts';
import { executeKey, kindOf } from '../support/traffic.ts';
import { ACCEPTED, acceptedData } from '../../../contract/v1/runs.ts';
import { taskResponse } from '../../../contract/v1/task.ts';
import type { Credential } from '../../../profile/schema.ts';
import { isRecord } from '../../../util/json.ts';
import { burstUntil429 } from '../support/rate-limit.ts';
import {
  eventData,
  eventKind,
  findOtherTenantKey,
  namedKey,
  newKey,
  otherPrincipalKey,
  postExecute,
  postTurn,
  primaryKey,
  problemCode,
  taskBody,
  turnBody,
  type TurnAnswer,
} from '../support/fabric.ts';

const rule = section({ destructive: 'mutate', surface: 'v1', document: 'v1-execution-fabric.md', needs: { credentials: ['v1:key'] } });

const SCOPE_RULE = '`Idempotency-Key` is scoped to the authenticated principal, tenant, API version and a normalized digest of the request.';

/** The `replayed` flag of a turn answer's request.accepted event, or undefined when there is none. */
function replayedFlag(answer: TurnAnswer): boolean | undefined {
  const accepted = answer.events.find((e) => eventKind(e) === ACCEPTED);
  const parsed = accepted ? acceptedData.safeParse(eventData(accepted)) : undefined;
  return parsed?.success ? parsed.data.replayed : undefined;
}

function runIdOf(ctx: CheckContext, res: ProbeResponse, what: string): string {
  ctx.expect(res.status === 200, `${what} answered ${res.status}, expected 200`);
  return ctx.expectShape(taskResponse, res.json, what).run_id;
}

/** The run_id a task answer carries, or undefined. */
function taskRunIdOf(ex: Exchange): string | undefined {
  const parsed = taskResponse.safeParse(responseJson(ex));
  return parsed.success ? parsed.data.run_id : undefined;
}

/** The `replayed` flag of a recorded turn answer's request.accepted event. */
function replayedIn(events: readonly { event?: string; data: string }[]): boolean | undefined {
  const accepted = events.find((e) => kindOf(e) === ACCEPTED);
  const parsed = accepted ? acceptedData.safeParse(dataOf(accepted)) : undefined;
  return parsed?.success ? parsed.data.replayed : undefined;
}

/** Why `later` is no replay of `first`: a task replay answers the same run_id, a turn replay's request.accepted says replayed:true. */
function replayOf(first: Exchange, later: Exchange, j: Judge): string | undefined {
  if (later.status !== first.status) return `answered ${later.status}, the original ${first.status}`;
  if (isEventStream(first)) {
    const events = streamEvents(j, later);
    if (!events) return undefined;
    const flag = replayedIn(events);
    return flag === true ? undefined : `the replayed turn's request.accepted carries replayed: ${String(flag)}, expected true`;
  }
  const original = taskRunIdOf(first);
  if (original === undefined) return undefined;
  if (wholeBody(j, later) === undefined) return undefined;
  const again = taskRunIdOf(later);
  return again === original ? undefined : `answered run_id ${String(again)}, the original ${original}: the request was executed twice`;
}

/** Why a refusal of the same key with another request is not the conflict the seed names: 409, code conflict, retryable:false. */
function conflictOf(later: Exchange, j: Judge): string | undefined {
  if (later.status !== 409) return `answered ${later.status}`;
  if (wholeBody(j, later) === undefined) return undefined;
  const problem = recordOf(responseJson(later));
  if (problem?.code !== 'conflict') return `answered 409 with code ${JSON.stringify(problem?.code)}, expected conflict`;
  return problem.retryable === false ? undefined : `answered 409 with retryable: ${JSON.stringify(problem.retryable)}, but retrying does not fix an idempotency mismatch`;
}

export const replay = rule({
  id: 'v1.execute.idempotency.replay',
  title: 'The same key and request replays: the same run_id for a task, request.accepted with replayed:true for a turn',
  level: 'required',
  needs: { fixtures: ['v1.tasks.completes'] },
  spec: { section: 'Endpoints > Rules 2', quote: 'Same key with the same request replays safely. A replayed acceptance event carries `replayed:true`.' },
  judgement: {
    record: 'a POST /v1/execute sent twice by one caller with the same idempotency key and request, the first answered 2xx',
    judge: (j) => judgeIdempotency(j, { operation: 'v1.execute', keyOf: executeKey, judge: 'replay', sameAnswer: replayOf }),
  },
  async provoke(ctx) {
    const body = taskBody(ctx, 'completes');
    const key = newKey();
    await postExecute(ctx, body, { key, label: 'execute (task), original' });
    await postExecute(ctx, body, { key, label: 'execute (task), same key and body' });
    const turn = turnBody(ctx);
    const turnKey = newKey();
    await postTurn(ctx, turn, { key: turnKey, label: 'execute (turn), original' });
    await postTurn(ctx, turn, { key: turnKey, label: 'execute (turn), same key and body' });
  },
});

export const conflict = rule({
  id: 'v1.execute.idempotency.conflict',
  title: 'The same key with a different request answers 409 conflict, retryable:false, and retrying does not change that',
  level: 'required',
  needs: { fixtures: ['v1.tasks.completes'] },
  spec: {
    section: 'Endpoints > Rules 3; Errors > Rules 4',
    quote: 'Same key with a different request is a conflict (code `conflict`, HTTP `409`), not a replay. … `409` from an idempotency mismatch is not fixed by retrying. A new key must be used.',
  },
  judgement: {
    record: 'a POST /v1/execute sent by one caller under an idempotency key whose first request (answered 2xx) had another body',
    judge: (j) => judgeIdempotency(j, { operation: 'v1.execute', keyOf: executeKey, judge: 'conflict', conflict: conflictOf }),
  },
  async provoke(ctx) {
    const key = newKey();
    const original = taskBody(ctx, 'completes');
    const first = await postExecute(ctx, original, { key, label: 'execute (task), original' });
    if (first.status !== 200) ctx.inconclusive(`setup failed: the original task request answered ${first.status}, not 200`);
    // Changed inside `task`, whose sub-fields are open, so only the idempotency rule can refuse it.
    const changed = { ...original, task: { ...(original.task as object), apicertVariant: 'a different request under the same key' } };
    for (const attempt of [1, 2]) await postExecute(ctx, changed, { key, label: `execute (task), same key, another body (attempt ${attempt})` });
    await postExecute(ctx, changed, { key: newKey(), label: 'execute (task), the other body under a new key' });
  },
});

export const scope = rule({
  id: 'v1.execute.idempotency.scope',
  title: "Another principal's or tenant's use of the same key and request starts its own run (no replay of someone else's run)",
  level: 'required',
  needs: { fixtures: ['v1.tasks.completes'] },
  spec: { section: 'Endpoints > Rules 1', quote: SCOPE_RULE },
  async check(ctx) {
    const peers = [otherPrincipalKey(ctx), findOtherTenantKey(ctx)].filter((c): c is Credential => c !== undefined);
    if (peers.length === 0) ctx.untestable({ need: 'credential', role: 'v1 key of another principal (same tenant) or of another tenant', remedy: 'add one with "principal"/"tenant" labels' });
    const body = taskBody(ctx, 'completes');
    const key = newKey();
    const mine = runIdOf(ctx, await postExecute(ctx, body, { key, label: 'execute (task) as the primary key' }), 'the primary task request');
    for (const peer of peers) {
      const res = await postExecute(ctx, body, { key, credential: peer, label: `execute (task), same key and body, as ${peer.name}` });
      const theirs = runIdOf(ctx, res, `the same key and request from ${peer.name} (principal ${peer.principal}, tenant ${peer.tenant ?? '?'})`);
      ctx.check(theirs !== mine, `${peer.name} got run_id ${theirs} of the primary principal's run: the key is not scoped to principal and tenant`);
    }
  },
});

/** The same JSON value with keys in reverse order and indented: a different text, the same request. */
function reordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reordered);
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, reordered(v)]));
  return value;
}

export const normalized = rule({
  id: 'v1.execute.idempotency.normalized',
  title: 'The request digest is normalized: the same JSON with other key order and whitespace is a replay, not a conflict',
  level: 'required',
  needs: { fixtures: ['v1.tasks.completes'] },
  spec: { section: 'Endpoints > Rules 1', quote: SCOPE_RULE },
  async check(ctx) {
    const body = taskBody(ctx, 'completes');
    const key = newKey();
    const compact = JSON.stringify(body);
    const spaced = JSON.stringify(reordered(body), null, 2);
    if (compact === spaced) ctx.untestable({ need: 'fixture', path: 'v1.tasks.completes', problem: 'is too small to reorder', remedy: 'give a body with at least two members' });
    const first = runIdOf(ctx, await postExecute(ctx, body, { key, rawBody: compact, label: 'execute (task), compact JSON' }), 'the original task request');
    const res = await postExecute(ctx, body, { key, rawBody: spaced, label: 'execute (task), same JSON reordered and indented' });
    ctx.expect(res.status !== 409, 'the same request with other key order and whitespace was answered 409 conflict: the digest is not normalized');
    // Whether the replay re-executes is judged by v1.execute.idempotency.replay.
    ctx.observe('the reordered request replayed the original run', runIdOf(ctx, res, 'the reordered request') === first);
  },
});

/** Posts once on a refusing key (expecting `status`), then retries the identical request with the same key on the primary key. */
async function retryAfterRefusal(ctx: CheckContext, refusing: Credential, status: 429 | 503): Promise<void> {
  const body = turnBody(ctx);
  const key = newKey();
  const refused = await postTurn(ctx, body, { key, credential: refusing, label: `execute (turn) on ${refusing.name}, expecting ${status}` });
  if (refused.res.status !== status) ctx.inconclusive(`setup failed: the request on ${refusing.name} answered ${refused.res.status}, not ${status}`);
  const retry = await postTurn(ctx, body, { key, label: `retry: the identical request with the same key on ${primaryKey(ctx).name}` });
  ctx.check(retry.res.status === 200, `retrying after a ${status} with the same key answered ${retry.res.status} ${problemCode(retry.res) ?? ''}, expected 200`);
  // The acceptance event itself is judged by v1.execute.turn.accepted-event; here only a replay would be wrong.
  ctx.check(replayedFlag(retry) !== true, `the retry's request.accepted carries replayed:true, but nothing was accepted by the ${status}`);
}

export const retryAfter429 = rule({
  id: 'v1.execute.idempotency.retry-after-429',
  title: 'After a 429 the identical request with the same key is admitted as new (nothing was accepted)',
  level: 'required',
  needs: { fixtures: ['v1.rateLimitCredential'], bursts: true },
  spec: { section: 'Errors > Rules 3', quote: '`429` and `503` are safe to retry with the same idempotency key, because nothing was accepted.' },
  async check(ctx) {
    const limited = namedKey(ctx, ctx.profile.fixtures.v1.rateLimitCredential, 'rateLimitCredential', 'on a tier a bounded burst can exhaust');
    await burstUntil429(ctx, limited);
    await retryAfterRefusal(ctx, limited, 429);
  },
});

export const retryAfter503 = rule({
  id: 'v1.execute.idempotency.retry-after-503',
  title: 'After a fail-closed 503 the identical request with the same key is admitted as new (nothing was accepted)',
  level: 'required',
  needs: { fixtures: ['v1.limiterUnavailableCredential'] },
  spec: { section: 'Errors > Rules 3', quote: '`429` and `503` are safe to retry with the same idempotency key, because nothing was accepted.' },
  async check(ctx) {
    const down = namedKey(ctx, ctx.profile.fixtures.v1.limiterUnavailableCredential, 'limiterUnavailableCredential', 'whose rate limiter is unavailable');
    await retryAfterRefusal(ctx, down, 503);
  },
});

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export const keyFormat = rule({
  id: 'v1.execute.idempotency.key-format',
  title: 'Idempotency-Key values that are Identifiers (1 and 128 characters, every allowed punctuation) are accepted; values that are not (129 characters, a leading "-", a "/") are refused with a 4xx',
  level: 'required',
  needs: { fixtures: ['v1.tasks.completes'] },
  spec: {
    section: 'Endpoints; Resources > Shared primitives',
    quote: 'Headers: `Idempotency-Key` (optional, Identifier) … | Identifier | string | length 1-128; pattern `^[A-Za-z0-9][A-Za-z0-9._:-]*$` |',
  },
  async check(ctx) {
    const body = taskBody(ctx, 'completes');
    const unique = newKey().replace(/-/g, '');
    const valid = [
      // A one-character key cannot be unique across certification runs: a 409 conflict still shows it was read as a key.
      { key: ALNUM[Math.floor(Math.random() * ALNUM.length)]!, why: 'one character' },
      { key: `K${unique}`.padEnd(128, '.:_-'), why: '128 characters' },
      { key: `a.b_c:d-${unique}`, why: 'every allowed punctuation' },
    ];
    for (const { key, why } of valid) {
      const res = await postExecute(ctx, body, { key, label: `execute (task) with an Idempotency-Key of ${why}` });
      const admitted = res.status === 200 || (res.status === 409 && problemCode(res) === 'conflict');
      ctx.check(admitted, `an Idempotency-Key of ${why} answered ${res.status} ${problemCode(res) ?? ''}, expected 200 (it is an Identifier)`);
    }
    // The header is typed Identifier, so a key that is not one makes the request invalid. Which
    // status the refusal carries is not shown (no code is mapped to a status): any 4xx but a 409.
    const invalid = [
      { key: `K${'x'.repeat(128)}`, why: '129 characters' },
      { key: `-${unique}`, why: 'a leading "-"' },
      { key: `apicert/${unique}`, why: 'a "/"' },
    ];
    for (const { key, why } of invalid) {
      const res = await postExecute(ctx, body, { key, label: `execute (task) with an Idempotency-Key of ${why}` });
      ctx.check(res.status >= 400 && res.status < 500 && res.status !== 409, `an Idempotency-Key of ${why} (not an Identifier) answered ${res.status}, expected a 4xx refusal`);
      ctx.observe(`Idempotency-Key with ${why}`, { status: res.status, code: problemCode(res) ?? null });
    }
  },
});

export const bodyKey = rule({
  id: 'v1.execute.idempotency.body-key',
  title: "A turn body's own idempotencyKey (no header) keys the request: the same body replays with replayed:true, another body under it is a 409 conflict",
  level: 'required',
  destructive: 'mutate',
  spec: {
    section: 'Resources > Turn request body; Endpoints > Rules 2-3',
    quote: '| idempotencyKey | Identifier | no | … Same key with the same request replays safely. A replayed acceptance event carries `replayed:true`. … Same key with a different request is a conflict (code `conflict`, HTTP `409`), not a replay.',
  },
  async check(ctx) {
    const key = newKey('bodykey');
    const turn = { ...turnBody(ctx), idempotencyKey: key };
    const original = await postTurn(ctx, turn, { label: 'execute (turn), idempotencyKey in the body only' });
    if (ctx.check(original.res.status === 200, `the original turn request (idempotencyKey in the body) answered ${original.res.status}, expected 200`))
      ctx.check(replayedFlag(original) === false, `the original turn's request.accepted carries replayed: ${String(replayedFlag(original))}, expected false`);
    const again = await postTurn(ctx, turn, { label: 'execute (turn), same body, same idempotencyKey in the body' });
    if (ctx.check(again.res.status === 200, `the same turn body sent again answered ${again.res.status}, expected 200 (a replay)`))
      ctx.check(replayedFlag(again) === true, `the same turn body with the same body idempotencyKey was admitted with replayed: ${String(replayedFlag(again))}, expected true: the body's key was not honoured`);
    const other = { ...turn, requestId: newKey('req') };
    const res = await postExecute(ctx, other, { headers: { accept: 'text/event-stream' }, label: 'execute (turn), another body under the same body idempotencyKey' });
    ctx.check(res.status === 409, `another turn body under the same body idempotencyKey answered ${res.status}, expected 409`);
    ctx.check(problemCode(res) === 'conflict', `the answer carries code "${problemCode(res)}", expected conflict`);
  },
});
