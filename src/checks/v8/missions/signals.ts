/** Endpoints: POST /v8/missions/{runId}/signals; States: a signal to a terminal mission. */
import { type CheckContext, section } from '../../../rule/index.ts';
import type { Credential } from '../../../profile/schema.ts';
import { createMission, followEvents, followToTerminal, getMission, isTerminalEvent, newKey, postMission, writer, MISSIONS } from '../support/missions.ts';
import { admissibleBody, Callers, callerOf, mayBeRefused, missionOf, sentFixture, withMissionsOn, withTerminalBeforeOn } from '../support/traffic.ts';
import { otherCauseOfRefusal } from '../support/ordinary.ts';
import { endpointOf } from '../../../contract/endpoints.ts';
import { limiterRefused, setupSent } from '../support/limiter.ts';
import { missionProjection, signalRequest, TERMINAL_STATUSES } from '../../../contract/v8/missions.ts';
import { judgeIdempotency, sameStatusAndBody } from '../../../traffic/idempotency.ts';
import { exchangesOf, parsedAs, requestBodyMissing, requestJson, responseJson, surelyStartsAfterEnd, wholeBody } from '../../../traffic/read.ts';
import { idempotencyKey } from '../../../contract/v8/common.ts';
import { isRecord } from '../../../util/json.ts';
import type { Exchange, Judge } from '../../../rule/index.ts';
import { operation } from '../../../traffic/read.ts';

const rule = section({ destructive: 'mutate', surface: 'v8', document: 'v8-integration-gateway.md', needs: { credentials: ['v8:holding:missions:write+missions:read'] } });

function postSignal(ctx: CheckContext, runId: string, body: unknown, key: string = newKey(), label = 'send signal', credential: Credential = writer(ctx)) {
  return ctx.http.send({ method: 'POST', path: `${MISSIONS}/${runId}/signals`, credential, headers: { 'idempotency-key': key }, json: body, label });
}

export const signalAccepted = rule({
  id: 'v8.missions.signals.accepted',
  title: 'A signal to a mission that is not terminal answers 200 with an empty body',
  level: 'required',
  needs: { fixtures: ['v8.missions.waits'] },
  spec: { section: 'Endpoints', quote: '`200`, empty body; the signal is durably recorded, not yet delivered or processed' },
  judgement: {
    record: "a valid signal with a fresh Idempotency-Key to a mission created with the profile's fixtures.v8.missions.waits body, not cancelled, by its creator; after an earlier accepted signal to that mission, 409 is accepted too",
    judge(j) {
      waitingSignals(j, (ex, body, acceptedBefore) => {
        if (!parsedAs(signalRequest, body).success || mayBeRefused(ex, body)) return;
        const payload = isRecord(body) ? body.payload : undefined;
        const kind = Array.isArray(payload) ? 'array' : typeof payload;
        // "Transitions out of `waiting` (for example on receipt of a signal): not shown": once a signal was
        // accepted the mission may have ended, and "A signal to a mission in a terminal state gives `409`".
        const ok = ex.status === 200 || (acceptedBefore !== undefined && ex.status === 409);
        const expected = acceptedBefore ? `200 (or 409: the signal of exchange #${acceptedBefore.index} may have ended the mission)` : '200';
        if (!j.check(ex, ok, `a signal with a ${kind} payload answered ${ex.status}, expected ${expected}`, acceptedBefore ? [acceptedBefore] : undefined) || ex.status !== 200) return;
        const text = wholeBody(j, ex);
        if (text !== undefined) j.check(ex, text.length === 0, `the signal response has a body (${text.length} bytes), expected an empty body`);
      });
    },
  },
  async provoke(ctx) {
    // One mission per payload kind: a first signal may be what the mission waits for and end it.
    for (const payload of [{ approved: true }, ['a', 1], 'text', 42, false]) {
      const mission = await createMission(ctx, 'waits');
      await postSignal(ctx, mission.runId, { signal: 'apicert.probe', payload }, newKey(), `signal with a ${Array.isArray(payload) ? 'array' : typeof payload} payload`);
    }
  },
});

export const signalValidation = rule({
  id: 'v8.missions.signals.validation',
  title: 'A signal without signal or payload, or with a name over 256 characters, answers 400, an empty name a 4xx; 256 characters is accepted',
  level: 'required',
  needs: { fixtures: ['v8.missions.waits'] },
  spec: {
    section: 'Errors; Resources > Signal request',
    quote: '`400` missing fields or `signal` over 256 chars … signal | string | yes | 1-256 chars',
  },
  judgement: {
    record: "a signal with a fresh Idempotency-Key to a mission created with the profile's fixtures.v8.missions.waits body, not cancelled, by its creator",
    judge(j) {
      waitingSignals(j, (ex, body, acceptedBefore) => {
        const parsed = parsedAs(signalRequest, body);
        if (parsed.success) {
          // Only the edge case is this rule's: the 256-character name is accepted (or meets a mission an earlier accepted signal may have ended: 409).
          if (parsed.data.signal.length === 256 && !mayBeRefused(ex, body)) {
            j.check(ex, ex.status === 200 || (acceptedBefore !== undefined && ex.status === 409), `a 256-character signal name answered ${ex.status}, expected 200`, acceptedBefore ? [acceptedBefore] : undefined);
          }
          return;
        }
        if (!isRecord(body)) return;
        const name = body.signal;
        const why = !('signal' in body) ? 'no signal' : !('payload' in body) ? 'no payload' : typeof name === 'string' && name.length > 256 ? `a ${name.length}-character signal name` : undefined;
        if (why !== undefined) j.check(ex, ex.status === 400, `a signal with ${why} answered ${ex.status}, expected 400`);
        // "1-256 chars" makes an empty name a refusal, but the error table names 400 only for missing fields and names over 256: any 4xx.
        else if (name === '') j.check(ex, ex.status !== undefined && ex.status >= 400 && ex.status < 500, `a signal with an empty name answered ${ex.status}, expected a 4xx refusal`);
      });
    },
  },
  async provoke(ctx) {
    const mission = await createMission(ctx, 'waits');
    const bad: Array<[string, unknown]> = [
      ['no signal', { payload: { a: 1 } }],
      ['no payload', { signal: 'apicert.probe' }],
      ['an empty signal name', { signal: '', payload: {} }],
      ['a 257-character signal name', { signal: 's'.repeat(257), payload: {} }],
    ];
    for (const [why, body] of bad) await postSignal(ctx, mission.runId, body, newKey(), `signal with ${why}`);
    await postSignal(ctx, mission.runId, { signal: 's'.repeat(256), payload: {} }, newKey(), 'signal with a 256-character name');
  },
});

export const signalTerminal = rule({
  id: 'v8.missions.signals.terminal-409',
  title: 'A signal to a mission seen terminal (succeeded; failed, given the fails fixture) answers 409',
  level: 'required',
  needs: { fixtures: ['v8.missions.succeeds'] },
  spec: { section: 'Endpoints > Rules 4', quote: 'A signal to a mission in a terminal state gives `409`.' },
  judgement: {
    record: 'a well-formed POST /v8/missions/{runId}/signals (a fresh well-formed Idempotency-Key, a body the signal request schema admits, from a caller holding missions:write, nothing else a deployment may refuse it for) sent after an earlier exchange showed that mission terminal (its terminal event, or a read answering succeeded, failed or cancelled)',
    judge(j) {
      // Chosen by the request (a signal with a key not used before: a replay answers the original response) and what the exchanges before it showed, never by its answer.
      const used = new Set<string>();
      const callers = new Callers(j);
      const observed = new Set<string>();
      withTerminalBeforeOn(j.exchanges, 'v8.missions.signals', (ex, terminal) => {
        if (operation(ex) !== 'v8.missions.signals') return;
        const key = `${callerOf(ex)}\n${ex.path}\n${ex.requestHeaders['idempotency-key'] ?? ''}`;
        const replay = used.has(key);
        used.add(key);
        if (!terminal || replay || ex.status === undefined) return;
        // "A token without the scope required for the endpoint gives `403`", and the signal row's errors name `400` (missing
        // fields, a name over 256 characters), `401`, `403` and `409` in no order: a request another cause fits may get that answer first.
        const other = callers.holds(ex, 'missions:write') ? undefined : 'a caller without missions:write (none, expired, or lacking the scope)';
        const missing = other === undefined ? requestBodyMissing(ex) : undefined;
        if (missing !== undefined) return j.lacks(ex, `the signal's body, which tells whether only the terminal state may refuse it: ${missing}`);
        const refusable = other ?? otherCauseOfRefusal(ex, endpointOf(ex.method, ex.path)!);
        if (refusable !== undefined) {
          // Which refusal a deployment gives first is its own: what it gave is recorded, once per cause and answer (a limiter's aside).
          const seen = `${refusable}\n${ex.status}`;
          if (!observed.has(seen) && ex.status !== 429) j.observe(`a signal to an ended mission with ${refusable} answered`, ex.status, 'the error table orders none of its causes: not judged');
          observed.add(seen);
          return;
        }
        if (limiterRefused(j, ex)) return;
        j.check(ex, ex.status === 409, `a well-formed signal to mission ${missionOf(ex)}, ${terminal.status} as exchange #${terminal.seenOn.index} showed, answered ${ex.status}, expected 409`, [terminal.seenOn]);
      });
    },
  },
  async provoke(ctx) {
    const mission = await createMission(ctx, 'succeeds');
    const ended = await followToTerminal(ctx, mission.runId, 'succeeds');
    await postSignal(ctx, mission.runId, { signal: 'apicert.late', payload: { late: true } }, newKey(), 'signal a terminal mission');
    // The sentence holds for every terminal state; the "fails" fixture reaches the other one a create can aim at.
    // Without it (or when it does not end) the succeeded case above is still judged: the observation says which were signalled.
    const failing = await endedFailsMission(ctx);
    if (typeof failing === 'string') return ctx.observe('terminal events before a signal', [ended.terminal], failing);
    await postSignal(ctx, failing.runId, { signal: 'apicert.late', payload: { late: true } }, newKey(), `signal a terminal mission (the "fails" mission, after ${failing.terminal})`);
    ctx.observe('terminal events before a signal', [ended.terminal, failing.terminal]);
  },
});

/** A mission made with the "fails" fixture, followed to its terminal event; else why not (the rule stays judged on the other mission). */
async function endedFailsMission(ctx: CheckContext): Promise<{ runId: string; terminal: string } | string> {
  const body = ctx.profile.fixtures.v8.missions.fails;
  if (!body) return 'no fixtures.v8.missions.fails: no signal was sent to a failed mission';
  const created = await postMission(ctx, body, { label: 'setup: create the "fails" mission' });
  const parsed = created.status === 202 ? missionProjection.safeParse(created.json) : undefined;
  if (!parsed?.success) return `creating the "fails" fixture mission answered ${created.status}${created.status === 202 ? ' without a mission projection' : ''}: no signal was sent to a failed mission`;
  const stream = await followEvents(ctx, parsed.data.runId, { label: 'follow the "fails" mission to its end' });
  const terminal = stream.events.find((e) => isTerminalEvent(e.event))?.event;
  if (stream.status !== 200 || terminal === undefined) return `the "fails" mission's stream answered ${stream.status} and showed no terminal event within safety.streamTimeoutMs: no signal was sent to it`;
  return { runId: parsed.data.runId, terminal };
}

export const signalConflict = rule({
  id: 'v8.missions.signals.idempotency-conflict',
  title: 'A signal that reuses a key with another body answers 409',
  level: 'required',
  needs: { fixtures: ['v8.missions.waits'] },
  spec: { section: 'Errors', quote: '`409` terminal mission or different body with same key' },
  judgement: {
    record: 'a signal sent twice to one mission by one caller with the same Idempotency-Key and different bodies, the first accepted',
    judge(j) {
      judgeIdempotency(j, { operation: 'v8.missions.signals', keyOf: signalKey, judge: 'conflict', conflictJudged: admissibleBody(signalRequest) });
    },
  },
  async provoke(ctx) {
    const mission = await createMission(ctx, 'waits');
    const key = newKey();
    const first = await setupSent(ctx, 'the original signal', () => postSignal(ctx, mission.runId, { signal: 'apicert.first', payload: { n: 1 } }, key, 'signal (original)'));
    if (first.status !== 200) ctx.inconclusive(`setup failed: the original signal answered ${first.status}`);
    await postSignal(ctx, mission.runId, { signal: 'apicert.second', payload: { n: 2 } }, key, 'signal (same key, another body)');
  },
});

export const signalReplay = rule({
  id: 'v8.missions.signals.replay',
  title: 'A signal sent again with the same key and body returns the original response (409 only once the mission may have ended)',
  level: 'required',
  needs: { fixtures: ['v8.missions.waits'] },
  spec: { section: 'Endpoints > Rules 3', quote: 'Replay with the same key and the same body returns the original response without re-executing.' },
  judgement: {
    record: 'a signal sent again to one mission by one caller with the Idempotency-Key and body of an accepted one (for a 409, a read of the mission by that caller sent after it)',
    judge(j) {
      // "A signal to a mission in a terminal state gives `409`" does not say whether the terminal state or the key is
      // looked at first (the lifecycle model accepts both): a replay to a mission that may have ended may answer 409. The
      // original signal may itself have ended it unseen ("Transitions out of `waiting` ...: not shown"), so a 409 fails
      // only where a read sent after the replay ended shows the mission not terminal: terminal states never change back.
      const terminalBefore = new Set<Exchange>();
      withTerminalBeforeOn(j.exchanges, 'v8.missions.signals', (ex, terminal) => {
        if (terminal && operation(ex) === 'v8.missions.signals') terminalBefore.add(ex);
      });
      const liveReads = new Map<string, Array<{ read: Exchange; status: string }>>();
      for (const ex of exchangesOf(j.exchanges, 'v8.missions.get')) {
        if (operation(ex) !== 'v8.missions.get' || ex.status !== 200) continue;
        const parsed = parsedAs(missionProjection, responseJson(ex));
        if (!parsed.success || (TERMINAL_STATUSES as readonly string[]).includes(parsed.data.status)) continue;
        const at = `${callerOf(ex)}\n${missionOf(ex)}`;
        liveReads.set(at, [...(liveReads.get(at) ?? []), { read: ex, status: parsed.data.status }]);
      }
      judgeIdempotency(j, {
        operation: 'v8.missions.signals',
        keyOf: signalKey,
        judge: 'replay',
        sameAnswer(first, later, judge) {
          if (later.status !== 409) return sameStatusAndBody(first, later, judge);
          const alive = terminalBefore.has(later) ? undefined : (liveReads.get(`${callerOf(later)}\n${missionOf(later)}`) ?? []).find((r) => surelyStartsAfterEnd(r.read, later));
          if (!alive) {
            judge.observe('a replayed signal to a mission that may have ended answered', 409, 'the terminal state checked before the idempotency record');
            return undefined;
          }
          return `answered 409, yet the mission read back ${alive.status} on exchange #${alive.read.index}, sent after this replay ended: it was not terminal, so the replay owed the original response`;
        },
      });
    },
  },
  async provoke(ctx) {
    const mission = await createMission(ctx, 'waits');
    const key = newKey();
    const body = { signal: 'apicert.replayed', payload: { n: 1 } };
    const first = await setupSent(ctx, 'the original signal', () => postSignal(ctx, mission.runId, body, key, 'signal (original)'));
    if (first.status !== 200) ctx.inconclusive(`setup failed: the original signal answered ${first.status}`);
    await postSignal(ctx, mission.runId, body, key, 'signal (replay, same key and body)');
    // What the mission is after the replay: a 409 replay is judged only against a read that surely began after it ended.
    await ctx.sleep(20);
    await getMission(ctx, mission.runId, writer(ctx), 'read the mission after the replay');
    // Once the stream showed the mission ended, a replay may meet the terminal state first (409) or the key (the original).
    await ctx.http.send({ method: 'POST', path: `${MISSIONS}/${mission.runId}/cancel`, credential: writer(ctx), headers: { 'idempotency-key': newKey() }, label: 'cancel the signalled mission' });
    const ended = await followEvents(ctx, mission.runId, { label: 'follow the signalled mission to its end' });
    if (ended.events.some((e) => isTerminalEvent(e.event))) await postSignal(ctx, mission.runId, body, key, 'signal (replay, same key and body, after the mission ended)');
  },
});

/** The key is the mission's: the same key on another mission's signal is another request. */
function signalKey(ex: Exchange): string | undefined {
  const key = ex.requestHeaders['idempotency-key'];
  return key === undefined ? undefined : `${ex.path}\n${key}`;
}


/**
 * Every keyed signal with a fresh key, from a caller holding missions:write, to a mission that
 * caller created with the profile's "waits" fixture (one that waits until cancelled or signalled:
 * how it leaves `waiting` is not shown) and did not cancel, while no exchange showed it ended. With
 * it, a signal to that mission answered 200 that may have come first (`acceptedBefore`): after it
 * the mission may have left `waiting`. Without that fixture the rule is untestable.
 */
function waitingSignals(j: Judge, each: (ex: Exchange, body: unknown, acceptedBefore: Exchange | undefined) => void): void {
  // A cancel sent before a signal ended may overtake it (the signal then meets an ended mission): those signals are not picked.
  const cancels = new Map<string, Exchange[]>();
  const accepted = new Map<string, Exchange[]>();
  for (const ex of exchangesOf(j.exchanges, 'v8.missions.cancel')) {
    const runId = missionOf(ex);
    if (runId !== undefined) cancels.set(runId, [...(cancels.get(runId) ?? []), ex]);
  }
  for (const ex of exchangesOf(j.exchanges, 'v8.missions.signals')) {
    const runId = missionOf(ex);
    if (runId !== undefined && ex.status === 200) accepted.set(runId, [...(accepted.get(runId) ?? []), ex]);
  }
  const used = new Set<string>();
  withMissionsOn(j, 'v8.missions.signals', (ex, seen, callers) => {
    const key = ex.requestHeaders['idempotency-key'];
    if (operation(ex) !== 'v8.missions.signals' || key === undefined || !idempotencyKey.safeParse(key).success || ex.status === undefined) return;
    if ((cancels.get(missionOf(ex)!) ?? []).some((c) => !surelyStartsAfterEnd(c, ex))) return;
    const scoped = `${callerOf(ex)}\n${ex.path}\n${key}`;
    const fresh = !used.has(scoped);
    used.add(scoped);
    if (!fresh || !seen.creator || seen.cancelled || seen.terminal || ex.status === 429 || !callers.holds(ex, 'missions:write')) return;
    // Which mission waits is not in the traffic: the profile's fixture says it (asked only once there is a signal to judge).
    if (!j.profile?.fixtures.v8.missions.waits) j.untestable({ need: 'fixture', path: 'v8.missions.waits', remedy: 'give the profile (--profile FILE) whose fixture created the waiting mission' });
    if (!sentFixture(j, seen.createBody, 'waits')) return;
    const missing = requestBodyMissing(ex);
    if (missing !== undefined) return j.lacks(ex, `the signal's body: ${missing}`);
    // Chosen by the requests: another signal to the mission, accepted, that did not surely start after this one ended.
    const acceptedBefore = (accepted.get(missionOf(ex)!) ?? []).find((other) => other !== ex && !surelyStartsAfterEnd(other, ex));
    each(ex, requestJson(ex), acceptedBefore);
  });
}
