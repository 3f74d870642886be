/**
 * Remembers the first response per (scope, key) with a fingerprint of the request, so a repeat
 * can be told apart as a replay (same fingerprint) or a conflict (different fingerprint).
 */
export class IdempotencyStore<T> {
  private readonly entries = new Map<string, { fingerprint: string; stored: T }>();

  lookup(scope: string, key: string, fingerprint: string): { kind: 'new' } | { kind: 'replay'; stored: T } | { kind: 'conflict'; stored: T } {
    const entry = this.entries.get(`${scope}\u0000${key}`);
    if (!entry) return { kind: 'new' };
    return entry.fingerprint === fingerprint ? { kind: 'replay', stored: entry.stored } : { kind: 'conflict', stored: entry.stored };
  }

  /** The stored response when this request is a replay (same key, same fingerprint). */
  replayOf(scope: string, key: string, fingerprint: string): T | undefined {
    const seen = this.lookup(scope, key, fingerprint);
    return seen.kind === 'replay' ? seen.stored : undefined;
  }

  remember(scope: string, key: string, fingerprint: string, stored: T): void {
    this.entries.set(`${scope}\u0000${key}`, { fingerprint, stored });
  }
}
