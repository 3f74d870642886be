/**
 * What the proxy watches of an event stream as it passes: when the first event the closing rules
 * read as terminal went by. The proxy is the reader that saw who ended a stream: when its client
 * (or the proxy's stop) closed one still open more than safety.streamCloseGraceMs after that event,
 * the server held it open as certify's reader would have found it (`grace-expired`), which the
 * rules on closing a stream fail ("The stream closes after a terminal event").
 *
 * "Terminal" is the rules' own reading, imported from them: a mission event stream's
 * (v8.missions.events.closes-after-terminal), a run's or a turn's (v1: the profile's terminal
 * kinds). The events are read by the parser the probe's reader uses (held to the recording's
 * text parser by suites/harness/sse-text.test.ts), over the bytes the record keeps.
 */
import { createParser, type EventSourceParser } from 'eventsource-parser';
import type { Profile } from '../profile/schema.ts';
import type { SseEvent } from '../rule/index.ts';
import { operation } from '../traffic/read.ts';
import { isTerminalEvent } from '../checks/v8/support/missions.ts';
import { endsRun, terminalKindsOf } from '../checks/v1/support/traffic.ts';
import { mediaType, targetOf } from './exchange.ts';
import type { RecordedBytes } from './har.ts';

type IsTerminal = (e: Pick<SseEvent, 'event' | 'data'>) => boolean;

/** The default of safety.streamCloseGraceMs (src/profile/schema.ts) when the proxy has no profile. */
const DEFAULT_GRACE_MS = 2_000;

/** How the proxy watches streams: the close grace, and the closing rules' terminal reading of an answer. */
export interface StreamWatching {
  graceMs: number;
  /** A watch of this answer (its head recorded), or undefined when it is no 2xx event stream a closing rule reads, or is not read as sent (a content coding). */
  watch(rec: RecordedBytes): StreamWatch | undefined;
}

export function streamWatching(profile: Profile | undefined): StreamWatching {
  const v1Terminal = endsRun(terminalKindsOf(profile));
  const v8Terminal: IsTerminal = (e) => isTerminalEvent(e.event);
  const terminalOf = (rec: RecordedBytes): IsTerminal | undefined => {
    const op = operation({ method: rec.method, path: targetOf(rec.url), requestHeaders: rec.requestHeaders });
    if (op === 'v8.missions.events') return v8Terminal;
    if (op === 'v1.runs.events' || op === 'v1.execute') return v1Terminal;
    return undefined;
  };
  return {
    graceMs: profile?.safety.streamCloseGraceMs ?? DEFAULT_GRACE_MS,
    watch(rec) {
      if (rec.status === undefined || rec.status < 200 || rec.status > 299 || mediaType(rec.responseHeaders) !== 'text/event-stream') return undefined;
      const coding = (rec.responseHeaders['content-encoding'] ?? '').trim().toLowerCase();
      if (coding !== '' && coding !== 'identity') return undefined;
      const isTerminal = terminalOf(rec);
      return isTerminal === undefined ? undefined : new StreamWatch(isTerminal);
    },
  };
}

/** One stream's watch: fed the answer's kept bytes as they pass, until its first terminal event. */
export class StreamWatch {
  /** When (performance.now()) the first terminal event passed; undefined until one did. */
  terminalAt: number | undefined;
  private readonly decoder = new TextDecoder('utf-8');
  private readonly parser: EventSourceParser;

  constructor(isTerminal: IsTerminal) {
    // No onError: the parser then builds no error per line it cannot read (a hostile stream's many).
    this.parser = createParser({
      onEvent: (message) => {
        // An empty type is none, as the recording's parser reads it (src/sse/text.ts).
        if (this.terminalAt === undefined && isTerminal({ event: message.event || undefined, data: message.data })) this.terminalAt = performance.now();
      },
    });
  }

  /** Bytes of the answer's body, in order; nothing more is read once the terminal event passed. */
  add(bytes: Uint8Array): void {
    if (this.terminalAt !== undefined || bytes.length === 0) return;
    this.parser.feed(this.decoder.decode(bytes, { stream: true }));
  }
}
