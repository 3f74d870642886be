import { createParser } from 'eventsource-parser';
import type { AfterEvent, ReadResult, SseEvent, StreamEnd } from '../rule/index.ts';

export interface ReadOptions {
  maxMs: number;
  maxBytes: number;
  graceMs: number;
  onEvent?: (event: SseEvent, seen: readonly SseEvent[]) => AfterEvent;
  /** Aborts the underlying request; called when the reader stops before the server closed. */
  abort: () => void;
}

/** Reads an SSE body, bounded in time and bytes, tracking the last id itself. */
export async function readEventStream(body: AsyncIterable<Uint8Array | string>, options: ReadOptions): Promise<ReadResult> {
  const started = performance.now();
  const events: SseEvent[] = [];
  const parseErrors: string[] = [];
  let lastEventId: string | undefined;
  let stopReason: StreamEnd | undefined;
  let terminalAt: number | undefined;
  let graceTimer: NodeJS.Timeout | undefined;
  const stop = (reason: StreamEnd) => {
    if (stopReason) return;
    stopReason = reason;
    options.abort();
  };
  const deadline = setTimeout(() => stop('timeout'), options.maxMs);
  const parser = createParser({
    onEvent(message) {
      if (stopReason) return;
      const event: SseEvent = { data: message.data, atMs: Math.round(performance.now() - started) };
      if (message.id !== undefined) event.id = message.id;
      if (message.event !== undefined) event.event = message.event;
      events.push(event);
      if (message.id !== undefined) lastEventId = message.id;
      const next = options.onEvent?.(event, events) ?? 'continue';
      if (next === 'disconnect') stop('client-disconnect');
      if (next === 'terminal' && terminalAt === undefined) {
        terminalAt = performance.now();
        graceTimer = setTimeout(() => stop('grace-expired'), options.graceMs);
      }
    },
    onError(error) {
      parseErrors.push(error.message);
    },
  });
  const decoder = new TextDecoder();
  let bytes = 0;
  try {
    for await (const chunk of body) {
      const text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
      bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
      parser.feed(text);
      if (bytes > options.maxBytes) stop('byte-limit');
      if (stopReason) break;
    }
    parser.reset({ consume: true });
  } catch (error) {
    // An abort we caused ends the loop with an error; anything else is transport trouble.
    if (!stopReason) throw error;
  } finally {
    clearTimeout(deadline);
    if (graceTimer) clearTimeout(graceTimer);
  }
  const end: StreamEnd = stopReason ?? 'server';
  const result: ReadResult = { events, end, parseErrors };
  if (lastEventId !== undefined) result.lastEventId = lastEventId;
  if (end === 'server' && terminalAt !== undefined) result.closeAfterTerminalMs = Math.round(performance.now() - terminalAt);
  return result;
}
