/**
 * Parses a complete text/event-stream body: what a client has once the server closed the stream
 * (a POST answered with SSE, a k6 script, which gets bodies whole). The parsing is
 * eventsource-parser's, as in the streaming reader. No Node APIs: k6 scripts bundle this module.
 */
import { createParser } from 'eventsource-parser';

export interface TextEvent {
  id?: string;
  event?: string;
  data: string;
}

export interface ParsedEventText {
  events: TextEvent[];
  /** Lines the parser could not read, with its own wording. */
  errors: string[];
}

export interface ParseTextOptions {
  /**
   * Keep a last event that lacks its closing blank line. An EventSource drops it; a check that
   * judges the messages, not the framing, may choose to keep it.
   */
  keepUnterminated?: boolean;
}

export function parseEventStreamText(body: string, options: ParseTextOptions = {}): ParsedEventText {
  const events: TextEvent[] = [];
  const errors: string[] = [];
  const parser = createParser({
    onEvent(message) {
      const event: TextEvent = { data: message.data };
      if (message.id !== undefined) event.id = message.id;
      if (message.event !== undefined) event.event = message.event;
      events.push(event);
    },
    onError(error) {
      errors.push(error.message);
    },
  });
  parser.feed(body);
  if (options.keepUnterminated) parser.feed('\n\n');
  else parser.reset({ consume: true });
  return { events, errors };
}
