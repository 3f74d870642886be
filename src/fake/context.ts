import type { FaultSet } from './faults/index.ts';
import type { TokenRegistry } from './auth.ts';

/** What every surface module of the fake shares. */
export interface FakeContext {
  faults: FaultSet;
  tokens: TokenRegistry;
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
