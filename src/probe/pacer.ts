/**
 * `certify --max-rps N`: the probes of a whole run, every check at once (safety.concurrency of
 * them), leave at most N requests per second, evenly spaced. A rule whose point is a burst (the
 * rate-limit rules) sends without it: a paced burst would never reach the limit it probes.
 */
export class RequestPacer {
  private readonly intervalMs: number;
  private next = 0;

  readonly maxPerSecond: number;

  constructor(maxPerSecond: number) {
    this.maxPerSecond = maxPerSecond;
    if (!(maxPerSecond > 0)) throw new RangeError('maxPerSecond must be above 0');
    this.intervalMs = 1000 / maxPerSecond;
  }

  /** Resolves when the next request may leave; at once when `signal` is aborted (the caller then stops). */
  wait(signal?: AbortSignal): Promise<void> {
    const now = performance.now();
    const slot = Math.max(now, this.next);
    this.next = slot + this.intervalMs;
    const delay = slot - now;
    if (delay <= 0 || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, delay);
      function done() {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      }
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}
