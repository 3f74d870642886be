/** /v8 missions: answer shapes, the event stream, sequence across reads, idempotency across requests. */
import { MISSION_EVENT_TYPES, missionProjection, stepCompletedData, stepStartedData, TERMINAL_EVENT_STATUS, type MissionProjection } from '../../contract/v8/missions.ts';
import { canonicalJson } from '../../util/json.ts';
import { mediaType, type TrafficExchange } from '../exchange.ts';
import { idAfter, operationOf } from '../endpoints.ts';
import { hasWholeBody, responseJson, type Judgement, type PassiveRule } from '../judging.ts';
import { judgeIdempotency } from './idempotency.ts';
import { dataOf, streamIn, streamOf } from './streams.ts';

const MISSIONS = '/v8/missions/';

function judgeStreams(j: Judgement, each: (ex: Parameters<Judgement['check']>[0], stream: NonNullable<ReturnType<typeof streamOf>>) => void): void {
  for (const ex of j.exchanges) {
    if (operationOf(ex) !== 'v8.missions.events' || ex.status !== 200) continue;
    const stream = streamIn(j, ex);
    if (stream) each(ex, stream);
  }
}

/** Whether `later` was sent after `earlier` had ended; without timings, recording order is all there is. */
function startsAfterEnd(later: TrafficExchange, earlier: TrafficExchange): boolean {
  if (later.startedAt === undefined || earlier.startedAt === undefined || earlier.durationMs === undefined) return later.index > earlier.index;
  return Date.parse(later.startedAt) >= Date.parse(earlier.startedAt) + earlier.durationMs;
}

/**
 * A mission's first terminal event, seen on a recorded stream, fixes its state: every read of it
 * recorded afterwards must show the status that event names.
 */
function judgeReadsAfterTerminal(j: Judgement): void {
  const terminal = new Map<string, { event: string; ex: (typeof j.exchanges)[number] }>();
  for (const ex of j.exchanges) {
    const op = operationOf(ex);
    const runId = idAfter(ex, MISSIONS);
    if (runId === undefined || ex.status !== 200) continue;
    if (op === 'v8.missions.events') {
      const first = streamOf(ex)?.events.find((e) => e.event !== undefined && TERMINAL_EVENT_STATUS[e.event] !== undefined);
      if (first && !terminal.has(runId)) terminal.set(runId, { event: first.event!, ex });
      continue;
    }
    const ended = terminal.get(runId);
    // A read sent while the stream was still open may predate the terminal event.
    if (op !== 'v8.missions.get' || !ended || !hasWholeBody(ex) || !startsAfterEnd(ex, ended.ex)) continue;
    const parsed = missionProjection.safeParse(responseJson(ex));
    if (!parsed.success) continue;
    const expected = TERMINAL_EVENT_STATUS[ended.event];
    j.check(ex, parsed.data.status === expected, `after ${ended.event} (on the stream of exchange #${ended.ex.index}) the mission reads back as ${parsed.data.status}, expected ${expected}`, [ended.ex]);
  }
}

export const v8Rules: PassiveRule[] = [
  {
    id: 'v8.missions.states.terminal-event-matches-status',
    record: 'a mission\'s event stream up to its terminal event, then a GET /v8/missions/{runId}',
    judge: judgeReadsAfterTerminal,
  },
  {
    id: 'v8.missions.events.after-terminal',
    record: 'a mission\'s event stream up to its terminal event, then a GET /v8/missions/{runId}',
    judge: judgeReadsAfterTerminal,
  },
  {
    id: 'v8.missions.get.ok',
    record: 'a GET /v8/missions/{runId} answered 200',
    judge: (j) => {
      for (const ex of j.exchanges) {
        if (operationOf(ex) !== 'v8.missions.get' || ex.status !== 200 || !hasWholeBody(ex)) continue;
        const parsed = missionProjection.safeParse(responseJson(ex));
        if (!j.check(ex, parsed.success, `the 200 is not a mission projection (${parsed.success ? '' : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).slice(0, 2).join('; ')})`)) continue;
        j.check(ex, parsed.data!.runId === idAfter(ex, MISSIONS), `the projection is of mission ${parsed.data!.runId}, not of the one asked for`);
      }
    },
  },
  {
    id: 'v8.missions.events.shape',
    record: 'a GET /v8/missions/{runId}/events answered 200',
    judge: (j) => {
      for (const ex of j.exchanges) {
        if (operationOf(ex) !== 'v8.missions.events' || ex.status !== 200) continue;
        const type = mediaType(ex.responseHeaders);
        // A right media type with no events recorded is nothing judged: the events are the rule.
        if (type === 'text/event-stream' && !j.holds(ex, 'response-body')) continue;
        if (!j.check(ex, type === 'text/event-stream', `the event stream answered content-type "${type}", expected text/event-stream`)) continue;
        const stream = streamOf(ex);
        if (!stream) continue;
        const ids = new Set<string>();
        for (const [i, e] of stream.events.entries()) {
          j.check(ex, e.id !== undefined && e.id.length > 0, `event #${i + 1} (${e.event ?? 'message'}) has no id`);
          j.check(ex, e.event !== undefined && (MISSION_EVENT_TYPES as readonly string[]).includes(e.event), `event #${i + 1} has type "${e.event ?? 'message'}", not a documented mission event`);
          j.check(ex, dataOf(e) !== undefined, `event #${i + 1} (${e.event}) has data that is not a JSON object`);
          if (e.id !== undefined) {
            j.check(ex, !ids.has(e.id), `two events of one stream share the id ${e.id}`);
            ids.add(e.id);
          }
        }
      }
    },
  },
  {
    id: 'v8.missions.events.trace-id',
    record: 'a GET /v8/missions/{runId}/events whose stream carries step events',
    judge: (j) =>
      judgeStreams(j, (ex, stream) => {
        for (const [i, e] of stream.events.entries()) {
          if (e.event !== 'mission.step.started' && e.event !== 'mission.step.completed') continue;
          const schema = e.event === 'mission.step.started' ? stepStartedData : stepCompletedData;
          j.check(ex, schema.safeParse(dataOf(e)).success, `event #${i + 1} (${e.event}) lacks ${e.event === 'mission.step.started' ? 'traceId' : 'stepId or traceId'}`);
        }
      }),
  },
  {
    id: 'v8.missions.sequence.monotonic',
    record: 'a mission read more than once (POST /v8/missions, then GET /v8/missions/{runId})',
    judge: (j) => {
      // The first create answer and every read, in recording order; a replayed create answers an old state on purpose.
      const seen = new Map<string, { p: MissionProjection; ex: (typeof j.exchanges)[number] }>();
      for (const ex of j.exchanges) {
        const op = operationOf(ex);
        if (!((op === 'v8.missions.create' && ex.status === 202) || (op === 'v8.missions.get' && ex.status === 200)) || !hasWholeBody(ex)) continue;
        const parsed = missionProjection.safeParse(responseJson(ex));
        if (!parsed.success) continue;
        const p = parsed.data;
        const before = seen.get(p.runId);
        if (op === 'v8.missions.create' && before) continue;
        seen.set(p.runId, { p, ex });
        if (!before) continue;
        j.check(ex, p.sequence >= before.p.sequence, `mission ${p.runId}: sequence went from ${before.p.sequence} (exchange #${before.ex.index}) to ${p.sequence} (${before.p.status} → ${p.status})`, [before.ex]);
        const changed = before.p.status !== p.status || canonicalJson(before.p.steps) !== canonicalJson(p.steps);
        j.check(ex, !changed || p.sequence > before.p.sequence, `mission ${p.runId}: the state changed (${before.p.status} → ${p.status}) but sequence stayed ${p.sequence}`, [before.ex]);
      }
    },
  },
  {
    id: 'v8.missions.idempotency.replay',
    record: 'a POST /v8/missions sent twice with the same Idempotency-Key and body',
    judge: (j) => judgeIdempotency(j, { operation: 'v8.missions.create', keyOf: (ex) => ex.requestHeaders['idempotency-key'], judge: 'replay' }),
  },
  {
    id: 'v8.missions.idempotency.conflict',
    record: 'a POST /v8/missions sent twice with the same Idempotency-Key and different bodies',
    judge: (j) => judgeIdempotency(j, { operation: 'v8.missions.create', keyOf: (ex) => ex.requestHeaders['idempotency-key'], judge: 'conflict' }),
  },
];

/** Whether `ex` is the first create the recording holds under its Idempotency-Key and caller. */
function firstWithKey(j: Judgement, ex: (typeof j.exchanges)[number]): boolean {
  const key = ex.requestHeaders['idempotency-key'];
  const caller = ex.requestHeaders.authorization;
  return !j.exchanges.some((o) => o.index < ex.index && operationOf(o) === 'v8.missions.create' && o.requestHeaders['idempotency-key'] === key && o.requestHeaders.authorization === caller);
}
