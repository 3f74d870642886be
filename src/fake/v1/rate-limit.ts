/**
 * Per-key rate-limit tiers of the fake. The spec gives no tier values, so: `standard` keys get a
 * window large enough for a whole certification run, `probe` keys get `FakeConfig.v1RateLimitPerWindow`
 * (so a bounded burst reaches 429), and `unavailable` keys sit on a tier whose limiter is down.
 */
export type RateTier = 'standard' | 'probe' | 'unavailable';

const STANDARD_PER_WINDOW = 50_000;

/** `refused` counts the refusals of the current window, this one included. */
export type LimitDecision = { kind: 'ok' } | { kind: 'limited'; retryAfterMs: number; refused: number } | { kind: 'unavailable' };

export class RateLimiter {
  private readonly windows = new Map<string, { startedAt: number; count: number; refused: number }>();
  private readonly perWindow: number;
  private readonly windowMs: number;

  constructor(perWindow: number, windowMs: number) {
    this.perWindow = perWindow;
    this.windowMs = windowMs;
  }

  take(key: string, tier: RateTier, now = Date.now()): LimitDecision {
    if (tier === 'unavailable') return { kind: 'unavailable' };
    const limit = tier === 'probe' ? this.perWindow : STANDARD_PER_WINDOW;
    let window = this.windows.get(key);
    if (!window || now - window.startedAt >= this.windowMs) {
      window = { startedAt: now, count: 0, refused: 0 };
      this.windows.set(key, window);
    }
    if (window.count >= limit) {
      window.refused += 1;
      return { kind: 'limited', retryAfterMs: Math.max(0, window.startedAt + this.windowMs - now), refused: window.refused };
    }
    window.count += 1;
    return { kind: 'ok' };
  }
}
