/** Endpoints: GET /v8/traces/{traceId}; Resources: trace; Events > Rules 3. */
import { z } from 'zod';
import { type CheckContext, section } from '../../../rule/index.ts';
import { trace } from '../../../contract/v8/traces.ts';
import { getMission } from '../support/missions.ts';
import { getTrace, judgePathIdBounds, missionWithTraces, randomSuffix, someTrace } from '../support/read.ts';

const rule = section({ surface: 'v8', document: 'v8-integration-gateway.md', needs: { credentials: ['v8:holding:traces:read'] } });

export const traceOk = rule({
  id: 'v8.traces.get.ok',
  title: 'A step trace answers 200 with traceId, a UUID missionRunId, stepId, a UTC startedAt and operations of documented kinds',
  level: 'required',
  needs: { credentials: ['v8:holding:missions:write+missions:read'], fixtures: ['v8.missions.succeeds'] },
  destructive: 'mutate',
  spec: {
    section: 'Resources > Trace',
    quote:
      'Always present: `traceId` (string), `missionRunId` (UUID string), `stepId` (string), `startedAt` (ISO 8601 UTC), `steps` (array of operations). … `kind` (`observation`, `tool-call`, `sub-step`, `branch`), `toolCallId` (string; present for `tool-call`)',
  },
  async check(ctx: CheckContext) {
    const target = await someTrace(ctx);
    const res = await getTrace(ctx, target.traceId, 'read a step trace');
    ctx.check(res.status === 200, `trace ${target.traceId} answered ${res.status}, expected 200`);
    ctx.check(res.contentType.startsWith('application/json'), `the trace answered content-type "${res.contentType}", expected application/json`);
    const parsed = ctx.expectShape(trace, res.json, 'the trace');
    ctx.check(parsed.traceId === target.traceId, `asked for trace ${target.traceId}, got ${parsed.traceId}`);
    if (target.runId) ctx.check(parsed.missionRunId === target.runId, `the trace names mission ${parsed.missionRunId}, but its step event came from ${target.runId}`);
    if (target.stepId) ctx.check(parsed.stepId === target.stepId, `the trace names step ${parsed.stepId}, its step event named ${target.stepId}`);
    ctx.observe('operation kinds', [...new Set(parsed.steps.map((op) => op.kind ?? '(none)'))]);
  },
});

export const traceResolves = rule({
  id: 'v8.traces.get.resolves',
  title: 'Every traceId of a step event, of completed and failed steps alike, can be read',
  level: 'required',
  needs: { credentials: ['v8:holding:missions:write+missions:read'], fixtures: ['v8.missions.succeeds'] },
  destructive: 'mutate',
  spec: { section: 'Events > Rules 3', quote: 'Each `traceId` in step events can be read at `GET /v8/traces/{traceId}`.' },
  async check(ctx: CheckContext) {
    const fixtures = ctx.profile.fixtures.v8.missions.fails ? (['succeeds', 'fails'] as const) : (['succeeds'] as const);
    if (fixtures.length === 1) ctx.observe('fixtures used', fixtures, 'without fixtures.v8.missions.fails only traces of a succeeding mission are read');
    for (const name of fixtures) {
      const { traces } = await missionWithTraces(ctx, name);
      for (const t of traces) {
        const res = await getTrace(ctx, t.traceId, `read the trace of ${t.event} (${name} mission)`);
        ctx.check(res.status === 200, `traceId ${t.traceId} from ${t.event} of the "${name}" mission answered ${res.status}, expected 200`);
      }
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
  needs: { credentials: ['v8:holding:missions:write+missions:read'], fixtures: ['v8.missions.fails'] },
  destructive: 'mutate',
  spec: { section: 'Resources > Trace', quote: 'Optional: `completedAt` (absent when the step did not complete)' },
  async check(ctx: CheckContext) {
    const { runId, traces } = await missionWithTraces(ctx, 'fails');
    // "The full list of step status values: not shown", so a step's status word cannot say whether it
    // completed; the events can: "`mission.step.completed` | a step finishes successfully".
    const statusOf = new Map((missionSteps.safeParse((await getMission(ctx, runId)).json).data?.steps ?? []).map((s) => [s.stepId, s.status]));
    const judged: Array<{ traceId: string; stepStatus: string | undefined; completedAt: unknown }> = [];
    for (const t of traces.filter((trace) => !trace.completed)) {
      const res = await getTrace(ctx, t.traceId, `read the trace of ${t.traceId}`);
      const parsed = traceTiming.safeParse(res.json);
      if (res.status !== 200 || !parsed.success) continue;
      const stepStatus = typeof parsed.data.stepId === 'string' ? statusOf.get(parsed.data.stepId) : undefined;
      judged.push({ traceId: t.traceId, stepStatus, completedAt: parsed.data.completedAt });
      ctx.check(
        parsed.data.completedAt === undefined,
        `trace ${t.traceId} belongs to a step no mission.step.completed named (status "${stepStatus ?? 'unknown'}"), yet it has completedAt ${JSON.stringify(parsed.data.completedAt)}`,
        res,
      );
    }
    if (judged.length === 0) ctx.untestable({ need: 'fixture', path: 'v8.missions.fails', problem: 'gave a mission with no readable trace of a step that did not complete', remedy: 'give a fixture whose mission fails during a step' });
    ctx.observe('steps that did not complete', judged);
  },
});

export const traceUnknown = rule({
  id: 'v8.traces.get.unknown-404',
  title: 'A traceId that names no trace answers 404',
  level: 'required',
  spec: { section: 'Errors', quote: '`GET /v8/traces/{traceId}` | `401`; `403`; `404`' },
  async check(ctx: CheckContext) {
    const res = await getTrace(ctx, `apicert-unknown-trace-${randomSuffix()}`, 'read a trace that does not exist');
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
  async check(ctx: CheckContext) {
    await judgePathIdBounds(ctx, 'traceId', (id, label) => getTrace(ctx, id, label));
  },
});
