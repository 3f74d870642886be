import { createParser, type EventSourceMessage } from 'eventsource-parser';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseEventStreamText, type TextEvent } from '../../src/sse/text.ts';

// The whole-body parser is hand-written so k6 can load it; eventsource-parser is the reference.
function reference(body: string, keepUnterminated: boolean): TextEvent[] {
  const events: TextEvent[] = [];
  const parser = createParser({
    onEvent(m: EventSourceMessage) {
      const e: TextEvent = { data: m.data };
      if (m.id !== undefined) e.id = m.id;
      if (m.event !== undefined) e.event = m.event;
      events.push(e);
    },
  });
  parser.feed(body);
  if (keepUnterminated) parser.feed('\n\n');
  else parser.reset({ consume: true });
  return events;
}

const line = fc.oneof(
  fc.constantFrom('', ':comment', 'data', 'data:', 'data: x', 'data:  two spaces', 'event: mission.started', 'event:', 'id: 7', 'id:', 'id: a\0b', 'retry: 10', 'retry: x', 'bogus: 1', 'datum: 2'),
  fc.string({ maxLength: 6 }).map((s) => `data: ${s}`),
);
const terminator = fc.constantFrom('\n', '\r\n', '\r');
const body = fc.array(fc.tuple(line, terminator), { maxLength: 14 }).chain((pairs) =>
  fc.boolean().map((dropLast) => {
    const text = pairs.map(([l, t]) => l + t).join('');
    return dropLast && pairs.length > 0 ? text.slice(0, -pairs.at(-1)![1].length) : text;
  }),
);

describe('parseEventStreamText', () => {
  it('gives the events eventsource-parser gives, with and without keepUnterminated', () => {
    fc.assert(
      fc.property(body, fc.boolean(), (text, keep) => {
        expect(parseEventStreamText(text, { keepUnterminated: keep }).events).toEqual(reference(text, keep));
      }),
      { numRuns: 400, seed: 17 },
    );
  });

  it('reads ids, types and multi-line data, and names lines that are not fields', () => {
    const parsed = parseEventStreamText('\uFEFFid: 1\nevent: a\ndata: x\ndata: y\n\n: note\nretry: soon\nnope: 1\ndata: z\n\n');
    expect(parsed.events).toEqual([{ id: '1', event: 'a', data: 'x\ny' }, { data: 'z' }]);
    expect(parsed.errors).toEqual(['Invalid `retry` value: "soon"', 'Unknown field "nope"']);
  });
});
