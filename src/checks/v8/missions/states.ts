/** Resources > Mission projection (sequence) and States and transitions (time limit). */
import { section } from '../../../rule/index.ts';
import { missionProjection, TERMINAL_STATUSES, type MissionProjection } from '../../../contract/v8/missions.ts';
import { createMission, followToTerminal, getMission, pollMission, writer } from '../support/missions.ts';

const rule = section({ destructive: 'mutate', surface: 'v8', document: 'v8-integration-gateway.md', needs: { credentials: ['v8:holding:missions:write+missions:read'] } });

export const sequenceMonotonic = rule({
  id: 'v8.missions.sequence.monotonic',
  title: 'sequence never decreases across reads, and a changed state carries a higher sequence',
  level: 'required',
  needs: { fixtures: ['v8.missions.succeeds'] },
  spec: { section: 'Resources > Mission projection', quote: 'monotonically increasing; a higher value is a later state' },
  async check(ctx) {
    const created = await createMission(ctx, 'succeeds');
    const reads = await pollMission(ctx, created.runId, (p) => (TERMINAL_STATUSES as readonly string[]).includes(p.status), ctx.profile.safety.streamTimeoutMs, 5);
    const final = await getMission(ctx, created.runId, writer(ctx), 'read the finished mission');
    const projections: MissionProjection[] = [created];
    for (const [i, json] of [...reads, final.json].entries()) projections.push(ctx.expectShape(missionProjection, json, `read #${i + 1}`));
    const states = new Set(projections.map((p) => `${p.status}|${JSON.stringify(p.steps)}`));
    if (states.size < 2) ctx.untestable({ need: 'fixture', path: 'v8.missions.succeeds', problem: 'gave a mission that showed a single state across every read, so no later state could be compared', remedy: 'give a fixture that runs long enough to be read twice' });
    for (let i = 1; i < projections.length; i += 1) {
      const before = projections[i - 1]!;
      const after = projections[i]!;
      ctx.check(after.sequence >= before.sequence, `sequence went from ${before.sequence} to ${after.sequence} (${before.status} → ${after.status})`);
      const changed = before.status !== after.status || JSON.stringify(before.steps) !== JSON.stringify(after.steps);
      ctx.check(!changed || after.sequence > before.sequence, `the state changed (${before.status}, ${before.steps.length} steps → ${after.status}, ${after.steps.length} steps) but sequence stayed ${after.sequence}`);
    }
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
  async check(ctx) {
    const mission = await createMission(ctx, 'timeLimit');
    const stream = await followToTerminal(ctx, mission.runId, 'timeLimit');
    ctx.expect(
      stream.terminal === 'mission.cancelled' || stream.terminal === 'mission.failed',
      `the mission ran past its time limit and ended with ${stream.terminal}, expected mission.cancelled or mission.failed`,
    );
    ctx.observe('time limit reading', stream.terminal === 'mission.cancelled' ? 'cancelled' : 'failed', 'the seed states cancelled for the time limit and failed for limits in general');
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
  async check(ctx) {
    const cases = [
      { fixture: 'succeeds', event: 'mission.completed', status: 'succeeded' },
      { fixture: 'fails', event: 'mission.failed', status: 'failed' },
    ] as const;
    for (const c of cases) {
      const mission = await createMission(ctx, c.fixture);
      const stream = await followToTerminal(ctx, mission.runId, c.fixture);
      // A fixture that ends another way did not set up this case; the target may still be right.
      if (stream.terminal !== c.event) ctx.untestable({ need: 'fixture', path: `v8.missions.${c.fixture}`, problem: `gave a mission that ended with ${stream.terminal}, not ${c.event}`, remedy: `give a fixture that ${c.status === 'failed' ? 'fails' : 'succeeds'}` });
      const res = await getMission(ctx, mission.runId, writer(ctx), `read the ${c.status} mission`);
      const projection = ctx.expectShape(missionProjection, res.json, `the mission after ${c.event}`);
      ctx.check(projection.status === c.status, `after ${c.event} the mission reads back as ${projection.status}, expected ${c.status}`, res);
    }
  },
});
