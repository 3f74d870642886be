/** Pieces every load scenario shares: headers, the answers that judge nothing. */
import type { LoadResponse } from '../transport.ts';

export function bearer(token: string, extra: Record<string, string> = {}): Record<string, string> {
  return { Authorization: `Bearer ${token}`, ...extra };
}

/**
 * No answer, a refusal a load test may provoke (429, 503), or a credential the target refuses:
 * such an answer says nothing about the rule under load, so it is not judged.
 */
export function unjudgeable(res: LoadResponse): boolean {
  return res.status === 0 || res.status === 401 || res.status === 403 || res.status === 429 || res.status === 503;
}

export function repeat<T>(count: number, make: (i: number) => T): T[] {
  return Array.from({ length: count }, (_, i) => make(i));
}
