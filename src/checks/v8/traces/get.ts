/** Endpoints: GET /v8/traces/{traceId}; Resources: trace; Events > Rules 3. */
import { z } from 'zod';
import { type CheckContext, type Exchange, section } from '../../../rule/index.ts';
import { trace } from '../../../contract/v8/traces.ts';
import { getMission } from '../support/missions.ts';
import { getTrace, missionWithTraces, randomSuffix, readTraceIndexed, sendPathIdBounds, someTrace, TRACE_INDEX_BOUND_MS } from '../support/read.ts';
import { judgeIdBounds, judgeJsonMediaType, lastSegment, pastIndexBound, withSeenTraces, type SeenTrace } from '../support/traffic.ts';
import { admitted, limiterRefused, stopIfLimited } from '../support/limiter.ts';
import { answerJson, hasWholeBody, issuesOf, parsedAs } from '../../../traffic/read.ts';

const rule = section({ surface: 'v8', document: 'v8-integration-gateway.md', needs: { credentials: ['v8:holding:traces:read'] } });

const NOT_YET = `answered 404 within ${TRACE_INDEX_BOUND_MS / 1000} s of the step event that named it, and no later read was recorded (no sentence says when a trace becomes readable)`;

export const traceOk = rule({
  id: 'v8.traces.get.ok',
  title: 'A step trace answers 200 with traceId, a UUID missionRunId, stepId, a UTC startedAt and operations of documented kinds',
  level: 'required',
  // Every trace read of the run is judged, whichever check sent it: its shape and the mission and step its step event named are in the traffic alone.
  judgesTheRun: true,
  needs: { credentials: ['v8:holding:missions:write+missions:read'], fixtures: ['v8.missions.succeeds'] },
  destructive: 'mutate',
  spec: {
    section: 'Resources > Trace',
    quote:
      'Always present: `traceId` (string), `missionRunId` (UUID string), `stepId` (string), `startedAt` (ISO 8601 UTC), `steps` (array of operations). … `kind` (`observation`, `tool-call`, `sub-step`, `branch`), `toolCallId` (string; present for `tool-call`)',
  },
  judgement: {
    record: "a GET /v8/traces/{traceId} of the profile's fixtures.v8.traceId or of a traceId a step event named earlier, from a caller holding traces:read",
    judge(j) {
      const fixed = j.profile?.fixtures.v8.traceId;
      // Each set of kinds once: the rule judges every trace read of the run, and most show the same kinds.
      const kindsSeen = new Set<string>();
      withSeenTraces(j, (ex, seen, callers) => {
        const asked = lastSegment(ex);
        const known = seen !== undefined || (fixed !== undefined && asked === fixed);
        if (!known || ex.status === undefined || !callers.holds(ex, 'traces:read') || limiterRefused(j, ex)) return;
        if (seen && ex.status === 404 && pastIndexBound(ex, seen.stream) !== true) {
          j.lacks(ex, `trace ${asked} ${NOT_YET}`);
          return;
        }
        if (!j.check(ex, ex.status === 200, `trace ${asked} answered ${ex.status}, expected 200`, seen ? [seen.stream] : [])) return;
        judgeJsonMediaType(j, ex, 'the trace');
        const json = answerJson(j, ex);
        if (json === undefined && !hasWholeBody(ex)) return;
        const parsed = parsedAs(trace, json);
        if (!j.check(ex, parsed.success, `the trace does not have the contract's shape (${parsed.success ? '' : issuesOf(parsed.error)})`) || !parsed.success) return;
        j.check(ex, parsed.data.traceId === asked, `asked for trace ${asked}, got ${parsed.data.traceId}`);
        if (seen) j.check(ex, parsed.data.missionRunId === seen.runId, `the trace names mission ${parsed.data.missionRunId}, but its step event came from ${seen.runId}`, [seen.stream]);
        if (seen?.stepId) j.check(ex, parsed.data.stepId === seen.stepId, `the trace names step ${parsed.data.stepId}, its step event named ${seen.stepId}`, [seen.stream]);
        const kinds = [...new Set(parsed.data.steps.map((op) => op.kind ?? '(none)'))];
        if (kindsSeen.has(JSON.stringify(kinds))) return;
        kindsSeen.add(JSON.stringify(kinds));
        j.observe('operation kinds', kinds);
      });
    },
  },
  async provoke(ctx: CheckContext) {
    const target = await someTrace(ctx);
    await admitted(ctx, () => getTrace(ctx, target.traceId, 'read a step trace'));
  },
});

export const traceResolves = rule({
  id: 'v8.traces.get.resolves',
  title: 'Every traceId of a step event, of completed and failed steps alike, can be read',
  level: 'required',
  // A read another check made of a trace its stream named counts: a 404 long after the step event is the failure, whoever read it.
  judgesTheRun: true,
  needs: { credentials: ['v8:holding:missions:write+missions:read'], fixtures: ['v8.missions.succeeds'] },
  destructive: 'mutate',
  spec: { section: 'Events > Rules 3', quote: 'Each `traceId` in step events can be read at `GET /v8/traces/{traceId}`.' },
  judgement: {
    record: 'a GET /v8/traces/{traceId} of a traceId a step event named earlier, from a caller holding traces:read',
    judge(j) {
      // Judged per traceId over all its reads: readable once a read answered 200; not readable when
      // none did and the last came at least TRACE_INDEX_BOUND_MS after the step event; else not yet known.
      const reads = new Map<SeenTrace, Exchange[]>();
      withSeenTraces(j, (ex, seen, callers) => {
        if (!seen || ex.status === undefined || !callers.holds(ex, 'traces:read') || limiterRefused(j, ex)) return;
        reads.set(seen, [...(reads.get(seen) ?? []), ex]);
      });
      for (const [seen, all] of reads) {
        const read = all.find((ex) => ex.status === 200);
        const last = all.at(-1)!;
        if (read) j.check(read, true, '');
        else if (last.status !== 404 || pastIndexBound(last, seen.stream) === true) {
          j.check(last, false, `traceId ${seen.traceId} from ${seen.event} of mission ${seen.runId} answered ${all.map((ex) => ex.status).join(', ')} (${all.length} read${all.length === 1 ? '' : 's'}, the last ${TRACE_INDEX_BOUND_MS / 1000} s or more after the step event${last.status === 404 ? '' : ' or not a 404'}), expected 200`, [seen.stream]);
        } else j.lacks(last, `traceId ${seen.traceId} ${NOT_YET}`);
      }
    },
  },
  async provoke(ctx: CheckContext) {
    const fixtures = ctx.profile.fixtures.v8.missions.fails ? (['succeeds', 'fails'] as const) : (['succeeds'] as const);
    if (fixtures.length === 1) ctx.observe('fixtures used', fixtures, 'without fixtures.v8.missions.fails only traces of a succeeding mission are read');
    for (const name of fixtures) {
      // The "fails" mission may fail before any step: its traces are read where it named some.
      const { traces, namedBy } = await missionWithTraces(ctx, name, name === 'succeeds');
      if (traces.length === 0) ctx.observe('traceIds named by the "fails" mission', 0, 'it failed before any step event named a trace');
      for (const t of traces) await readTraceIndexed(ctx, t.traceId, `read the trace of ${t.event} (${name} mission)`, namedBy);
    }
  },
});

const traceTiming = z.looseObject({ stepId: z.unknown().optional(), completedAt: z.unknown().optional() });
/** Only the step statuses, for the evidence: the projection's own shape is judged by the missions rules. */
const missionSteps = z.looseObject({ steps: z.array(z.looseObject({ stepId: z.string(), status: z.string() })) });

export const traceCompletedAt = rule({
  id: 'v8.traces.get.completed-at',
  title: 'The trace of a step that did not complete (no mission.step.completed named it) carries no completedAt',
  level: 'required',
  // Any check's read of such a trace shows the break (the budget rules read failed steps' traces): judged over the run, as judge-traffic judges its recording.
  judgesTheRun: true,
  needs: { credentials: ['v8:holding:missions:write+missions:read'], fixtures: ['v8.missions.fails'] },
  destructive: 'mutate',
  spec: { section: 'Resources > Trace', quote: 'Optional: `completedAt` (absent when the step did not complete)' },
  judgement: {
    record: 'a GET /v8/traces/{traceId} answered 200, of a traceId a step event named on a stream that reached its terminal event with no mission.step.completed naming it',
    judge(j) {
      // "The full list of step status values: not shown", so a step's status word cannot say whether
      // it completed; the events can: "`mission.step.completed` | a step finishes successfully".
      // A failed step did not complete in this document's words (audit 124 F9 asked whether ending is
      // completing): its step statuses set `completed` beside `failed`, and that event comes only on
      // success, so a failed or cancelled step's completedAt is no legal reading and gets no variant.
      withSeenTraces(j, (ex, seen) => {
        if (!seen || !seen.ended || seen.completed || ex.status !== 200) return;
        const parsed = parsedAs(traceTiming, answerJson(j, ex));
        if (!parsed.success) return;
        j.check(ex, parsed.data.completedAt === undefined, `trace ${seen.traceId} belongs to a step no mission.step.completed named, yet it has completedAt ${JSON.stringify(parsed.data.completedAt)}`, [seen.stream]);
      });
    },
  },
  async provoke(ctx: CheckContext) {
    const { runId, traces, namedBy } = await missionWithTraces(ctx, 'fails');
    const statusOf = new Map((missionSteps.safeParse((await getMission(ctx, runId)).json).data?.steps ?? []).map((s) => [s.stepId, s.status]));
    const notCompleted = traces.filter((trace) => !trace.completed);
    if (notCompleted.length === 0) ctx.untestable({ need: 'fixture', path: 'v8.missions.fails', problem: 'gave a mission with no readable trace of a step that did not complete', remedy: 'give a fixture whose mission fails during a step' });
    for (const t of notCompleted) await readTraceIndexed(ctx, t.traceId, `read the trace of ${t.traceId} (step status "${statusOf.get(t.stepId ?? '') ?? 'unknown'}")`, namedBy);
  },
});

export const traceUnknown = rule({
  id: 'v8.traces.get.unknown-404',
  title: 'A traceId that names no trace answers 404',
  level: 'required',
  spec: { section: 'Errors', quote: '`GET /v8/traces/{traceId}` | `401`; `403`; `404`' },
  activeOnly: 'that a traceId names no trace is known only to the prober that made it up; a recording cannot show it',
  async check(ctx: CheckContext) {
    const asked = `apicert-unknown-trace-${randomSuffix()}`;
    const res = await admitted(ctx, () => getTrace(ctx, asked, 'read a trace that does not exist'));
    stopIfLimited(ctx, res, 'the read of an unknown traceId');
    ctx.expect(res.status === 404, `an unknown traceId answered ${res.status}, expected 404`);
  },
});

export const tracePathBounds = rule({
  id: 'v8.traces.get.path-bounds',
  title: 'A 256-character traceId is not refused as malformed; a traceId outside 1-256 characters or the pattern is refused with 400 or 404',
  level: 'required',
  spec: {
    section: 'Endpoints; Limits',
    quote: 'path `traceId`: string, 1-256 chars, same pattern … traceId and skillId | 1-256 chars',
  },
  judgement: {
    record: 'a GET /v8/traces/{traceId} with a traceId of 256 characters, or outside 1-256 characters or the pattern, from a caller holding traces:read',
    judge: (j) => judgeIdBounds(j, 'v8.traces.get', 'traces:read', 'traceId'),
  },
  async provoke(ctx: CheckContext) {
    await sendPathIdBounds(ctx, 'traceId', (id, label) => getTrace(ctx, id, label));
  },
});
