/** States and transitions: POST /v8/missions/{runId}/cancel. */
import { mediaType, section, type Exchange } from '../../../rule/index.ts';
import { answerJson, endedStream, operation, parsedAs, startsAfterEnd } from '../../../traffic/read.ts';
import { missionOf, sentFixture, withMissions } from '../support/traffic.ts';
import { missionProjection } from '../../../contract/v8/missions.ts';
import { createMission, followEvents, getMission, isTerminalEvent, newKey, writer, MISSIONS } from '../support/missions.ts';
import { judgeIdempotency } from '../../../traffic/idempotency.ts';
import { setupSent } from '../support/limiter.ts';

const rule = section({ destructive: 'mutate', surface: 'v8', document: 'v8-integration-gateway.md', needs: { credentials: ['v8:holding:missions:write+missions:read'], fixtures: ['v8.missions.cancellable'] } });

export const cancelled = rule({
  id: 'v8.missions.cancel.cancelled',
  title: 'Cancel moves a running mission to cancelled and emits mission.cancelled',
  level: 'required',
  spec: {
    section: 'States and transitions',
    quote: '`POST /v8/missions/{runId}/cancel` | | `cancelled` | event `mission.cancelled`',
  },
  judgement: {
    record: "a keyed POST /v8/missions/{runId}/cancel by the creator of a mission made with the profile's fixtures.v8.missions.cancellable body, then its event stream or a read",
    judge(j) {
      // Which mission is still running when cancelled is not in the traffic: the profile's fixture names one that runs for seconds.
      const accepted = new Map<string, Exchange>();
      withMissions(j, (ex, seen, callers) => {
        const runId = missionOf(ex)!;
        const op = operation(ex);
        if (op === 'v8.missions.cancel') {
          if (seen.cancelled || seen.terminal || !seen.creator || ex.status === undefined || ex.status === 429 || ex.requestHeaders['idempotency-key'] === undefined) return;
          if (!callers.holds(ex, 'missions:write')) return;
          if (!j.profile?.fixtures.v8.missions.cancellable) j.untestable({ need: 'fixture', path: 'v8.missions.cancellable', remedy: 'give the profile (--profile FILE) whose fixture created the cancelled mission' });
          if (!sentFixture(j, seen.createBody, 'cancellable')) return;
          // "Cancel request body and response body: not shown."
          j.observe('cancel response', { status: ex.status, contentType: mediaType(ex.responseHeaders), body: ex.responseBody ? 'non-empty' : 'empty' });
          if (ex.status < 200 || ex.status >= 300) return void j.check(ex, false, `cancel answered ${ex.status}, expected a 2xx`);
          // A 2xx is half the case: it is judged with the stream or read that shows the mission cancelled (never alone, were that one cut).
          accepted.set(runId, ex);
          return;
        }
        const cancel = runId === undefined ? undefined : accepted.get(runId);
        if (!cancel || !startsAfterEnd(ex, cancel) || ex.status !== 200) return;
        if (op === 'v8.missions.events') {
          // A stream its reader stopped (apicert's stream timeout, a bound) before any terminal event did not end: endedStream lacks it.
          const stream = endedStream(j, ex, (e) => isTerminalEvent(e.event));
          // Its terminal event, not its last: informational events may follow one ("Events after a terminal event are informational only").
          const terminal = stream?.events[stream.terminal]?.event;
          if (stream) j.check(ex, terminal === 'mission.cancelled', `the stream of the cancelled mission ended with ${terminal ?? 'no terminal event'}, expected mission.cancelled`, [cancel]);
        } else if (op === 'v8.missions.get') {
          const parsed = parsedAs(missionProjection, answerJson(j, ex));
          if (parsed.success) j.check(ex, parsed.data.status === 'cancelled', `the mission reads back as ${parsed.data.status} after cancel, expected cancelled`, [cancel]);
        }
      });
    },
  },
  async provoke(ctx) {
    const mission = await createMission(ctx, 'cancellable');
    await ctx.http.send({
      method: 'POST',
      path: `${MISSIONS}/${mission.runId}/cancel`,
      credential: writer(ctx),
      headers: { 'idempotency-key': newKey() },
      label: 'cancel a running mission',
    });
    await followEvents(ctx, mission.runId, { label: 'follow the cancelled mission' });
    await getMission(ctx, mission.runId);
  },
});

export const cancelReplay = rule({
  id: 'v8.missions.cancel.replay',
  title: 'A cancel sent again with the same key returns the original response',
  level: 'required',
  spec: { section: 'Endpoints > Rules 3', quote: 'Replay with the same key and the same body returns the original response without re-executing.' },
  judgement: {
    record: 'a POST /v8/missions/{runId}/cancel sent again by one caller with the Idempotency-Key and body of an accepted (2xx) one',
    judge(j) {
      // "Cancel request body and response body: not shown": whatever the original answer was, the replay is that answer.
      // The key is the mission's: the same key on another mission's cancel is another request.
      judgeIdempotency(j, { operation: 'v8.missions.cancel', keyOf: (ex) => (ex.requestHeaders['idempotency-key'] === undefined ? undefined : `${ex.path}\n${ex.requestHeaders['idempotency-key']}`), judge: 'replay' });
    },
  },
  async provoke(ctx) {
    const mission = await createMission(ctx, 'cancellable');
    const key = newKey();
    const send = (label: string) => ctx.http.send({ method: 'POST', path: `${MISSIONS}/${mission.runId}/cancel`, credential: writer(ctx), headers: { 'idempotency-key': key }, label });
    const first = await setupSent(ctx, 'the original cancel', () => send('cancel a running mission (original)'));
    if (first.status < 200 || first.status >= 300) ctx.inconclusive(`setup failed: the original cancel answered ${first.status}`);
    await send('cancel again (replay, same key)');
  },
});
