/** Endpoints > Rules 1-3 and Errors > Rules 3-4: Idempotency-Key on POST /v1/execute. */
import { type CheckContext, type Exchange, type Judge, type Judgement, section } from '../../../rule/index.ts';
import { conflictCodeCase, conflictStatusCase, refusedInFlight, sameRunCase } from '../../../traffic/answer-cases.ts';
import { judgeIdempotency } from '../../../traffic/idempotency.ts';
import { dataOf, exchangesOf, isEventStream, operation, parsedAs, recordOf, requestBodyMissing, requestJson, responseJson, startsAfterEnd, streamEvents, streamRead, wholeBody } from '../../../traffic/read.ts';
import { admissibleExecutes, callerOf, canonicalBody, executeKey, isIdentifier, kindOf, limiterRefused, modeOf, endsRun, terminalKindsOf } from '../support/traffic.ts';
import { ACCEPTED, acceptedData } from '../../../contract/v1/runs.ts';
import { taskResponse } from '../../../contract/v1/task.ts';
import type { Credential } from '../../../profile/schema.ts';
import { canonicalJson, isRecord } from '../../../util/json.ts';
import { burstUntil429 } from '../support/rate-limit.ts';
import {
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
} from '../support/fabric.ts';
import { setupSent } from '../support/limiter.ts';

const rule = section({ destructive: 'mutate', surface: 'v1', document: 'v1-execution-fabric.md', needs: { credentials: ['v1:key'] } });

const SCOPE_RULE = '`Idempotency-Key` is scoped to the authenticated principal, tenant, API version and a normalized digest of the request.';

/**
 * The `Idempotency-Key` header, the key Endpoints Rules 1-3 speak of: replay and conflict key on it
 * alone. Whether a turn body's `idempotencyKey` keys anything is not stated; v1.execute.idempotency.body-key
 * judges it where the deployment shows it does.
 */
function headerKey(ex: Exchange): string | undefined {
  return ex.requestHeaders['idempotency-key'];
}

/** A turn body's own `idempotencyKey`. */
function bodyIdempotencyKey(ex: Exchange): string | undefined {
  const key = recordOf(requestJson(ex))?.idempotencyKey;
  return typeof key === 'string' ? key : undefined;
}


/** The run_id a task answer carries, or undefined. */
function taskRunIdOf(ex: Exchange): string | undefined {
  const parsed = parsedAs(taskResponse, responseJson(ex));
  return parsed.success ? parsed.data.run_id : undefined;
}

/** The `replayed` flag of a recorded turn answer's request.accepted event. */
function replayedIn(events: readonly { event?: string; data: string }[]): boolean | undefined {
  const accepted = events.find((e) => kindOf(e) === ACCEPTED);
  const parsed = accepted ? parsedAs(acceptedData, dataOf(accepted)) : undefined;
  return parsed?.success ? parsed.data.replayed : undefined;
}

/** Why `later` is no replay of `first`: a task replay answers the same run_id, a turn replay's request.accepted says replayed:true. */
function replayOf(first: Exchange, later: Exchange, j: Judge): string | undefined {
  if (later.status !== first.status) return `answered ${later.status}, the original ${first.status}`;
  if (isEventStream(first)) {
    const terminal = terminalKindsOf(j.profile);
    const stream = streamRead(j, later, endsRun(terminal));
    if (!stream) return undefined;
    const flag = replayedIn(stream.events);
    // A stream its reader stopped before any event (the stream timeout) has not shown its request.accepted yet.
    if (flag === undefined && stream.unended !== undefined) {
      j.lacks(later, `the replayed turn's request.accepted: ${stream.unended}`);
      return undefined;
    }
    return flag === true ? undefined : `the replayed turn's request.accepted carries replayed: ${String(flag)}, expected true`;
  }
  const original = taskRunIdOf(first);
  if (original === undefined) return undefined;
  if (wholeBody(j, later) === undefined) return undefined;
  const same = sameRunCase(original, taskRunIdOf(later));
  return same.ok ? undefined : same.why;
}

/** Whether a 409 to the same request sent before its key's first was answered is the in-progress refusal: any code but `conflict`. */
function inFlightRefused(later: Exchange, j: Judge): boolean | undefined {
  if (later.status !== 409) return false;
  if (wholeBody(j, later) === undefined) return undefined;
  return refusedInFlight(409, recordOf(responseJson(later))?.code);
}

/** Why a refusal of the same key with another request is not the conflict the seed names: 409, code conflict, retryable:false. */
function conflictOf(later: Exchange, j: Judge): string | undefined {
  const status = conflictStatusCase(later.status!);
  if (!status.ok) return status.why;
  if (wholeBody(j, later) === undefined) return undefined;
  const problem = recordOf(responseJson(later));
  const code = conflictCodeCase(problem);
  if (!code.ok) return code.why;
  return problem?.retryable === false ? undefined : `answered 409 with retryable: ${JSON.stringify(problem?.retryable)}, but retrying does not fix an idempotency mismatch`;
}

/**
 * Whether a request with another body than its key's first is one the deployment would admit under a
 * fresh key (`admissibleExecutes`, whatever its key): only such a request's refusal under a used key is
 * the key's conflict. And whether it is another request under every normalization of the digest
 * (`sameButRequestId`).
 */
function freshlyAdmissible(j: Judge): (ex: Exchange, first: Exchange) => boolean {
  const admissible = new Set<Exchange>();
  admissibleExecutes(j, (ex) => admissible.add(ex), { anyKey: true });
  return (ex, first) => admissible.has(ex) && !sameButRequestId(ex, first);
}

/**
 * Two bodies that differ in their `requestId` alone. "`Idempotency-Key` is scoped to ... a normalized
 * digest of the request" does not show what the normalization leaves out, and a turn's `requestId`
 * ("| requestId | Identifier | yes | |") names the request rather than saying what it asks: a digest
 * may leave it out (variant v1.execute/digest-without-request-id), and then such a pair is the same
 * request, replayed. Neither a replay nor a conflict is judged of it.
 */
function sameButRequestId(a: Exchange, b: Exchange): boolean {
  const left = recordOf(requestJson(a));
  const right = recordOf(requestJson(b));
  if (left === undefined || right === undefined || !('requestId' in left || 'requestId' in right)) return false;
  const { requestId: _a, ...restA } = left;
  const { requestId: _b, ...restB } = right;
  return canonicalJson(restA) === canonicalJson(restB);
}

/**
 * The turn asking for something else: its last text part says more (else its client has another
 * name), its `requestId` kept. Another request under any normalization of the digest, which a change
 * of `requestId` alone is not (`sameButRequestId`); undefined when the body has neither to change.
 */
function otherTurn(turn: Record<string, unknown>): Record<string, unknown> | undefined {
  const other = structuredClone(turn);
  const parts = Array.isArray(other.messages) ? other.messages.flatMap((m) => (isRecord(m) && Array.isArray(m.parts) ? m.parts.filter(isRecord) : [])) : [];
  const text = parts.filter((p) => typeof p.text === 'string').at(-1);
  if (text !== undefined) text.text = `${String(text.text)} Then say it once more in other words.`;
  else if (isRecord(other.client) && typeof other.client.name === 'string') other.client.name = `${other.client.name}-other`;
  else return undefined;
  return other;
}

/** The `fails` task fixture, which must differ from `completes`: the different request sent under the used key. */
function otherTaskFixture(ctx: CheckContext, original: Record<string, unknown>): 'fails' {
  if (canonicalJson(ctx.profile.fixtures.v1.tasks.fails) === canonicalJson(original)) {
    ctx.untestable({ need: 'fixture', path: 'v1.tasks.fails', problem: 'is the same body as v1.tasks.completes', remedy: 'give a task body other than completes: a different request under the same key' });
  }
  return 'fails';
}

export const replay = rule({
  id: 'v1.execute.idempotency.replay',
  title: 'The same key and request replays: the same run_id for a task, request.accepted with replayed:true for a turn',
  level: 'required',
  needs: { fixtures: ['v1.tasks.completes'] },
  spec: { section: 'Endpoints > Rules 2', quote: 'Same key with the same request replays safely. A replayed acceptance event carries `replayed:true`.' },
  judgement: {
    record: 'a POST /v1/execute sent twice by one caller with the same idempotency key and request, the first answered 2xx',
    judge: (j) => judgeIdempotency(j, { operation: 'v1.execute', keyOf: headerKey, judge: 'replay', sameAnswer: replayOf, limiterRefused, inFlightRefused }),
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
  needs: { fixtures: ['v1.tasks.completes', 'v1.tasks.fails'] },
  spec: {
    section: 'Endpoints > Rules 3; Errors > Rules 4',
    quote: 'Same key with a different request is a conflict (code `conflict`, HTTP `409`), not a replay. … `409` from an idempotency mismatch is not fixed by retrying. A new key must be used.',
  },
  judgement: {
    record: 'a POST /v1/execute sent by one caller under an idempotency key whose first request (answered 2xx) had another body, with a body the deployment would admit under a fresh key (for a task, one whose `task` is a task fixture\'s)',
    judge: (j) => judgeIdempotency(j, { operation: 'v1.execute', keyOf: headerKey, judge: 'conflict', conflict: conflictOf, limiterRefused, conflictJudged: freshlyAdmissible(j) }),
  },
  async provoke(ctx) {
    const key = newKey();
    const original = taskBody(ctx, 'completes');
    const first = await setupSent(ctx, 'the original task request', () => postExecute(ctx, original, { key, label: 'execute (task), original' }));
    if (first.status !== 200) ctx.inconclusive(`setup failed: the original task request answered ${first.status}, not 200`);
    // Another fixture's body, which the deployment takes: a change inside `task` could be refused for
    // itself ("Sub-field shapes of `task` ...: not shown."), so only the key may refuse this one.
    const other = otherTaskFixture(ctx, original);
    const changed = taskBody(ctx, other);
    for (const attempt of [1, 2]) await postExecute(ctx, changed, { key, label: `execute (task), same key, the "${other}" body (attempt ${attempt})` });
    await postExecute(ctx, changed, { key: newKey(), label: `execute (task), the "${other}" body under a new key` });
  },
});

export const scope = rule({
  id: 'v1.execute.idempotency.scope',
  title: "Another principal's or tenant's use of the same key and request starts its own run (no replay of someone else's run)",
  level: 'required',
  needs: { fixtures: ['v1.tasks.completes'] },
  spec: { section: 'Endpoints > Rules 1', quote: SCOPE_RULE },
  judgement: {
    record: "a POST /v1/execute repeating the key and body of another principal's or tenant's accepted task request (principals and tenants from the profile)",
    judge(j) {
      // Whose key a credential is (principal, tenant) is not in the traffic: the profile says (untestable without one).
      const admissible = new Set<Exchange>();
      admissibleExecutes(j, (ex) => admissible.add(ex), { anyKey: true });
      const first = new Map<string, { ex: Exchange; principal: string; tenant: string | undefined; runId: string }>();
      for (const ex of j.exchanges) {
        if (!admissible.has(ex) || modeOf(ex) !== 'task') continue;
        const key = executeKey(ex);
        const who = j.credentialOf(ex);
        if (key === undefined || !who) continue;
        const pair = `${key}\n${canonicalBody(ex)}`;
        const known = first.get(pair);
        if (!known) {
          const runId = taskRunIdOf(ex);
          if (runId !== undefined && first.size < 10_000) first.set(pair, { ex, principal: who.principal, tenant: who.tenant, runId });
          continue;
        }
        if (known.principal === who.principal && known.tenant === who.tenant) continue;
        if (!j.check(ex, ex.status === 200, `the same key and request as exchange #${known.ex.index}, from ${who.name} (principal ${who.principal}, tenant ${who.tenant ?? '?'}), answered ${ex.status}, expected 200`, [known.ex])) continue;
        if (wholeBody(j, ex) === undefined) continue;
        j.check(ex, taskRunIdOf(ex) !== known.runId, `${who.name} got run_id ${known.runId} of exchange #${known.ex.index}, another principal's run: the key is not scoped to principal and tenant`, [known.ex]);
      }
    },
  },
  async provoke(ctx) {
    const peers = [otherPrincipalKey(ctx), findOtherTenantKey(ctx)].filter((c): c is Credential => c !== undefined);
    if (peers.length === 0) ctx.untestable({ need: 'credential', role: 'v1 key of another principal (same tenant) or of another tenant', remedy: 'add one with "principal"/"tenant" labels' });
    const body = taskBody(ctx, 'completes');
    const key = newKey();
    const mine = await setupSent(ctx, 'the primary task request', () => postExecute(ctx, body, { key, label: 'execute (task) as the primary key' }));
    if (mine.status !== 200) ctx.inconclusive(`setup failed: the primary task request answered ${mine.status}, not 200`);
    for (const peer of peers) await postExecute(ctx, body, { key, credential: peer, label: `execute (task), same key and body, as ${peer.name}` });
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
  judgement: {
    record: 'a POST /v1/execute sent by one caller under the key of an earlier accepted request, with the same JSON written differently',
    judge(j) {
      const first = new Map<string, { ex: Exchange; text: string; canonical: string }>();
      for (const ex of exchangesOf(j.exchanges, 'v1.execute')) {
        if (operation(ex) !== 'v1.execute' || ex.status === undefined || limiterRefused(ex) || requestBodyMissing(ex) !== undefined) continue;
        const key = executeKey(ex);
        if (key === undefined || requestJson(ex) === undefined) continue;
        const scope = `${callerOf(ex)}\n${key}`;
        const known = first.get(scope);
        if (!known) {
          if (ex.status >= 200 && ex.status < 300 && first.size < 10_000) first.set(scope, { ex, text: ex.requestBody!, canonical: canonicalBody(ex) });
          continue;
        }
        if (known.canonical !== canonicalBody(ex) || known.text === ex.requestBody) continue;
        // Sent before the first was answered: a 409 other than `conflict` is the in-progress refusal (src/traffic/idempotency.ts).
        if (!startsAfterEnd(ex, known.ex) && inFlightRefused(ex, j) !== false) continue;
        j.check(ex, ex.status !== 409, 'the same request as exchange #' + known.ex.index + ' with other key order or whitespace was answered 409 conflict: the digest is not normalized', [known.ex]);
      }
    },
  },
  async provoke(ctx) {
    const body = taskBody(ctx, 'completes');
    const key = newKey();
    const compact = JSON.stringify(body);
    const spaced = JSON.stringify(reordered(body), null, 2);
    if (compact === spaced) ctx.untestable({ need: 'fixture', path: 'v1.tasks.completes', problem: 'is too small to reorder', remedy: 'give a body with at least two members' });
    const first = await setupSent(ctx, 'the original task request', () => postExecute(ctx, body, { key, rawBody: compact, label: 'execute (task), compact JSON' }));
    if (first.status !== 200) ctx.inconclusive(`setup failed: the original task request answered ${first.status}, not 200`);
    const res = await postExecute(ctx, body, { key, rawBody: spaced, label: 'execute (task), same JSON reordered and indented' });
    // Whether the replay re-executes is judged by v1.execute.idempotency.replay.
    const again = taskResponse.safeParse(res.json);
    ctx.observe('the reordered request replayed the original run', again.success && again.data.run_id === taskResponse.safeParse(first.json).data?.run_id);
  },
});

/**
 * The judgement of a retry after a refusal by the limiter (`status`): a request whose key and body
 * an earlier request carried, answered `status`, with no admission of that key since, is admitted
 * as new: 200, and a turn's request.accepted does not say replayed:true.
 */
function retryJudgement(status: 429 | 503): Judgement {
  return {
    record: `a POST /v1/execute repeating the key and body of an earlier one answered ${status}, by a caller the deployment admits`,
    judge(j) {
      const refused = new Map<string, Exchange>();
      const admittedKeys = new Set<string>();
      const admissible = new Set<Exchange>();
      admissibleExecutes(j, (ex) => admissible.add(ex), { anyKey: true, limited: true });
      for (const ex of exchangesOf(j.exchanges, 'v1.execute')) {
        if (operation(ex) !== 'v1.execute' || ex.status === undefined || requestBodyMissing(ex) !== undefined) continue;
        const key = executeKey(ex);
        if (key === undefined) continue;
        const pair = `${key}\n${canonicalBody(ex)}`;
        const before = refused.get(pair);
        // The refused caller may still be over its limit; another key of the principal is not: its limiter answer is the refusal replayed.
        const stillLimited = before !== undefined && callerOf(before) === callerOf(ex) && limiterRefused(ex);
        if (before && !admittedKeys.has(key) && admissible.has(ex) && !stillLimited) {
          if (j.check(ex, ex.status === 200, `retrying after the ${status} of exchange #${before.index} with the same key answered ${ex.status}, expected 200 (nothing was accepted)`, [before]) && isEventStream(ex)) {
            const events = streamEvents(j, ex);
            if (events) j.check(ex, replayedIn(events) !== true, `the retry's request.accepted carries replayed:true, but nothing was accepted by the ${status} of exchange #${before.index}`, [before]);
          }
          refused.delete(pair);
        }
        if (ex.status === status && refused.size < 10_000) refused.set(pair, ex);
        if (ex.status >= 200 && ex.status < 300) admittedKeys.add(key);
      }
    },
  };
}

/** Posts once on a refusing key, then retries the identical request with the same key on the primary key. */
async function retryAfterRefusal(ctx: CheckContext, refusing: Credential, status: 429 | 503): Promise<void> {
  const body = turnBody(ctx);
  const key = newKey();
  const refused = await postTurn(ctx, body, { key, credential: refusing, label: `execute (turn) on ${refusing.name}, expecting ${status}` });
  if (refused.res.status !== status) ctx.inconclusive(`setup failed: the request on ${refusing.name} answered ${refused.res.status}, not ${status}`);
  await postTurn(ctx, body, { key, label: `retry: the identical request with the same key on ${primaryKey(ctx).name}` });
}

export const retryAfter429 = rule({
  id: 'v1.execute.idempotency.retry-after-429',
  title: 'After a 429 the identical request with the same key is admitted as new (nothing was accepted)',
  level: 'required',
  needs: { fixtures: ['v1.rateLimitCredential'], bursts: true },
  spec: { section: 'Errors > Rules 3', quote: '`429` and `503` are safe to retry with the same idempotency key, because nothing was accepted.' },
  judgement: retryJudgement(429),
  async provoke(ctx) {
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
  judgement: retryJudgement(503),
  async provoke(ctx) {
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
  judgement: {
    record: 'a POST /v1/execute carrying an Idempotency-Key header, with a body the contract admits, by a caller the deployment admits',
    judge(j) {
      admissibleExecutes(
        j,
        (ex) => {
          const key = ex.requestHeaders['idempotency-key'];
          if (key === undefined) return;
          const shown = key.length > 40 ? `${key.slice(0, 20)}… (${key.length} characters)` : key;
          if (isIdentifier(key)) {
            // A key already used with another request is still read as a key: a 409 conflict shows it.
            const conflict = ex.status === 409 && recordOf(responseJson(ex))?.code === 'conflict';
            j.check(ex, ex.status === 200 || conflict, `the Identifier ${shown} as Idempotency-Key answered ${ex.status}, expected 200 (or 409 conflict for a reused key)`);
          } else {
            // Which status the refusal carries is not shown (no code is mapped to a status): any 4xx but a 409.
            j.check(ex, ex.status! >= 400 && ex.status! < 500 && ex.status !== 409, `the Idempotency-Key ${shown}, not an Identifier, answered ${ex.status}, expected a 4xx refusal`);
          }
        },
        { anyKey: true },
      );
    },
  },
  async provoke(ctx) {
    const body = taskBody(ctx, 'completes');
    const unique = newKey().replace(/-/g, '');
    const keys = [
      // A one-character key cannot be unique across certification runs: a 409 conflict still shows it was read as a key.
      { key: ALNUM[Math.floor(Math.random() * ALNUM.length)]!, why: 'one character' },
      { key: `K${unique}`.padEnd(128, '.:_-'), why: '128 characters' },
      { key: `a.b_c:d-${unique}`, why: 'every allowed punctuation' },
      { key: `K${'x'.repeat(128)}`, why: '129 characters' },
      { key: `-${unique}`, why: 'a leading "-"' },
      { key: `apicert/${unique}`, why: 'a "/"' },
    ];
    for (const { key, why } of keys) {
      const res = await postExecute(ctx, body, { key, label: `execute (task) with an Idempotency-Key of ${why}` });
      ctx.observe(`Idempotency-Key with ${why}`, { status: res.status, code: problemCode(res) ?? null });
    }
  },
});

/** A turn keyed only by its body's `idempotencyKey` (no header): its key, or undefined. */
function bodyOnlyKey(ex: Exchange): string | undefined {
  return ex.requestHeaders['idempotency-key'] === undefined && modeOf(ex) === 'turn' ? bodyIdempotencyKey(ex) : undefined;
}

/** A turn body less its `idempotencyKey`, canonical: what the request is apart from the key. */
function restOf(ex: Exchange): string | undefined {
  const body = recordOf(requestJson(ex));
  if (body === undefined) return undefined;
  const { idempotencyKey: _key, ...rest } = body;
  return canonicalJson(rest);
}

/**
 * Per caller, the index of the exchange by which the deployment has shown that it keys a turn by
 * its body's `idempotencyKey`: a body-keyed turn repeating an accepted one (same key, same body)
 * said replayed:true, and a body-keyed turn under a key new to the caller, whose body apart from
 * the key an earlier accepted turn of the caller had, said replayed:false. The first alone could be
 * a deployment that replays by something else in the body (its `requestId`, a digest of the whole
 * body: none of it is stated); the second shows the key is what tells them apart.
 */
function bodyKeyShown(j: Judge): Map<string, number> {
  const shown = new Map<string, number>();
  const firsts = new Map<string, string>();
  const rests = new Map<string, Set<string>>();
  const replayAt = new Map<string, number>();
  const freshAt = new Map<string, number>();
  const terminal = terminalKindsOf(j.profile);
  for (const ex of exchangesOf(j.exchanges, 'v1.execute')) {
    if (operation(ex) !== 'v1.execute' || ex.status === undefined || ex.status < 200 || ex.status >= 300) continue;
    const key = bodyOnlyKey(ex);
    const rest = key === undefined ? undefined : restOf(ex);
    if (key === undefined || rest === undefined || !isEventStream(ex)) continue;
    const caller = callerOf(ex);
    if (shown.has(caller)) continue;
    const stream = streamRead(j, ex, endsRun(terminal));
    const flag = stream ? replayedIn(stream.events) : undefined;
    const scope = `${caller}\n${key}`;
    const known = firsts.get(scope);
    const seenRests = rests.get(caller) ?? new Set<string>();
    if (known === undefined) {
      if (flag === false && seenRests.has(rest)) freshAt.set(caller, ex.index);
      if (firsts.size < 10_000) firsts.set(scope, canonicalBody(ex));
    } else if (known === canonicalBody(ex) && flag === true) replayAt.set(caller, ex.index);
    if (seenRests.size < 1_000) rests.set(caller, seenRests.add(rest));
    const replay = replayAt.get(caller);
    const fresh = freshAt.get(caller);
    if (replay !== undefined && fresh !== undefined) shown.set(caller, Math.max(replay, fresh));
  }
  return shown;
}

export const bodyKey = rule({
  id: 'v1.execute.idempotency.body-key',
  title: "Where a deployment shows that a turn body's own idempotencyKey (no header) keys the request, it keeps to Rules 2-3 under it: the same body replays with replayed:true, another body is a 409 conflict",
  level: 'required',
  destructive: 'mutate',
  spec: {
    section: 'Resources > Turn request body; Endpoints > Rules 2-3',
    quote: '| idempotencyKey | Identifier | no | … Same key with the same request replays safely. A replayed acceptance event carries `replayed:true`. … Same key with a different request is a conflict (code `conflict`, HTTP `409`), not a replay.',
  },
  judgement: {
    // The turn table lists "| idempotencyKey | Identifier | no | |" with no note, and Endpoints Rules 1-3 speak of the
    // `Idempotency-Key` header: that the body field keys a request is one reading, a field the deployment ignores another
    // (variant v1.execute/body-key-ignored). A deployment that has shown it keys by the field (bodyKeyShown) is held to
    // Rules 2-3 under it from then on; one that has not is not judged.
    record: "a turn POST /v1/execute keyed only by its body's idempotencyKey, sent again by the same caller under that key after the deployment showed it keys turns by that field",
    none: "the deployment did not show that it keys a turn by its body's idempotencyKey (a same-key same-body repeat said replayed:true, and the same body under a new body key replayed:false): the field's meaning is not stated, so nothing is judged",
    judge(j) {
      const shown = bodyKeyShown(j);
      j.observe("turns keyed by the body's idempotencyKey", shown.size > 0 ? 'shown: the body key replays and a new body key does not' : 'not shown');
      if (shown.size === 0) return;
      const after = (ex: Exchange) => {
        const at = shown.get(callerOf(ex));
        return at !== undefined && ex.index > at;
      };
      // Only what came after the showing is judged: the exchanges that showed it (and any before) are the evidence, not the subject.
      judgeIdempotency(j, { operation: 'v1.execute', keyOf: bodyOnlyKey, judge: 'replay', sameAnswer: replayOf, limiterRefused, inFlightRefused, judged: after });
      judgeIdempotency(j, {
        operation: 'v1.execute',
        keyOf: bodyOnlyKey,
        judge: 'conflict',
        judged: after,
        limiterRefused,
        conflictJudged: freshlyAdmissible(j),
        conflict: (later, jj) => {
          if (later.status !== 409) return `answered ${later.status}`;
          if (wholeBody(jj, later) === undefined) return undefined;
          const code = recordOf(responseJson(later))?.code;
          return code === 'conflict' ? undefined : `answered 409 with code ${JSON.stringify(code)}, expected conflict`;
        },
      });
    },
  },
  async provoke(ctx) {
    const key = newKey('bodykey');
    const turn = { ...turnBody(ctx), idempotencyKey: key };
    const original = await postTurn(ctx, turn, { label: 'execute (turn), idempotencyKey in the body only' });
    if (original.res.status !== 200) ctx.inconclusive(`setup failed: the original turn request (idempotencyKey in the body) answered ${original.res.status}, not 200`);
    await postTurn(ctx, turn, { label: 'execute (turn), same body, same idempotencyKey in the body' });
    // The same body under another body key: a new run shows the key, not the rest of the body, decides the replay.
    await postTurn(ctx, { ...turn, idempotencyKey: newKey('bodykey') }, { label: 'execute (turn), same body under another idempotencyKey in the body' });
    // Another request in what it asks, not only in its requestId, which a normalized digest may leave out.
    const other = otherTurn(turn);
    if (other === undefined) ctx.inconclusive("setup failed: the profile's turn body (fixtures.v1.turn) has neither a text part nor a client name to change, so no other request could be sent under its key");
    await postExecute(ctx, other, { headers: { accept: 'text/event-stream' }, label: 'execute (turn), another message under the same body idempotencyKey' });
  },
});
