/**
 * The fake's one rate limiter, for /v1 (per API key) and /v8 (per principal). The seeds state that
 * limits exist but give no values, so the tiers are configuration (`FakeConfig.rateLimits`): each
 * surface has a default tier and tiers by name, a /v1 credential name of the embedded profile or a
 * /v8 principal. The defaults keep every ordinary caller far from any limit in a certification run
 * and put one probe per surface on a tier a bounded burst exhausts.
 */
import { RATE_PROBE_PRINCIPAL } from '../../scenarios/v8/principal.ts';

/** At most `requests` requests per window of `windowSeconds` seconds (fixed windows, from a caller's first request). */
export interface RateTier {
  requests: number;
  windowSeconds: number;
}

/** A /v1 key whose rate-limit protection is down: every request is refused fail-closed with 503. */
export const LIMITER_DOWN = 'unavailable';

export interface V1RateLimits {
  /** The tier of every key not named in `credentials`; undefined: not limited. */
  default?: RateTier;
  /** Tiers by the credential name the embedded profile gives the key (`v1-rate-probe`, ...). */
  credentials: Record<string, RateTier | typeof LIMITER_DOWN>;
}

export interface V8RateLimits {
  /** The tier of every principal not named in `principals`; undefined: not limited. */
  default?: RateTier;
  /** Tiers by principal (`principal-rate-probe`, ...). */
  principals: Record<string, RateTier>;
}

export interface RateLimits {
  v1: V1RateLimits;
  v8: V8RateLimits;
}

/** What `startFake({ config: { rateLimits } })` takes: a surface's `default` given replaces the fake's, its named tiers are added to the fake's. */
export interface RateLimitsInput {
  v1?: Partial<V1RateLimits>;
  v8?: Partial<V8RateLimits>;
}

/** The embedded profile's /v1 keys on special tiers (src/fake/v1/embedded.ts names them so). */
export const V1_RATE_PROBE_KEY = 'v1-rate-probe';
export const V1_LIMITER_DOWN_KEY = 'v1-limiter-down';

export const DEFAULT_RATE_LIMITS: RateLimits = {
  v1: {
    default: { requests: 50_000, windowSeconds: 60 },
    credentials: { [V1_RATE_PROBE_KEY]: { requests: 120, windowSeconds: 60 }, [V1_LIMITER_DOWN_KEY]: LIMITER_DOWN },
  },
  // Only the low-tier probe principal is limited: the load script's ramp needs a default to be set.
  v8: { principals: { [RATE_PROBE_PRINCIPAL]: { requests: 10, windowSeconds: 60 } } },
};

/** The fake's limits with `input` applied: a surface's `default` given replaces the fake's (undefined: no limit), named tiers are added. */
export function mergeRateLimits(base: RateLimits, input: RateLimitsInput = {}): RateLimits {
  const v1 = input.v1 ?? {};
  const v8 = input.v8 ?? {};
  return {
    v1: { ...defaultOf(v1, base.v1), credentials: { ...base.v1.credentials, ...v1.credentials } },
    v8: { ...defaultOf(v8, base.v8), principals: { ...base.v8.principals, ...v8.principals } },
  };
}

function defaultOf(given: { default?: RateTier | undefined }, base: { default?: RateTier }): { default?: RateTier } {
  const tier = 'default' in given ? given.default : base.default;
  return tier ? { default: tier } : {};
}

/** `refused` counts the refusals of the current window, this one included. */
export type LimitDecision = { kind: 'ok' } | { kind: 'limited'; retryAfterMs: number; refused: number } | { kind: 'unavailable' };

/**
 * The limiter of one fake instance: fixed windows per bucket (a /v1 key, a /v8 principal), each
 * window under the tier its caller had when it started.
 */
export class RateLimiter {
  private readonly windows = new Map<string, { startedAt: number; windowMs: number; count: number; refused: number }>();
  private readonly limits: RateLimits;

  constructor(limits: RateLimits) {
    this.limits = limits;
  }

  /** One /v1 request of the key `token`, which the embedded profile calls `name` (undefined for keys it does not name). */
  v1(token: string, name: string | undefined, now = Date.now()): LimitDecision {
    const { credentials, default: tier } = this.limits.v1;
    return this.take(`v1 ${token}`, (name === undefined ? undefined : credentials[name]) ?? tier, now);
  }

  /** One /v8 request of `principal`, counted in its own bucket under its tier (`instead`, when given, in place of the default one). */
  v8(principal: string, now = Date.now(), instead?: RateTier): LimitDecision {
    const { principals, default: tier } = this.limits.v8;
    return this.take(`v8 ${principal}`, principals[principal] ?? instead ?? tier, now);
  }

  /**
   * One /v8 request of `principal` counted in a bucket that every limited principal shares, under
   * the strictest /v8 tier (a load fault pools them so); a principal on no tier stays unlimited.
   */
  v8Pooled(principal: string, now = Date.now()): LimitDecision {
    return this.take('v8 everyone', this.strictestV8(principal), now);
  }

  /**
   * One /v8 request of `principal` in a gateway-wide bucket besides its own (the variant
   * `v8.rate-limit/global-limit`): every principal on a tier counts, under twice the strictest /v8
   * tier, whether its own bucket then serves it or not.
   */
  v8Global(principal: string, now = Date.now()): LimitDecision {
    const strictest = this.strictestV8(principal);
    return strictest ? this.take('v8 global', { requests: strictest.requests * 2, windowSeconds: strictest.windowSeconds }, now) : { kind: 'ok' };
  }

  /** The strictest /v8 tier, when `principal` is on one (a principal on no tier stays unlimited). */
  private strictestV8(principal: string): RateTier | undefined {
    const { principals, default: tier } = this.limits.v8;
    if (!(principals[principal] ?? tier)) return undefined;
    const tiers = [...Object.values(principals), ...(tier ? [tier] : [])];
    return tiers.sort((a, b) => a.requests / a.windowSeconds - b.requests / b.windowSeconds)[0];
  }

  private take(bucket: string, tier: RateTier | typeof LIMITER_DOWN | undefined, now: number): LimitDecision {
    if (tier === LIMITER_DOWN) return { kind: 'unavailable' };
    if (!tier) return { kind: 'ok' };
    let window = this.windows.get(bucket);
    if (!window || now - window.startedAt >= window.windowMs) {
      window = { startedAt: now, windowMs: tier.windowSeconds * 1000, count: 0, refused: 0 };
      this.windows.set(bucket, window);
    }
    if (window.count >= tier.requests) {
      window.refused += 1;
      return { kind: 'limited', retryAfterMs: Math.max(0, window.startedAt + window.windowMs - now), refused: window.refused };
    }
    window.count += 1;
    return { kind: 'ok' };
  }
}

/** The embedded profile's declaration of the tier the fake enforces for `name` (fixtures.*.rateLimitTiers), when it has one. */
export function declaredTier(tier: RateTier | typeof LIMITER_DOWN | undefined, name: string): { rateLimitTiers?: Record<string, RateTier> } {
  return tier && tier !== LIMITER_DOWN ? { rateLimitTiers: { [name]: tier } } : {};
}

/** Whole seconds for Retry-After, at least 1. */
export const retryAfterSeconds = (retryAfterMs: number): number => Math.max(1, Math.ceil(retryAfterMs / 1000));
