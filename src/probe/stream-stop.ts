/**
 * The reason apicert's stream reader gives when it lets go of an answer still open after the close
 * grace that followed its terminal event. It travels as the abort's reason to whoever watches the
 * request below the client (the HAR recorder, an undici interceptor), so a recording says what the
 * reader knew: the server held the stream open for the whole grace, not that a client merely let go.
 * Named AbortError, as any abort is: what reads aborts by name still reads it as one.
 */
export class CloseGraceExpired extends Error {
  override readonly name = 'AbortError';
  readonly graceMs: number;
  constructor(graceMs: number) {
    super(`the stream was still open ${graceMs} ms after its terminal event`);
    this.graceMs = graceMs;
  }
}
