/** Event streams as a recorder holds them: one body, the whole stream as far as it was recorded. */
import { parseEventStreamText, type TextEvent } from '../../sse/text.ts';
import { isRecord, parseJson } from '../../util/json.ts';
import { mediaType, type TrafficExchange } from '../exchange.ts';
import type { Judgement } from '../judging.ts';

export interface RecordedStream {
  /** Every event the recording holds whole; an event a cut recording ends inside is left out. */
  events: TextEvent[];
}

/** The events of a recorded event-stream answer; undefined when the answer is no stream or has no body. */
export function streamOf(ex: TrafficExchange): RecordedStream | undefined {
  if (ex.status === undefined || ex.responseBody === undefined || mediaType(ex.responseHeaders) !== 'text/event-stream') return undefined;
  return { events: parseEventStreamText(ex.responseBody).events };
}

export function dataOf(e: TextEvent): Record<string, unknown> | undefined {
  const parsed = parseJson(e.data);
  return parsed.ok && isRecord(parsed.value) ? parsed.value : undefined;
}

/** The stream of `ex` for a rule judging `j`: an answer whose body the recorder did not keep is noted as one the rule could not judge. */
export function streamIn(j: Judgement, ex: TrafficExchange): RecordedStream | undefined {
  if (ex.status === undefined || mediaType(ex.responseHeaders) !== 'text/event-stream') return undefined;
  if (!j.holds(ex, 'response-body')) return undefined;
  return streamOf(ex);
}
