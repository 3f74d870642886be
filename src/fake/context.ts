import { EventEmitter } from 'node:events';
import type { FaultSet } from './faults/index.ts';
import type { TokenRegistry } from './auth.ts';

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
  /** The /v8 per-principal limiter: off when undefined (the seed gives no numbers). */
  v8RateLimit?: { perWindow: number; windowMs: number };
}

export const DEFAULT_FAKE_CONFIG: FakeConfig = {
  webhookAllowedOrigins: [],
  v1RateLimitPerWindow: 120,
  v1RateLimitWindowMs: 60_000,
};

/** What every surface module of the fake shares. */
export interface FakeContext {
  faults: FaultSet;
  tokens: TokenRegistry;
  config: FakeConfig;
  /** `run` events: RunEventNotice. */
  runEvents: EventEmitter<{ run: [RunEventNotice] }>;
  /** Timers and open streams registered here are cleared when the fake closes. */
  lifecycle: Lifecycle;
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
