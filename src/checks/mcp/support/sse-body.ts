import { parseEventStreamText, type ParsedEventText, type TextEvent } from '../../../sse/text.ts';

export type BodyEvent = TextEvent;

/**
 * Parses a POST's SSE answer, which the probe reads whole since it ends after the last response.
 * A last event without its closing blank line is kept: these rules judge the JSON-RPC messages,
 * not the framing, and dropping it would report a missing response instead.
 */
export function parseEventStreamBody(text: string): ParsedEventText {
  return parseEventStreamText(text, { keepUnterminated: true });
}
