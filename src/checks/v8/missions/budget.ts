/** Resources > Goal specification and budget; States and transitions: the step and tool-call budgets a create sent. */
import { z } from 'zod';
import { section, type CheckContext, type Exchange, type SseEvent } from '../../../rule/index.ts';
import { missionProjection } from '../../../contract/v8/missions.ts';
import { answerJson, dataOf, exchangesOf, hasWholeBody, keptEvents, operation, parsedAs, requestBodyMissing, requestJson, responseJson, startsAfterEnd } from '../../../traffic/read.ts';
import { isRecord } from '../../../util/json.ts';
import { createMission, fixture, followToTerminal, getMission, isTerminalEvent, postMission, writer } from '../support/missions.ts';
import { readTraceIndexed } from '../support/read.ts';
import { stepTraces } from '../../../traffic/trace-naming.ts';
import { createdMission, missionOf, sentFixture, terminalShown, withMissions, withSeenTraces } from '../support/traffic.ts';
import { setupSent } from '../support/limiter.ts';

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

/** The maximumToolCalls a create sent, when it is one the budget allows ("integer | yes | at least 0"). */
function maximumToolCallsOf(body: unknown): number | undefined {
  const calls = isRecord(body) && isRecord(body.resourceBudget) ? body.resourceBudget.maximumToolCalls : undefined;
  return typeof calls === 'number' && Number.isInteger(calls) && calls >= 0 ? calls : undefined;
}

/** What the rule reads of a trace: its mission and its operations (the trace's own shape is v8.traces.get.ok's). */
const traceToolCalls = z.looseObject({
  missionRunId: z.string(),
  steps: z.array(z.looseObject({ kind: z.unknown().optional(), toolCallId: z.unknown().optional() })),
});

/** The tool calls a mission's traces showed so far: distinct toolCallIds, and tool-call operations without one. */
interface ToolCallsShown {
  ids: Set<string>;
  unnamed: number;
}

export const budgetToolCalls = rule({
  id: 'v8.missions.budget.tool-calls',
  title: "A mission whose traces show more distinct tool calls than the maximumToolCalls its create sent (with 0, any) does not go on to succeed: reaching the budget limit ends it failed",
  // The field is a budget, and "budget limit reached" ends the mission failed: a mission calling tools
  // past the limit and succeeding broke it; "`0` means planning only" leaves no tool call to make. Stated,
  // so required. No sentence says a trace shows only the calls that ran: a runtime may record the call it
  // refused at the limit (an id the model asked for) and end the mission failed, which is the table's row.
  level: 'required',
  needs: { credentials: ['v8:holding:traces:read'], fixtures: ['v8.missions.succeeds'] },
  spec: {
    section: 'Resources > Goal specification and budget; States and transitions; Resources > Trace',
    quote: 'resourceBudget.maximumToolCalls | integer | yes | at least 0; `0` means planning only … `running` or `waiting` | budget limit reached, policy rejection or unrecoverable error | | `failed` … `toolCallId` (string; present for `tool-call`)',
  },
  judgement: {
    record: 'a GET /v8/traces/{traceId} answered 200 of a mission whose create (answered 202, its body recorded) came earlier: the mission a step event of its stream named the trace for, else the trace\'s missionRunId',
    judge(j) {
      // Run ids are unique: whoever reads a trace, its mission's budget is the one that mission's create sent.
      const creates = new Map<string, Exchange>();
      for (const ex of exchangesOf(j.exchanges, 'v8.missions.create')) {
        const made = createdMission(ex);
        if (made && !creates.has(made.runId)) creates.set(made.runId, ex);
      }
      if (creates.size === 0) return;
      // How each mission was shown to end, wherever in the journal: over the limit, only `failed` is the budget's ending.
      const ends = new Map<string, string>();
      for (const ex of j.exchanges) {
        const end = terminalShown(ex);
        if (!end) continue;
        const runId = missionOf(ex);
        if (runId !== undefined && !ends.has(runId)) ends.set(runId, end.status);
      }
      const shown = new Map<string, ToolCallsShown>();
      withSeenTraces(j, (ex, seen) => {
        if (ex.status !== 200) return;
        // The mission a step event named the trace for is known from the exchanges before; else only the answer names it.
        if (seen && !creates.has(seen.runId)) return;
        if (!seen && !hasWholeBody(ex)) return j.lacks(ex, 'the trace\'s body, which names its mission');
        const parsed = parsedAs(traceToolCalls, answerJson(j, ex));
        if (!parsed.success) return;
        const runId = seen?.runId ?? parsed.data.missionRunId;
        const creator = creates.get(runId);
        if (!creator || !startsAfterEnd(ex, creator)) return;
        const unkept = requestBodyMissing(creator);
        if (unkept !== undefined) return j.lacks(ex, `the create body of exchange #${creator.index}, which holds the budget: ${unkept}`);
        const limit = maximumToolCallsOf(requestJson(creator));
        if (limit === undefined) return;
        const so = shown.get(runId) ?? { ids: new Set<string>(), unnamed: 0 };
        shown.set(runId, so);
        for (const op of parsed.data.steps) {
          if (op.kind !== 'tool-call') continue;
          // A tool-call without its toolCallId is v8.traces.get.ok's failure; here it is a tool call all the same, counted once per read.
          if (typeof op.toolCallId === 'string') so.ids.add(op.toolCallId);
          else so.unnamed += 1;
        }
        const calls = limit === 0 ? so.ids.size + so.unnamed : so.ids.size;
        if (calls <= limit) {
          j.check(ex, true, `mission ${runId}'s traces show ${calls} tool call(s), within its maximumToolCalls ${limit}`);
          return;
        }
        const over = limit === 0 ? `was created with maximumToolCalls 0 (exchange #${creator.index}), "planning only", and its traces show ${calls} tool-call operation(s)` : `'s traces show ${calls} distinct tool calls (${[...so.ids].slice(0, 5).join(', ')}${calls > 5 ? ', ...' : ''}), more than the maximumToolCalls ${limit} its create (exchange #${creator.index}) sent`;
        const end = ends.get(runId);
        // The call past the limit may be one the runtime refused and recorded: the mission's end tells.
        if (end === undefined) return j.lacks(ex, `the end of mission ${runId}, whose traces show more tool calls than its budget: ending failed, the budget limit was reached; going on to succeed, it was passed`);
        if (end === 'cancelled') {
          // "`maximumElapsedMs` elapses | regardless of step and tool-call counts | `cancelled`", and a cancel may come first: not the budget's ending.
          j.observe('mission over its tool-call budget ended', 'cancelled', 'the time limit or a cancel may have ended it before the budget limit did');
          return;
        }
        j.check(ex, end === 'failed', `mission ${runId}${over}, and it ended ${end}: reaching the budget limit ends a mission failed`, [creator]);
      });
    },
  },
  async provoke(ctx: CheckContext) {
    // The "succeeds" mission under a budget of 0 and of 1 tool call: a goal needing tools shows whether its calls stop at the limit.
    const base = fixture(ctx, 'succeeds');
    for (const limit of [0, 1]) {
      const body = { ...base, resourceBudget: { ...base.resourceBudget, maximumToolCalls: limit } };
      const res = await setupSent(ctx, `creating the "succeeds" mission with maximumToolCalls ${limit}`, () => postMission(ctx, body, { label: `create the "succeeds" mission with maximumToolCalls ${limit}` }));
      const made = missionProjection.safeParse(res.json);
      if (res.status !== 202 || !made.success) ctx.inconclusive(`setup failed: creating the "succeeds" mission with maximumToolCalls ${limit} answered ${res.status}${res.status === 202 ? ' without a mission projection' : ', not 202'}`);
      const stream = await followToTerminal(ctx, made.data.runId, 'succeeds');
      const namedBy = Date.now();
      const calls = new Set<string>();
      for (const t of stepTraces(stream.events)) {
        const read = await readTraceIndexed(ctx, t.traceId, `read the trace of ${t.traceId} (maximumToolCalls ${limit})`, namedBy);
        const shown = traceToolCalls.safeParse(read.json);
        for (const op of shown.success ? shown.data.steps : []) if (op.kind === 'tool-call') calls.add(typeof op.toolCallId === 'string' ? op.toolCallId : `unnamed-${calls.size}`);
      }
      // A goal that needs no tool shows nothing against the limit: the count says whether the budget was tested.
      ctx.observe(`tool calls shown under maximumToolCalls ${limit}`, calls.size, `the mission ended with ${stream.terminal}`);
    }
  },
});
