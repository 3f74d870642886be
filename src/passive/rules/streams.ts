/** Event streams as a recorder holds them: one body, the whole stream as far as it was recorded. */
import { parseEventStreamText, type TextEvent } from '../../sse/text.ts';
import { isRecord, parseJson } from '../../util/json.ts';
import { mediaType, type TrafficExchange } from '../exchange.ts';

export interface RecordedStream {
  events: TextEvent[];
  /** Lines that are not SSE fields. */
  errors: string[];
  /** The recording kept only a prefix: the last event may be missing, and the end is unknown. */
  cut: boolean;
}

/** The events of a recorded event-stream answer; undefined when the answer is no stream or has no body. */
export function streamOf(ex: TrafficExchange): RecordedStream | undefined {
  if (ex.status === undefined || ex.responseBody === undefined || mediaType(ex.responseHeaders) !== 'text/event-stream') return undefined;
  const cut = Boolean(ex.responseBodyTruncated);
  const parsed = parseEventStreamText(ex.responseBody);
  return { events: parsed.events, errors: parsed.errors, cut };
}

export function dataOf(e: TextEvent): Record<string, unknown> | undefined {
  const parsed = parseJson(e.data);
  return parsed.ok && isRecord(parsed.value) ? parsed.value : undefined;
}
