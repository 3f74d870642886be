/** Resources > Mission projection (sequence) and States and transitions (time limit). */
import { section, type Exchange } from '../../../rule/index.ts';
import { missionProjection, TERMINAL_STATUSES, type MissionProjection } from '../../../contract/v8/missions.ts';
import { endedStream, operation, parsedAs, responseJson, startsAfterEnd } from '../../../traffic/read.ts';
import { canonicalJson } from '../../../util/json.ts';
import { createMission, followToTerminal, getMission, isTerminalEvent, pollMission, writer } from '../support/missions.ts';
import { judgeReadsAfterTerminal, sentFixture, withMissionsOn } from '../support/traffic.ts';

/** The steps as the projection's table states them: `stepId` and `status`, in order. */
function stepStates(p: MissionProjection): string {
  return canonicalJson(p.steps.map((step) => [step.stepId, step.status]));
}

const rule = section({ destructive: 'mutate', surface: 'v8', document: 'v8-integration-gateway.md', needs: { credentials: ['v8:holding:missions:write+missions:read'] } });

export const sequenceMonotonic = rule({
  id: 'v8.missions.sequence.monotonic',
  title: 'sequence never decreases across reads, and a changed state carries a higher sequence',
  level: 'required',
  needs: { fixtures: ['v8.missions.succeeds'] },
  spec: { section: 'Resources > Mission projection', quote: 'monotonically increasing; a higher value is a later state' },
  judgement: {
    record: 'a mission read more than once (its create answer, then GET /v8/missions/{runId})',
    judge(j) {
      // The first create answer and every read, in journal order; a replayed create answers an old state on purpose.
      const seen = new Map<string, { p: MissionProjection; ex: Exchange }>();
      for (const ex of j.exchanges) {
        const op = operation(ex);
        if (!((op === 'v8.missions.create' && ex.status === 202) || (op === 'v8.missions.get' && ex.status === 200))) continue;
        const parsed = parsedAs(missionProjection, responseJson(ex));
        if (!parsed.success) continue;
        const p = parsed.data;
        const before = seen.get(p.runId);
        if (op === 'v8.missions.create' && before) continue;
        seen.set(p.runId, { p, ex });
        if (!before || !startsAfterEnd(ex, before.ex)) continue;
        j.check(ex, p.sequence >= before.p.sequence, `mission ${p.runId}: sequence went from ${before.p.sequence} (exchange #${before.ex.index}) to ${p.sequence} (${before.p.status} → ${p.status})`, [before.ex]);
        // The state is the status and the steps (each its stepId and status); other step properties are open and may change freely.
        const changed = before.p.status !== p.status || stepStates(before.p) !== stepStates(p);
        j.check(ex, !changed || p.sequence > before.p.sequence, `mission ${p.runId}: the state changed (${before.p.status}, ${before.p.steps.length} steps → ${p.status}, ${p.steps.length} steps) but sequence stayed ${p.sequence}`, [before.ex]);
      }
    },
  },
  async provoke(ctx) {
    const created = await createMission(ctx, 'succeeds');
    await pollMission(ctx, created.runId, (p) => (TERMINAL_STATUSES as readonly string[]).includes(p.status), ctx.profile.safety.streamTimeoutMs, 5);
    await getMission(ctx, created.runId, writer(ctx), 'read the finished mission');
  },
});

export const timeLimit = rule({
  id: 'v8.missions.time-limit.terminal',
  title: 'A mission whose maximumElapsedMs elapses ends cancelled or failed (both readings accepted)',
  level: 'required',
  needs: { fixtures: ['v8.missions.timeLimit'] },
  spec: {
    section: 'States and transitions',
    quote: '`maximumElapsedMs` elapses | regardless of step and tool-call counts | `cancelled` (as stated for the time limit; the budget text also lists limits generally as leading to `failed`)',
  },
  judgement: {
    record: "the event stream, up to its terminal event, of a mission created with the profile's fixtures.v8.missions.timeLimit body",
    judge(j) {
      // Which mission runs past its time limit is not in the traffic: the profile's fixture names its body.
      withMissionsOn(j, 'v8.missions.events', (ex, seen) => {
        if (operation(ex) !== 'v8.missions.events' || ex.status !== 200 || !seen.creator || seen.cancelled) return;
        if (!j.profile?.fixtures.v8.missions.timeLimit) j.untestable({ need: 'fixture', path: 'v8.missions.timeLimit', remedy: 'give the profile (--profile FILE) whose fixture created the time-limited mission' });
        if (!sentFixture(j, seen.createBody, 'timeLimit')) return;
        // A stream its reader stopped before the terminal event (the time limit may outlast the stream timeout) lacks its end.
        const stream = endedStream(j, ex, (e) => isTerminalEvent(e.event));
        const terminal = stream?.events[stream.terminal];
        if (!terminal) return;
        j.check(ex, terminal.event === 'mission.cancelled' || terminal.event === 'mission.failed', `the mission ran past its time limit and ended with ${terminal.event}, expected mission.cancelled or mission.failed`, [seen.creator]);
        j.observe('time limit reading', terminal.event === 'mission.cancelled' ? 'cancelled' : 'failed', 'the seed states cancelled for the time limit and failed for limits in general');
      });
    },
  },
  async provoke(ctx) {
    const mission = await createMission(ctx, 'timeLimit');
    await followToTerminal(ctx, mission.runId, 'timeLimit');
  },
});

export const terminalConsistent = rule({
  id: 'v8.missions.states.terminal-event-matches-status',
  title: 'A mission that succeeds emits mission.completed and reads back succeeded; one that fails emits mission.failed and reads back failed',
  level: 'required',
  needs: { fixtures: ['v8.missions.fails', 'v8.missions.succeeds'] },
  spec: {
    section: 'Events; States and transitions',
    quote: '`mission.completed` | mission reached `succeeded`; stream closes … `mission.failed` | mission reached `failed`; stream closes',
  },
  judgement: {
    record: "a mission's event stream up to mission.completed or mission.failed, then a GET /v8/missions/{runId} by the same caller",
    judge: (j) => judgeReadsAfterTerminal(j, (status) => status === 'succeeded' || status === 'failed'),
  },
  async provoke(ctx) {
    for (const name of ['succeeds', 'fails'] as const) {
      const mission = await createMission(ctx, name);
      await followToTerminal(ctx, mission.runId, name);
      await getMission(ctx, mission.runId, writer(ctx), `read the ${name === 'fails' ? 'failed' : 'succeeded'} mission`);
    }
  },
});
