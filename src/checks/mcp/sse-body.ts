import { createParser } from 'eventsource-parser';

export interface BodyEvent {
  id?: string;
  event?: string;
  data: string;
}

/**
 * Parses a complete `text/event-stream` body. A POST's SSE answer ends after its last response,
 * so the probe client reads it whole and the events are recovered here.
 */
export function parseEventStreamBody(text: string): { events: BodyEvent[]; errors: string[] } {
  const events: BodyEvent[] = [];
  const errors: string[] = [];
  const parser = createParser({
    onEvent(message) {
      const event: BodyEvent = { data: message.data };
      if (message.id !== undefined) event.id = message.id;
      if (message.event !== undefined) event.event = message.event;
      events.push(event);
    },
    onError(error) {
      errors.push(error.message);
    },
  });
  parser.feed(text);
  // A last event without its blank line is still dispatched by a conforming reader at end of stream.
  parser.feed('\n\n');
  return { events, errors };
}
