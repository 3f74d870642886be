import { createParser } from 'eventsource-parser';
import type { AfterEvent, ReadResult, SseEvent, StreamEnd } from '../rule/index.ts';

export interface ReadOptions {
  maxMs: number;
  maxBytes: number;
  /** Events kept at most; a stream sending more is cut (`event-limit`). */
  maxEvents?: number;
  graceMs: number;
  onEvent?: (event: SseEvent, seen: readonly SseEvent[]) => AfterEvent;
  /** Aborts the underlying request; called, with why, when the reader stops before the server closed. */
  abort: (end: StreamEnd) => void;
  /**
   * Keep a last event the server closed without its blank line. An EventSource drops it; a check
   * that judges the messages, not the framing (an MCP POST answer), keeps it.
   */
  keepUnterminated?: boolean;
}

/** A line longer than this is cut: the parser rescans an unfinished line on every chunk. */
const MAX_LINE_CHARS = 256 * 1024;

function lastLineBreak(text: string): number {
  return Math.max(text.lastIndexOf('\n'), text.lastIndexOf('\r'));
}

/** Reads an SSE body, bounded in time, bytes, events and line length, tracking the last id itself. */
export async function readEventStream(body: AsyncIterable<Uint8Array | string>, options: ReadOptions): Promise<ReadResult> {
  const started = performance.now();
  const events: SseEvent[] = [];
  const parseErrors: string[] = [];
  let lastEventId: string | undefined;
  let stopReason: StreamEnd | undefined;
  let terminalAt: number | undefined;
  let graceTimer: NodeJS.Timeout | undefined;
  const maxEvents = options.maxEvents ?? 10_000;
  const stop = (reason: StreamEnd) => {
    if (stopReason) return;
    stopReason = reason;
    options.abort(reason);
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
      if (events.length >= maxEvents) stop('event-limit');
    },
    onError(error) {
      if (parseErrors.length < 20) parseErrors.push(error.message);
    },
  });
  // The parser builds an Error per unknown field line; only its message is kept, so no stack is
  // captured (a hostile stream of 100,000 such lines otherwise costs most of a second of CPU).
  const feed = (text: string): void => {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      parser.feed(text);
    } finally {
      Error.stackTraceLimit = limit;
    }
  };
  // Event streams are UTF-8: the first invalid byte is a finding, the rest is read leniently.
  let decoder = new TextDecoder('utf-8', { fatal: true });
  let invalidUtf8 = false;
  const decode = (chunk: Uint8Array): string => {
    try {
      return decoder.decode(chunk, { stream: true });
    } catch {
      invalidUtf8 = true;
      decoder = new TextDecoder();
      return decoder.decode(chunk, { stream: true });
    }
  };
  let bytes = 0;
  let lineChars = 0;
  try {
    for await (const chunk of body) {
      const text = typeof chunk === 'string' ? chunk : decode(chunk);
      bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
      const cut = lastLineBreak(text);
      lineChars = cut === -1 ? lineChars + text.length : text.length - cut - 1;
      feed(text);
      if (bytes > options.maxBytes || lineChars > MAX_LINE_CHARS) stop('byte-limit');
      if (stopReason) break;
    }
    if (!stopReason && options.keepUnterminated) feed('\n\n');
    if (!stopReason) parser.reset({ consume: true });
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
  if (invalidUtf8) result.invalidUtf8 = true;
  if (end === 'server' && terminalAt !== undefined) result.closeAfterTerminalMs = Math.round(performance.now() - terminalAt);
  return result;
}
