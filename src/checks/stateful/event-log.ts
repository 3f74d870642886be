/**
 * What a model knows of one event stream: the events by position, learnt from reads from the start
 * and from resumes. Every later read must agree with it, so a resume that repeats or skips, or a
 * history that changes, shows up whichever read came first.
 */
import type { SseEvent, StreamEnd } from '../../rule/index.ts';

export interface LoggedEvent {
  id?: string;
  kind?: string;
}

function describe(e: LoggedEvent | undefined): string {
  return e ? `${e.kind ?? 'message'} (id ${e.id ?? 'none'})` : 'nothing';
}

export class EventLog {
  readonly events: LoggedEvent[] = [];
  private readonly kindOf: (e: SseEvent) => string | undefined;
  private readonly isTerminal: (kind: string | undefined) => boolean;

  constructor(kindOf: (e: SseEvent) => string | undefined, isTerminal: (kind: string | undefined) => boolean) {
    this.kindOf = kindOf;
    this.isTerminal = isTerminal;
  }

  /** Positions of events that carry an id: the cursors a client can resume from. */
  cursors(): number[] {
    return this.events.flatMap((e, i) => (e.id !== undefined ? [i] : []));
  }

  /** Position of the first terminal event known, or -1. */
  terminalAt(): number {
    return this.events.findIndex((e) => this.isTerminal(e.kind));
  }

  /**
   * Merges a read that started after position `after` (-1: from the start). Returns what is wrong,
   * or undefined: an event that differs from the one known at its position, an id seen before at
   * another position, or a stream the server closed before the terminal event known to follow.
   */
  merge(read: readonly SseEvent[], after: number, end: StreamEnd, what: string): string | undefined {
    for (const [j, raw] of read.entries()) {
      const position = after + 1 + j;
      const got: LoggedEvent = { kind: this.kindOf(raw) };
      if (raw.id !== undefined) got.id = raw.id;
      const known = this.events[position];
      if (known) {
        if (known.id !== got.id || known.kind !== got.kind) {
          const earlier = got.id === undefined ? -1 : this.events.findIndex((e) => e.id === got.id);
          const how = earlier >= 0 && earlier < position ? `it repeated event #${earlier + 1}` : earlier > position ? `it skipped to event #${earlier + 1}` : 'the history changed';
          return `${what} delivered ${describe(got)} as event #${position + 1}, where an earlier read had ${describe(known)}: ${how}`;
        }
        continue;
      }
      const duplicate = got.id === undefined ? -1 : this.events.findIndex((e) => e.id === got.id);
      if (duplicate >= 0) return `${what} delivered ${describe(got)} as event #${position + 1}, but that id is event #${duplicate + 1}: it repeated an event`;
      this.events.push(got);
    }
    const terminal = this.terminalAt();
    const delivered = after + read.length;
    if (end === 'server' && terminal > delivered) {
      return `${what} was closed by the server after event #${delivered + 1}, before ${describe(this.events[terminal])} known as event #${terminal + 1}: it skipped events`;
    }
    return undefined;
  }
}
