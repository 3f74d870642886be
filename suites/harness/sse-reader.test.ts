import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readEventStream, type ReadOptions } from '../../src/sse/reader.ts';

async function* chunks(parts: string[], delayMs = 0): AsyncGenerator<string> {
  for (const part of parts) {
    if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
    yield part;
  }
}

/**
 * A server that says nothing more until the reader aborts the request (as a socket ends when destroyed): the reader's
 * own timer must end the read, and no fixed sleep has to outlast it.
 */
function heldUntilAbort(): { released: Promise<void>; abort: () => void } {
  let abort: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (abort = resolve));
  return { released, abort };
}

const options = (overrides: Partial<ReadOptions> = {}): ReadOptions => ({ maxMs: 2_000, maxBytes: 1 << 20, graceMs: 200, abort: () => {}, ...overrides });

const wire = 'id: 1\nevent: mission.started\ndata: {"a":1}\n\nid: 2\nevent: mission.completed\ndata: {"b":2}\n\n';

describe('readEventStream', () => {
  it('reads id, event and data, tracks the last id and sees the server close', async () => {
    const result = await readEventStream(chunks([wire]), options());
    expect(result.events.map((e) => [e.id, e.event, e.data])).toEqual([
      ['1', 'mission.started', '{"a":1}'],
      ['2', 'mission.completed', '{"b":2}'],
    ]);
    expect(result.lastEventId).toBe('2');
    expect(result.end).toBe('server');
  });

  it('gives the same events however the bytes are split into chunks', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: wire.length - 1 }), { maxLength: 8 }), async (cuts) => {
        const points = [...new Set(cuts)].sort((a, b) => a - b);
        const parts = [0, ...points].map((start, i) => wire.slice(start, points[i] ?? wire.length));
        const result = await readEventStream(chunks(parts), options());
        expect(result.events.map((e) => e.id)).toEqual(['1', '2']);
      }),
    );
  });

  it('drops the connection when asked to, and says so', async () => {
    let aborted = false;
    const result = await readEventStream(chunks([wire]), options({ onEvent: () => 'disconnect', abort: () => (aborted = true) }));
    expect(result.events).toHaveLength(1);
    expect(result.end).toBe('client-disconnect');
    expect(aborted).toBe(true);
  });

  it('reports a stream held open after the terminal event once the grace period passes', async () => {
    const held = heldUntilAbort();
    async function* heldOpen(): AsyncGenerator<string> {
      yield wire;
      await held.released;
      yield ': keep-alive\n\n';
    }
    const result = await readEventStream(heldOpen(), options({ graceMs: 100, abort: held.abort, onEvent: (e) => (e.event === 'mission.completed' ? 'terminal' : 'continue') }));
    expect(result.end).toBe('grace-expired');
  });

  it('stops at the time bound', async () => {
    const held = heldUntilAbort();
    async function* slow(): AsyncGenerator<string> {
      yield 'id: 1\ndata: x\n\n';
      await held.released;
      yield 'id: 2\ndata: y\n\n';
    }
    const result = await readEventStream(slow(), options({ maxMs: 100, abort: held.abort }));
    expect(result.end).toBe('timeout');
    expect(result.events).toHaveLength(1);
  });

  it('stops at the byte bound', async () => {
    const result = await readEventStream(chunks([wire, wire, wire]), options({ maxBytes: wire.length + 1 }));
    expect(result.end).toBe('byte-limit');
  });

  it('stops at the event cap and at a line that never ends, and notes invalid UTF-8 instead of hiding it', async () => {
    const many = await readEventStream(chunks(['data: x\n\n'.repeat(50)]), options({ maxEvents: 10 }));
    expect(many.end).toBe('event-limit');
    expect(many.events).toHaveLength(10);
    const endless = await readEventStream(chunks(Array.from({ length: 40 }, () => 'a'.repeat(16 * 1024))), options({ maxBytes: 1 << 30 }));
    expect(endless.end).toBe('byte-limit');
    const bytes = async function* () {
      yield Buffer.from('data: {"a":"', 'utf8');
      yield Buffer.from([0xff, 0xfe]);
      yield Buffer.from('"}\n\n', 'utf8');
    };
    const invalid = await readEventStream(bytes(), options());
    expect(invalid.invalidUtf8).toBe(true);
    expect(invalid.events).toHaveLength(1);
  });
});

/**
 * Events split across network writes at any byte: inside a multi-byte UTF-8 character, between the
 * `\r` and `\n` of a line break. SSE allows `\r\n`, `\n` and a bare `\r` as line endings, mixed.
 */
describe('readEventStream over every split position of the bytes', () => {
  async function* bytes(parts: Uint8Array[]): AsyncGenerator<Uint8Array> {
    for (const part of parts) yield part;
  }

  const text = fc.string({ unit: fc.constantFrom('a', 'Z', '{', '"', ' ', 'é', '€', '𝄞', '中', ':'), maxLength: 12 });
  const event = fc.record({ id: fc.option(fc.stringMatching(/^[a-z0-9]{1,6}$/), { nil: undefined }), type: fc.option(fc.constantFrom('message', 'run.completed', 'mission.started'), { nil: undefined }), data: text });
  const stream = fc.record({ events: fc.array(event, { minLength: 1, maxLength: 4 }), eol: fc.constantFrom('\n', '\r\n', '\r'), comment: fc.boolean() });

  function encode({ events, eol, comment }: { events: Array<{ id: string | undefined; type: string | undefined; data: string }>; eol: string; comment: boolean }): Uint8Array {
    const lines = events.flatMap((e) => [...(comment ? [': keepalive ✓'] : []), ...(e.id === undefined ? [] : [`id: ${e.id}`]), ...(e.type === undefined ? [] : [`event: ${e.type}`]), `data: ${e.data}`, '']);
    return new TextEncoder().encode(lines.map((l) => `${l}${eol}`).join(''));
  }

  it('gives the events of the whole body wherever one cut falls', async () => {
    await fc.assert(
      fc.asyncProperty(stream, async (s) => {
        const wire = encode(s);
        const expected = s.events.map((e) => [e.id, e.type, e.data]);
        for (let cut = 0; cut <= wire.length; cut += 1) {
          const result = await readEventStream(bytes([wire.subarray(0, cut), wire.subarray(cut)]), options());
          expect(result.events.map((e) => [e.id, e.event, e.data]), `cut at byte ${cut} of ${wire.length}`).toEqual(expected);
          expect(result.invalidUtf8, `cut at byte ${cut}`).toBeUndefined();
        }
      }),
      { numRuns: 60 },
    );
  });

  it('gives the same events when every byte arrives on its own', async () => {
    await fc.assert(
      fc.asyncProperty(stream, async (s) => {
        const wire = encode(s);
        const result = await readEventStream(bytes([...wire].map((b) => Uint8Array.of(b))), options());
        expect(result.events.map((e) => [e.id, e.event, e.data])).toEqual(s.events.map((e) => [e.id, e.type, e.data]));
      }),
      { numRuns: 60 },
    );
  });
});
