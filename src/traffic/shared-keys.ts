/**
 * Requests whose idempotency key another request of the same scope carried while they were in
 * flight. Which of two overlapping requests a deployment processed first is not in the recording (a
 * recorder lists them as they were sent, not as they were taken): either may be the original, the
 * other its replay, its conflict, or its in-progress refusal. Neither is a request with a fresh key,
 * so no rule holds it to a fresh key's answer; the idempotency rules judge such pairs
 * (src/traffic/idempotency.ts, `refusedInFlight`).
 */
import type { Exchange } from '../rule/index.ts';
import { journalFact, operation, startsAfterEnd } from './read.ts';

/** How many later same-key requests, in journal order, each one is compared with. */
const IN_FLIGHT_REACH = 64;

/**
 * The exchanges among `keyed` (each with its keys, already scoped to a caller and endpoint) that
 * share a key with another one overlapping it in time: neither `startsAfterEnd` the other. Without
 * timings an exchange is taken as after the one before it, so journal order decides alone.
 */
export function sharingKeysInFlight(keyed: Iterable<readonly [Exchange, readonly string[]]>): ReadonlySet<Exchange> {
  const byKey = new Map<string, Exchange[]>();
  for (const [ex, keys] of keyed) {
    for (const key of keys) {
      const group = byKey.get(key);
      if (group) group.push(ex);
      else byKey.set(key, [ex]);
    }
  }
  const sharing = new Set<Exchange>();
  for (const group of byKey.values()) {
    if (group.length < 2) continue;
    group.sort((a, b) => a.index - b.index);
    for (let i = 0; i < group.length; i += 1) {
      const earlier = group[i]!;
      // Requests in flight together are near in journal order (a client's concurrency): the next IN_FLIGHT_REACH of the group are
      // compared, so a hostile recording whose every request carries one key is read in linear time, not quadratic.
      for (let k = i + 1; k < Math.min(group.length, i + 1 + IN_FLIGHT_REACH); k += 1) {
        const later = group[k]!;
        if (later.index === earlier.index || startsAfterEnd(later, earlier)) continue;
        sharing.add(earlier);
        sharing.add(later);
      }
    }
  }
  return sharing;
}

/** A request's Idempotency-Key header scoped to its caller (its credential, else its Authorization) and operation; undefined without one. */
export function callerKeyOf(ex: Exchange): string | undefined {
  const key = ex.requestHeaders['idempotency-key'];
  return key === undefined ? undefined : `${ex.credential ?? ex.requestHeaders.authorization ?? ''}\n${operation(ex)}\n${key}`;
}

/**
 * Whether `ex` shares its key (`keyOf`: the key scoped to its caller and endpoint, or undefined) with
 * another exchange of the journal in flight at the same time. A journal fact per `keyOf`: pass a
 * module-level function, never a closure made per call.
 */
export function sharesKeyInFlight(exchanges: readonly Exchange[], ex: Exchange, keyOf: (ex: Exchange) => string | undefined = callerKeyOf): boolean {
  return journalFact(exchanges, keyedInFlight, keyOf).has(ex);
}

function keyedInFlight(exchanges: readonly Exchange[], keyOf: (ex: Exchange) => string | undefined): ReadonlySet<Exchange> {
  const keyed: Array<readonly [Exchange, readonly string[]]> = [];
  for (const ex of exchanges) {
    const key = keyOf(ex);
    if (key !== undefined) keyed.push([ex, [key]]);
  }
  return sharingKeysInFlight(keyed);
}
