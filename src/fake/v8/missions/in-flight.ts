/**
 * The variant `v8.missions/in-flight-409`: a create whose Idempotency-Key belongs to a create still
 * being processed is refused 409 instead of waiting for its answer. "Replay with the same key and the
 * same body returns the original response without re-executing" speaks of an original that was
 * answered; nothing is said of a duplicate that arrives before it (Stripe's and the IETF
 * Idempotency-Key draft's "request in progress" 409).
 */
import type { RouteRequest } from '../../http.ts';
import { inFlightOf } from '../../support/in-flight.ts';
import type { MissionSurface } from './surface.ts';

/** How long the variant holds a new keyed create in flight before it creates the mission. */
export const V8_IN_FLIGHT_MS = 50;

export interface KeyedCreate {
  key: string;
  scopeKey: string;
  fingerprint: string;
}

/**
 * Under the variant, a create whose key belongs to a create still in flight is answered 409 itself
 * (true): "in progress" for the same body (retried once the first is answered, it replays), the
 * conflict for another body.
 */
export function answeredInFlight(surface: MissionSurface, r: RouteRequest, create: KeyedCreate, conflictDetail: string): boolean {
  const fingerprint = inFlightOf(surface.idempotency).get(`${create.scopeKey}\u0000${create.key}`);
  if (fingerprint === undefined) return false;
  if (fingerprint === create.fingerprint) surface.v8.problem(r.res, 409, 'idempotency_in_progress', 'A request with this Idempotency-Key is still being processed: retry it shortly to get its answer.', { 'retry-after': '1' });
  else surface.v8.problem(r.res, 409, 'idempotency_conflict', conflictDetail);
  return true;
}

/** Holds a new keyed create in flight for a moment under the variant (creates with its key meet `answeredInFlight`); returns its release. */
export async function holdInFlight(surface: MissionSurface, create: KeyedCreate): Promise<() => void> {
  if (!surface.fake.variants.has('v8.missions/in-flight-409')) return () => undefined;
  const held = inFlightOf(surface.idempotency);
  const name = `${create.scopeKey}\u0000${create.key}`;
  held.set(name, create.fingerprint);
  await new Promise((resolve) => setTimeout(resolve, V8_IN_FLIGHT_MS));
  return () => held.delete(name);
}
