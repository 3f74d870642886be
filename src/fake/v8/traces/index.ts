import { pathIdentifier } from '../../../contract/v8/common.ts';
import type { FakeContext } from '../../context.ts';
import type { Route, RouteRequest } from '../../http.ts';
import { withExtraProperties } from '../../support/extra-properties.ts';
import { otherPrincipalsTracesVisible } from '../auth.ts';
import type { MissionEngine } from '../missions/engine.ts';
import type { ReadSurface } from '../read-surface.ts';
import { basicFormat, inZone, utcWithOffset } from '../timestamps.ts';
import type { TraceRecord } from './record.ts';

/** "a traceId that breaks the pattern": the fake answers 400, the variant 404 (the seed lists only 404). */
function malformedStatus(fake: FakeContext): number {
  return fake.variants.has('v8.traces/malformed-id-404') ? 404 : 400;
}

/** Trace times with a `+00:00` offset, operation times in another zone: both legal ISO 8601. */
function otherTimes(trace: Omit<TraceRecord, 'principal'>): Omit<TraceRecord, 'principal'> {
  const steps = trace.steps.map((op) => (typeof op.startedAt === 'string' ? { ...op, startedAt: inZone(op.startedAt, 2) } : op));
  const out = { ...trace, startedAt: utcWithOffset(trace.startedAt), steps };
  if (trace.completedAt !== undefined) out.completedAt = utcWithOffset(trace.completedAt);
  return out;
}

/** Trace times in ISO 8601 basic format with a comma fraction (`Z`), operation times basic with `+0200`. */
function basicTimes(trace: Omit<TraceRecord, 'principal'>): Omit<TraceRecord, 'principal'> {
  const steps = trace.steps.map((op) => (typeof op.startedAt === 'string' ? { ...op, startedAt: basicFormat(op.startedAt, 2) } : op));
  const out = { ...trace, startedAt: basicFormat(trace.startedAt), steps };
  if (trace.completedAt !== undefined) out.completedAt = basicFormat(trace.completedAt);
  return out;
}

/** The trace as served: every optional field, or under the variants fewer of them, or unknown ones besides. */
function served(fake: FakeContext, trace: Omit<TraceRecord, 'principal'>): Record<string, unknown> {
  const body = fake.variants.has('v8.traces/other-formats') ? otherTimes(trace) : fake.variants.has('v8.traces/basic-format-times') ? basicTimes(trace) : trace;
  let out: Record<string, unknown> = body;
  if (fake.variants.has('v8.traces/sparse-fields')) {
    const { elapsedMs: _elapsed, ...rest } = body;
    out = { ...rest, steps: body.steps.map(({ operationId: _id, startedAt: _at, elapsedMs: _ms, ...op }) => op) };
  }
  return fake.variants.has('v8.traces/extra-properties') ? withExtraProperties(out) : out;
}

/** How long after its step began a trace stays unreadable under `v8.traces/indexed-later` (an asynchronous trace store). */
const INDEX_LAG_MS = 2_000;

/** Under the variant a trace is indexed a while after its step began: until then the lookup finds nothing. */
function notIndexedYet(fake: FakeContext, t: TraceRecord): boolean {
  return Date.now() < Date.parse(t.startedAt) + INDEX_LAG_MS && fake.variants.has('v8.traces/indexed-later');
}

function stepStatus(missions: MissionEngine, t: TraceRecord): string | undefined {
  return missions.missions.get(t.missionRunId)?.steps.find((s) => s.stepId === t.stepId)?.status;
}

function trace(surface: ReadSurface, missions: MissionEngine, r: RouteRequest): void {
  const { fake, v8 } = surface;
  const caller = surface.authorize(r, 'traces', 'traces:read');
  if (!caller) return;
  const id = r.params[0]!;
  if (!pathIdentifier.safeParse(id).success) {
    if (id.length > 256 && fake.faults.has('v8.traces.get.path-bounds/long-id-server-error')) v8.problem(r.res, 500, 'internal_error', 'Trace lookup failed.');
    else v8.problem(r.res, malformedStatus(fake), 'invalid_trace_id', 'traceId must be 1-256 characters matching ^[A-Za-z0-9][A-Za-z0-9._:-]*$.');
    return;
  }
  const found = missions.traces.get(id);
  const visible = found && (found.principal === caller.principal || otherPrincipalsTracesVisible(fake));
  const hidden = found && ((fake.faults.has('v8.traces.get.resolves/failed-step-missing') && stepStatus(missions, found) === 'failed') || notIndexedYet(fake, found));
  if (!found || !visible || hidden) {
    if (!found && fake.faults.has('v8.traces.get.unknown-404/server-error')) v8.problem(r.res, 500, 'internal_error', 'Trace lookup failed.');
    else v8.problem(r.res, 404, 'not_found', 'No such trace for this principal.');
    return;
  }
  const { principal: _owner, ...body } = structuredClone(found);
  if (fake.faults.has('v8.traces.get.ok/run-id-not-uuid')) body.missionRunId = `run-${found.missionRunId.slice(-12)}`;
  if (fake.faults.has('v8.traces.get.ok/unknown-operation-kind') && body.steps[0]) body.steps[0] = { ...body.steps[0], kind: 'thought' };
  v8.json(r.res, 200, served(fake, body));
}

/** GET /v8/traces/{traceId}: a lookup limited to the caller's principal. */
export function tracesRoutes(surface: ReadSurface, missions: MissionEngine): Route[] {
  return [{ method: 'GET', pattern: /^\/v8\/traces\/([^/]+)$/, handler: (r) => trace(surface, missions, r) }];
}
