/** /v1: the run resource, the run event stream, idempotency of POST /v1/execute across requests. */
import { ACCEPTED, acceptedData } from '../../contract/v1/runs.ts';
import { taskResponse } from '../../contract/v1/task.ts';
import type { TextEvent } from '../../sse/text.ts';
import { mediaType, type TrafficExchange } from '../exchange.ts';
import { operationOf } from '../endpoints.ts';
import { hasWholeBody, recordOf, requestJson, responseJson, type PassiveRule } from '../judging.ts';
import { judgeIdempotency } from './idempotency.ts';
import { dataOf, streamIn, streamOf } from './streams.ts';

/** The Idempotency-Key of an execute request: the header, or a turn body's own `idempotencyKey`. */
function executeKey(ex: TrafficExchange): string | undefined {
  const header = ex.requestHeaders['idempotency-key'];
  if (header !== undefined) return header;
  const key = recordOf(requestJson(ex))?.idempotencyKey;
  return typeof key === 'string' ? key : undefined;
}

/** The kind of a run event: the SSE `event` field, else `type`, `kind` or `event` in its data (the seed does not say which). */
function kindOf(e: TextEvent): string | undefined {
  if (e.event !== undefined && e.event !== 'message') return e.event;
  const data = dataOf(e);
  const kind = data?.type ?? data?.kind ?? data?.event;
  return typeof kind === 'string' ? kind : e.event;
}

/** The `replayed` flag of a turn answer's request.accepted event. */
function replayedFlag(ex: TrafficExchange): boolean | undefined {
  const accepted = streamOf(ex)?.events.find((e) => kindOf(e) === ACCEPTED);
  const parsed = accepted ? acceptedData.safeParse(dataOf(accepted)) : undefined;
  return parsed?.success ? parsed.data.replayed : undefined;
}

function runIdOf(ex: TrafficExchange): string | undefined {
  const parsed = taskResponse.safeParse(responseJson(ex));
  return parsed.success ? parsed.data.run_id : undefined;
}

/** A task replay answers the same run_id; a turn replay's request.accepted says replayed:true. */
function replayOf(first: TrafficExchange, later: TrafficExchange): string | undefined {
  if (mediaType(first.responseHeaders) === 'text/event-stream') {
    if (later.status !== first.status) return `answered ${later.status}, the original ${first.status}`;
    const flag = replayedFlag(later);
    return flag === true || later.responseBody === undefined ? undefined : `the replayed turn's request.accepted carries replayed: ${String(flag)}, expected true`;
  }
  const original = runIdOf(first);
  if (original === undefined || !hasWholeBody(later)) return undefined;
  const again = runIdOf(later);
  return again === original ? undefined : `answered run_id ${String(again)}, the original ${original}: the request was executed twice`;
}

function conflictOf(later: TrafficExchange): string | undefined {
  if (later.status !== 409) return `answered ${later.status}`;
  const code = recordOf(responseJson(later))?.code;
  return code === undefined || code === 'conflict' ? undefined : `answered 409 with code ${String(code)}, expected conflict`;
}

function identity(e: TextEvent): string | undefined {
  if (e.id !== undefined && e.id !== '') return `id:${e.id}`;
  const data = dataOf(e);
  const id = data?.event_id ?? data?.id;
  return typeof id === 'string' || typeof id === 'number' ? `data:${id}` : undefined;
}

const isTurnAnswer = (ex: TrafficExchange) => operationOf(ex) === 'v1.execute' && ex.status === 200 && recordOf(requestJson(ex))?.mode !== 'task';

export const v1Rules: PassiveRule[] = [
  {
    id: 'v1.execute.turn.stream',
    record: 'a turn-mode POST /v1/execute answered 200',
    judge: (j) => {
      for (const ex of j.exchanges) {
        // Turn or task is told by the request's body: without it, the exchange cannot be picked.
        if (operationOf(ex) === 'v1.execute' && ex.status === 200 && !j.holds(ex, 'request-body')) continue;
        if (!isTurnAnswer(ex) || requestJson(ex) === undefined) continue;
        const type = mediaType(ex.responseHeaders);
        j.check(ex, type === 'text/event-stream', `a turn request was answered "${type}", expected text/event-stream`);
      }
    },
  },
  {
    id: 'v1.execute.turn.accepted-event',
    record: 'a turn-mode POST /v1/execute answered with its event stream',
    judge: (j) => {
      const seen = new Set<string>();
      for (const ex of j.exchanges) {
        const stream = isTurnAnswer(ex) ? streamIn(j, ex) : undefined;
        const key = operationOf(ex) === 'v1.execute' ? executeKey(ex) : undefined;
        const scope = key === undefined ? undefined : `${ex.requestHeaders.authorization ?? ''}\n${key}`;
        const first = scope === undefined || !seen.has(scope);
        if (scope !== undefined) seen.add(scope);
        if (!stream) continue;
        const accepted = stream.events.filter((e) => kindOf(e) === ACCEPTED);
        if (!j.check(ex, accepted.length === 1, `the turn stream carried ${accepted.length} request.accepted events, expected one`)) continue;
        const data = acceptedData.safeParse(dataOf(accepted[0]!));
        if (!j.check(ex, data.success, 'request.accepted carries no boolean replayed')) continue;
        if (first) j.check(ex, data.data!.replayed === false, `request.accepted says replayed:true for a request ${key === undefined ? 'sent without an idempotency key' : 'whose key the recording shows for the first time'}`);
      }
    },
  },
  {
    id: 'v1.runs.get',
    record: 'a GET /v1/runs/{id} answered 200',
    judge: (j) => {
      for (const ex of j.exchanges) {
        if (operationOf(ex) !== 'v1.runs.get' || ex.status !== 200) continue;
        const type = mediaType(ex.responseHeaders);
        if (!j.check(ex, type === 'application/json' || type.endsWith('+json'), `the run resource came as "${type}", expected JSON`)) continue;
        if (hasWholeBody(ex)) j.check(ex, recordOf(responseJson(ex)) !== undefined, 'the run resource is not a JSON object');
      }
    },
  },
  {
    id: 'v1.runs.events.identity',
    record: 'a GET /v1/runs/{id}/events answered with its event stream',
    judge: (j) => {
      for (const ex of j.exchanges) {
        if (operationOf(ex) !== 'v1.runs.events' || ex.status !== 200) continue;
        const stream = streamIn(j, ex);
        if (!stream) continue;
        const ids = stream.events.map(identity);
        for (const [i, e] of stream.events.entries()) j.check(ex, ids[i] !== undefined, `event #${i + 1} (${e.event ?? 'message'}) carries no identity: neither an SSE id nor an event id in its data`);
        if (stream.events.length === 0) continue;
        j.check(ex, new Set(ids).size === ids.length, 'two events of one run share an identity');
        const sequences = stream.events.filter((e) => e.id !== undefined).map((e) => Number(e.id));
        j.check(ex, sequences.every((n) => Number.isInteger(n)), `SSE ids [${stream.events.map((e) => e.id).join(', ')}] are not the integer sequence Last-Event-ID carries`);
        j.check(ex, sequences.every((n, i) => i === 0 || n > sequences[i - 1]!), `SSE ids [${sequences.join(', ')}] do not increase`);
      }
    },
  },
  {
    id: 'v1.execute.idempotency.replay',
    record: 'a POST /v1/execute sent twice with the same idempotency key and request',
    judge: (j) => judgeIdempotency(j, { operation: 'v1.execute', keyOf: executeKey, judge: 'replay', sameAnswer: replayOf }),
  },
  {
    id: 'v1.execute.idempotency.conflict',
    record: 'a POST /v1/execute sent twice with the same idempotency key and different requests',
    judge: (j) => judgeIdempotency(j, { operation: 'v1.execute', keyOf: executeKey, judge: 'conflict', conflict: conflictOf }),
  },
];
