/**
 * Which /v8 mission event stream named each trace: "Each `traceId` in step events can be read at
 * `GET /v8/traces/{traceId}`." Both the /v8 trace rules and the generated rules' expectation of a
 * trace read start from the stream that first named it, so the journal is read for it once. Which
 * stream counts (its status, whose it is, whether it ended before the read) is each caller's.
 */
import { TERMINAL_EVENT_STATUS } from '../contract/v8/missions.ts';
import { pathOnly, type Exchange, type SseEvent } from '../rule/index.ts';
import { isRecord } from '../util/json.ts';
import { dataOf, eventsOf, idAfter, journalFact } from './read.ts';

/** A trace a mission's step events named, in the order they named it. */
export interface StepTrace {
  traceId: string;
  /** The first step event that named it. */
  event: string;
  stepId?: string;
  /** A mission.step.completed named it: "a step finishes successfully". */
  completed: boolean;
  /**
   * One of the events naming it is JSON within the nesting every rule's `dataOf` reads; only an
   * event nested deeper, which the /v8 trace rules read whole, names a trace without this.
   */
  withinDepth: boolean;
}

/** A trace a mission stream's step events named, with what that stream showed of it. */
export interface TraceNaming extends StepTrace {
  runId: string;
  stream: Exchange;
  /** The stream reached its terminal event. */
  ended: boolean;
  /** The stream's place in the journal. */
  position: number;
}

const MISSION_EVENTS = /^\/v8\/missions\/[^/]+\/events$/;

/**
 * The first stream before `before` (a place in the journal) that named `traceId` and that `counts`
 * takes: the stream a read at `before` runs the trace's index bound from.
 */
export function firstNaming(exchanges: readonly Exchange[], traceId: string, before: number, counts: (naming: TraceNaming) => boolean): TraceNaming | undefined {
  for (const naming of journalFact(exchanges, namingsOf).get(traceId) ?? []) {
    if (naming.position >= before) return undefined;
    if (counts(naming)) return naming;
  }
  return undefined;
}

/** Every GET of a mission's event stream that named a trace, by traceId, in journal order, whatever it answered. */
function namingsOf(exchanges: readonly Exchange[]): ReadonlyMap<string, readonly TraceNaming[]> {
  const byTrace = new Map<string, TraceNaming[]>();
  for (let position = 0; position < exchanges.length; position += 1) {
    const stream = exchanges[position]!;
    if (stream.method !== 'GET' || !MISSION_EVENTS.test(pathOnly(stream))) continue;
    const events = eventsOf(stream);
    if (events === undefined) continue;
    const named = stepTraces(events);
    if (named.length === 0) continue;
    const ended = events.some((e) => e.event !== undefined && TERMINAL_EVENT_STATUS[e.event] !== undefined);
    const runId = idAfter(stream, '/v8/missions/')!;
    for (const t of named) {
      const naming: TraceNaming = { ...t, runId, stream, ended, position };
      const list = byTrace.get(t.traceId);
      if (list) list.push(naming);
      else byTrace.set(t.traceId, [naming]);
    }
  }
  return byTrace;
}

/**
 * The traces a stream's step events named, in order and without repeats: read by the active checks
 * from the streams they follow and by the journal fact above from recorded ones.
 */
export function stepTraces(events: ReadonlyArray<Pick<SseEvent, 'event' | 'data'>>): StepTrace[] {
  const seen = new Map<string, StepTrace>();
  for (const e of events) {
    if (e.event !== 'mission.step.started' && e.event !== 'mission.step.completed') continue;
    // The parse every rule shares; what it refuses as nested too deep is still JSON to the trace rules.
    const shared = dataOf(e);
    const data = shared ?? deepData(e.data);
    if (data === undefined || typeof data.traceId !== 'string') continue;
    const completed = e.event === 'mission.step.completed';
    const known = seen.get(data.traceId);
    if (known) {
      known.completed ||= completed;
      known.withinDepth ||= shared !== undefined;
      if (known.stepId === undefined && typeof data.stepId === 'string') known.stepId = data.stepId;
      continue;
    }
    const step: StepTrace = { traceId: data.traceId, event: e.event, completed, withinDepth: shared !== undefined };
    if (typeof data.stepId === 'string') step.stepId = data.stepId;
    seen.set(data.traceId, step);
  }
  return [...seen.values()];
}

function deepData(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
