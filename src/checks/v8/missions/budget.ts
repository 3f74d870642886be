/** Resources > Goal specification and budget; States and transitions: the step budget a create sent. */
import { section, type Exchange, type SseEvent } from '../../../rule/index.ts';
import { missionProjection } from '../../../contract/v8/missions.ts';
import { dataOf, keptEvents, operation, parsedAs, requestBodyMissing, responseJson } from '../../../traffic/read.ts';
import { isRecord } from '../../../util/json.ts';
import { createMission, followToTerminal, getMission, isTerminalEvent, writer } from '../support/missions.ts';
import { missionOf, sentFixture, terminalShown, withMissions } from '../support/traffic.ts';

const rule = section({ destructive: 'mutate', surface: 'v8', document: 'v8-integration-gateway.md', needs: { credentials: ['v8:holding:missions:write+missions:read'] } });

/**
 * The steps an exchange shows of its mission: a read's step summaries (distinct stepIds), or the
 * steps a stream saw begin before its terminal event (each `mission.step.started` is "a new
 * reasoning or tool-call step"; told apart by traceId or stepId, else by the event itself).
 */
function stepsShown(ex: Exchange, events: readonly SseEvent[] | undefined): number | undefined {
  if (operation(ex) === 'v8.missions.get') {
    const parsed = parsedAs(missionProjection, responseJson(ex));
    return parsed.success ? new Set(parsed.data.steps.map((s) => s.stepId)).size : undefined;
  }
  if (!events) return undefined;
  const begun = new Set<string>();
  for (const [i, e] of events.entries()) {
    // Events after a terminal event are informational only: they begin no step.
    if (isTerminalEvent(e.event)) break;
    if (e.event !== 'mission.step.started') continue;
    const data = dataOf(e);
    const id = typeof data?.traceId === 'string' ? `trace:${data.traceId}` : typeof data?.stepId === 'string' ? `step:${data.stepId}` : `event:${i}`;
    begun.add(id);
  }
  return begun.size;
}

/** The maximumSteps a create sent, when it is one the budget allows ("integer | yes | at least 1"); other budget fields are not read. */
function maximumStepsOf(body: unknown): number | undefined {
  const steps = isRecord(body) && isRecord(body.resourceBudget) ? body.resourceBudget.maximumSteps : undefined;
  return typeof steps === 'number' && Number.isInteger(steps) && steps >= 1 ? steps : undefined;
}

export const budgetSteps = rule({
  id: 'v8.missions.budget.steps',
  title: 'A mission never shows more steps than the maximumSteps its create sent, and one whose goal needs more ends failed',
  level: 'required',
  needs: { fixtures: ['v8.missions.overBudget'] },
  spec: {
    section: 'Resources > Goal specification and budget; States and transitions',
    quote: 'resourceBudget.maximumSteps | integer | yes | at least 1 … `running` or `waiting` | budget limit reached, policy rejection or unrecoverable error | | `failed` | event `mission.failed`',
  },
  judgement: {
    record: "a read or event stream of a mission by the caller that created it, whose create body was recorded; for the ending, a mission created with the profile's fixtures.v8.missions.overBudget body",
    judge(j) {
      withMissions(j, (ex, seen) => {
        const op = operation(ex);
        if ((op !== 'v8.missions.get' && op !== 'v8.missions.events') || ex.status !== 200 || !seen.creator) return;
        // The budget is what the create sent: without its body the limit is unknown.
        const unkept = requestBodyMissing(seen.creator);
        if (unkept !== undefined) return j.lacks(ex, `the create body of exchange #${seen.creator.index}, which holds the budget: ${unkept}`);
        const limit = maximumStepsOf(seen.createBody);
        if (limit === undefined) return;
        // A stream is judged on what it kept: a prefix shows no more steps than the whole did.
        const events = op === 'v8.missions.events' ? keptEvents(j, ex) : undefined;
        const shown = stepsShown(ex, events);
        if (shown === undefined) return;
        j.check(ex, shown <= limit, `mission ${missionOf(ex)} shows ${shown} steps, more than the maximumSteps ${limit} its create (exchange #${seen.creator.index}) sent: the budget limit was reached and passed`, [seen.creator]);
        // Which goal needs more steps than its budget is not in the traffic: the profile's fixture names its body.
        if (!sentFixture(j, seen.createBody, 'overBudget')) return;
        const terminal = terminalShown(ex);
        if (!terminal || seen.cancelled) return;
        if (terminal.status === 'cancelled') {
          // "`maximumElapsedMs` elapses | regardless of step and tool-call counts | `cancelled`", and a cancel may overlap the stream: not the step limit's ending.
          j.observe('over-budget mission ended', 'cancelled', 'the time limit or a cancel may have ended it before the step limit was reached');
          return;
        }
        j.check(ex, terminal.status === 'failed', `the over-budget mission (fixtures.v8.missions.overBudget: its goal needs more than ${limit} steps) ended ${terminal.status}, expected failed: reaching the budget limit ends a mission failed`, [seen.creator]);
      });
    },
  },
  async provoke(ctx) {
    const mission = await createMission(ctx, 'overBudget');
    await followToTerminal(ctx, mission.runId, 'overBudget');
    await getMission(ctx, mission.runId, writer(ctx), 'read the over-budget mission');
  },
});
