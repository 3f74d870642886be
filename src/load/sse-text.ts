/**
 * Parses a complete text/event-stream body into events. k6 reads a stream only once the server
 * closes it, so its scripts get the whole body at once; the parsing is eventsource-parser's, shared
 * with the harness. No Node APIs here: this module is bundled into k6 scripts.
 */
import { createParser } from 'eventsource-parser';

export interface TextEvent {
  id?: string;
  event?: string;
  data: string;
}

export function parseEventStreamText(body: string): TextEvent[] {
  const events: TextEvent[] = [];
  const parser = createParser({
    onEvent(message) {
      const event: TextEvent = { data: message.data };
      if (message.id !== undefined) event.id = message.id;
      if (message.event !== undefined) event.event = message.event;
      events.push(event);
    },
  });
  parser.feed(body);
  parser.reset({ consume: true });
  return events;
}
