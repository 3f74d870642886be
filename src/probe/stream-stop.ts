import type { StreamEnd } from '../rule/index.ts';

/**
 * The reason apicert's stream reader gives when it stops reading an answer before its server ended
 * it: its own bound (`timeout`, `byte-limit`, `event-limit`), a disconnect it chose
 * (`client-disconnect`), or the close grace run out (`CloseGraceExpired`). It travels as the abort's
 * reason to whoever watches the request below the client (the HAR recorder, an undici interceptor),
 * so a recording says what the reader knew, as certify's own journal does (`streamEnd`).
 * Named AbortError, as any abort is: what reads aborts by name still reads it as one.
 */
export class ReaderStopped extends Error {
  override readonly name = 'AbortError';
  readonly end: Exclude<StreamEnd, 'server'>;
  constructor(end: Exclude<StreamEnd, 'server'>, message = `apicert's reader stopped the stream (${end})`) {
    super(message);
    this.end = end;
  }
}

/**
 * The reader let go of an answer still open after the close grace that followed its terminal event:
 * the server held the stream open for the whole grace, not that a client merely let go.
 */
export class CloseGraceExpired extends ReaderStopped {
  readonly graceMs: number;
  constructor(graceMs: number) {
    super('grace-expired', `the stream was still open ${graceMs} ms after its terminal event`);
    this.graceMs = graceMs;
  }
}
