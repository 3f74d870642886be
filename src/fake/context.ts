import { EventEmitter } from 'node:events';
import { TokenRegistry } from './auth.ts';
import { FaultSet, type FaultId } from './faults/index.ts';
import { DEFAULT_RATE_LIMITS, mergeRateLimits, RateLimiter, type RateLimits, type RateLimitsInput } from './rate-limit.ts';
import { VariantSet, type VariantId } from './variants/index.ts';

/** A /v1 run event, published by the run engine so other parts of the fake (webhooks) can react. */
export interface RunEventNotice {
  tenant: string;
  principal: string;
  runId: string;
  /** e.g. `request.accepted`, `run.completed`, `run.failed`, `request.cancelled` */
  type: string;
  sequence: number;
  data: Record<string, unknown>;
}

export interface FakeConfig {
  /**
   * Origins (scheme://host:port) that webhook registration accepts although the URL rules
   * would reject them: only the harness's own loopback receiver. Every other URL is judged by the rules.
   */
  webhookAllowedOrigins: string[];
  /**
   * Public receiver URLs (a profile's `fixtures.webhooks.publicReceiverUrl`) and the loopback origin
   * each forwards to, as the tunnel or ingress a user runs in front of `receiverListen` does: the
   * fake accepts them as the harness receiver and delivers there, and still sends nothing off loopback.
   */
  webhookForwards: Record<string, string>;
  /**
   * Rate-limit tiers, per surface: a default tier and tiers by /v1 credential name (the embedded
   * profile's) or by /v8 principal, each `{ requests, windowSeconds }` (src/fake/rate-limit.ts, the
   * one limiter). By default only the probes are limited: /v1 `v1-rate-probe` (120 a minute, and
   * `v1-limiter-down` whose limiter is down), /v8 `principal-rate-probe` (10 a minute).
   */
  rateLimits: RateLimits;
  /** How many of a mission's most recent events a /v8 resume may name ("Size or duration of the replay window: not shown"). */
  v8ReplayWindow: number;
  /** Whether /v8 also redacts values that are sensitive only by shape (bearer, PEM, API-key strings) under neutral fields. */
  v8RedactsByShape: boolean;
  /** Where the split-writes variants cut event streams: the same seed cuts the same bytes. */
  sseSplitSeed: number;
}

export const DEFAULT_FAKE_CONFIG: FakeConfig = {
  webhookAllowedOrigins: [],
  webhookForwards: {},
  rateLimits: DEFAULT_RATE_LIMITS,
  v8ReplayWindow: 1000,
  v8RedactsByShape: true,
  sseSplitSeed: 27,
};

/**
 * How one fake instance behaves: the contract, bent by `faults` (each breaks one rule), with
 * `config` for limits. This is the one place a behaviour switch enters the fake: a variant (a legal
 * alternative behaviour, issue 11) is added here and to FakeContext beside `faults`, registered like
 * them (`variants/<surface>/<area>.ts`) and read like them, in its area's file.
 */
export interface FakeBehaviour {
  faults?: Iterable<FaultId>;
  /** Legal alternatives to take where the seeds or MCP leave a choice open (src/fake/variants). */
  variants?: Iterable<VariantId>;
  config?: FakeConfigInput;
  /** Build the issued tokens from these words rather than random bytes (TokenRegistry). */
  tokenWords?: readonly string[];
}

/** What a fake is configured with: any field of FakeConfig, and rate limits given per surface, added to the defaults. */
export type FakeConfigInput = Partial<Omit<FakeConfig, 'rateLimits'>> & { rateLimits?: RateLimitsInput };

/** What every surface module of the fake shares. */
export interface FakeContext {
  /** Read only in the file or folder of each fault's area (suites/harness/structure.test.ts). */
  faults: FaultSet;
  /** Read, like faults, only in the file or folder of each variant's area. */
  variants: VariantSet;
  tokens: TokenRegistry;
  config: FakeConfig;
  /** The one rate limiter of both surfaces, under `config.rateLimits`. */
  rateLimiter: RateLimiter;
  /** `run` events: RunEventNotice. */
  runEvents: EventEmitter<{ run: [RunEventNotice] }>;
  /** Timers and open streams registered here are cleared when the fake closes. */
  lifecycle: Lifecycle;
}

export function createFakeContext(behaviour: FakeBehaviour = {}): FakeContext {
  const config: FakeConfig = { ...DEFAULT_FAKE_CONFIG, ...behaviour.config, rateLimits: mergeRateLimits(DEFAULT_RATE_LIMITS, behaviour.config?.rateLimits) };
  // Receivers push their origins here: each instance its own list, or every fake in the process allows every receiver's origin.
  config.webhookAllowedOrigins = [...config.webhookAllowedOrigins];
  config.webhookForwards = { ...config.webhookForwards };
  return {
    faults: new FaultSet(behaviour.faults),
    variants: new VariantSet(behaviour.variants),
    tokens: new TokenRegistry(behaviour.tokenWords),
    config,
    rateLimiter: new RateLimiter(config.rateLimits),
    runEvents: new EventEmitter(),
    lifecycle: new Lifecycle(),
  };
}

export class Lifecycle {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly closers = new Set<() => void>();
  closed = false;

  /** setTimeout that never keeps the process alive and is cleared on close. */
  later(ms: number, fn: () => void): NodeJS.Timeout {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (!this.closed) fn();
    }, ms);
    timer.unref();
    this.timers.add(timer);
    return timer;
  }

  cancel(timer: NodeJS.Timeout): void {
    clearTimeout(timer);
    this.timers.delete(timer);
  }

  onClose(fn: () => void): () => void {
    this.closers.add(fn);
    return () => this.closers.delete(fn);
  }

  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const fn of this.closers) fn();
    this.closers.clear();
  }
}
