/**
 * Parses a complete text/event-stream body: what a client has once the server closed the stream
 * (a POST answered with SSE, a k6 script, which gets bodies whole). Pure and dependency-free on
 * purpose: k6 loads this module and can resolve nothing from npm. It follows the WHATWG parsing
 * rules the streaming reader gets from eventsource-parser, and a property test holds the two to
 * the same events (suites/harness/sse-text.test.ts).
 */

export interface TextEvent {
  id?: string;
  event?: string;
  data: string;
}

export interface ParsedEventText {
  events: TextEvent[];
  /** Lines that are not SSE fields (unknown field, bad `retry`), described in a few words. */
  errors: string[];
}

export interface ParseTextOptions {
  /**
   * Keep a last event that lacks its closing blank line. An EventSource drops it; a check that
   * judges the messages, not the framing, may choose to keep it.
   */
  keepUnterminated?: boolean;
}

/** Splits on CRLF, LF or CR; a last line without its line break is kept. */
function splitLines(text: string): { lines: string[] } {
  const lines: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c !== 10 && c !== 13) continue;
    lines.push(text.slice(start, i));
    if (c === 13 && text.charCodeAt(i + 1) === 10) i += 1;
    start = i + 1;
  }
  if (start < text.length) lines.push(text.slice(start));
  return { lines };
}

export function parseEventStreamText(body: string, options: ParseTextOptions = {}): ParsedEventText {
  const events: TextEvent[] = [];
  const errors: string[] = [];
  let id: string | undefined;
  let event: string | undefined;
  let data: string[] = [];
  const dispatch = () => {
    if (data.length > 0) {
      const out: TextEvent = { data: data.join('\n') };
      if (id !== undefined) out.id = id;
      if (event !== undefined) out.event = event;
      events.push(out);
    }
    id = undefined;
    event = undefined;
    data = [];
  };
  const text = body.charCodeAt(0) === 0xfeff ? body.slice(1) : body;
  const { lines } = splitLines(text);
  for (const line of lines) {
    if (line === '') {
      dispatch();
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(line.charCodeAt(colon + 1) === 32 ? colon + 2 : colon + 1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value || undefined;
    else if (field === 'id') {
      if (!value.includes('\0')) id = value;
    } else if (field === 'retry') {
      if (!/^\d+$/.test(value)) errors.push(`Invalid \`retry\` value: "${value}"`);
    } else errors.push(`Unknown field "${field.length > 20 ? `${field.slice(0, 20)}…` : field}"`);
  }
  // Without its blank line the last event was never dispatched; an EventSource would drop it.
  if (options.keepUnterminated) dispatch();
  return { events, errors };
}
