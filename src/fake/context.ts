import { EventEmitter } from 'node:events';
import { TokenRegistry } from './auth.ts';
import { FaultSet, type FaultId } from './faults/index.ts';
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
  /** Requests per key per window before /v1 answers 429. */
  v1RateLimitPerWindow: number;
  v1RateLimitWindowMs: number;
  /** How many of a mission's most recent events a /v8 resume may name ("Size or duration of the replay window: not shown"). */
  v8ReplayWindow: number;
  /** Mission creates per minute of the low-tier probe principal before /v8 answers 429. */
  v8RateLimitPerWindow: number;
  /** Whether /v8 also redacts values that are sensitive only by shape (bearer, PEM, API-key strings) under neutral fields. */
  v8RedactsByShape: boolean;
  /**
   * The /v8 per-principal limiter: off when undefined (the seed gives no numbers). `principals`
   * puts only those principals on the limited tier (a declared low tier, like /v1's probe keys),
   * so the other load scripts' principal is never refused; every principal when absent.
   */
  v8RateLimit?: { perWindow: number; windowMs: number; principals?: readonly string[] };
}

export const DEFAULT_FAKE_CONFIG: FakeConfig = {
  webhookAllowedOrigins: [],
  v1RateLimitPerWindow: 120,
  v1RateLimitWindowMs: 60_000,
  v8ReplayWindow: 1000,
  v8RateLimitPerWindow: 10,
  v8RedactsByShape: true,
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
  config?: Partial<FakeConfig>;
}

/** What every surface module of the fake shares. */
export interface FakeContext {
  /** Read only in the file or folder of each fault's area (suites/harness/structure.test.ts). */
  faults: FaultSet;
  /** Read, like faults, only in the file or folder of each variant's area. */
  variants: VariantSet;
  tokens: TokenRegistry;
  config: FakeConfig;
  /** `run` events: RunEventNotice. */
  runEvents: EventEmitter<{ run: [RunEventNotice] }>;
  /** Timers and open streams registered here are cleared when the fake closes. */
  lifecycle: Lifecycle;
}

export function createFakeContext(behaviour: FakeBehaviour = {}): FakeContext {
  return {
    faults: new FaultSet(behaviour.faults),
    variants: new VariantSet(behaviour.variants),
    tokens: new TokenRegistry(),
    config: { ...DEFAULT_FAKE_CONFIG, ...behaviour.config },
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
