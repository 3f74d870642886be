import type { FakeCaller } from '../../auth.ts';
import type { RouteRequest } from '../../http.ts';
import { inFlightOf } from '../../support/in-flight.ts';
import { pipe } from '../runs/stream.ts';
import type { StoredExecution } from '../state.ts';
import type { V1Surface } from '../surface.ts';
import type { ExecuteRequest } from './request.ts';

/** Whose keys a key is compared with: one principal of one tenant. */
export function keyScope({ fake }: V1Surface, caller: FakeCaller): string {
  return fake.faults.has('v1.execute.idempotency.scope/global-keys') ? 'v1' : `${caller.tenant}\u0001${caller.principal}\u0001v1`;
}

/** What a refused (429 or 503) request leaves under its key: nothing, unless a fault burns the key. */
export function burnKeyOnRefusal({ fake, state }: V1Surface, scope: string, request: ExecuteRequest): (status: 429 | 503) => void {
  return (status) => {
    const fault = status === 429 ? 'v1.execute.idempotency.retry-after-429/key-burnt' : 'v1.execute.idempotency.retry-after-503/key-burnt';
    if (request.key !== undefined && fake.faults.has(fault)) state.idempotency.remember(scope, request.key, request.fingerprint, { kind: 'refusal', status });
  };
}

function respondStored({ fake, v1, state }: V1Surface, r: RouteRequest, stored: StoredExecution): void {
  if (stored.kind === 'refusal') {
    v1.problem(r.res, stored.status, stored.status === 429 ? 'rate_limited' : 'internal_failed', { detail: 'Replayed refusal.', retryable: true });
    return;
  }
  const run = state.engine.runs.get(stored.runId);
  if (stored.kind === 'task' || !run) {
    const original = stored.kind === 'task' ? (JSON.parse(stored.body) as Record<string, unknown>) : { run_id: stored.runId, replayed: true };
    // The task response is open: a replay may say that it is one, and carry a request id of its own.
    const marked = fake.variants.has('v1.execute/replay-marked') ? { ...original, replayed: true, request_id: `req_${Date.now().toString(36)}` } : original;
    v1.json(r.res, 200, marked);
    return;
  }
  pipe(fake, state.engine, r.res, run, 0, { replayed: true, holdOpen: fake.faults.has('v1.execute.turn.stream/held-open') });
}

/** Answers a repeated key itself (replay or 409) and returns true; false when the request is new. */
export function answeredByKey(surface: V1Surface, r: RouteRequest, scope: string, request: ExecuteRequest): boolean {
  const { fake, state } = surface;
  if (request.key === undefined) return false;
  const seen = state.idempotency.lookup(scope, request.key, request.fingerprint);
  if (seen.kind === 'new') return false;
  if (seen.kind === 'replay') {
    if (fake.faults.has('v1.execute.idempotency.replay/re-executes') && seen.stored.kind !== 'refusal') return false;
    respondStored(surface, r, seen.stored);
    return true;
  }
  if (fake.faults.has('v1.execute.idempotency.conflict/replays-different-body')) respondStored(surface, r, seen.stored);
  else refuseOtherRequest(surface, r);
  return true;
}

/** The 409 to a key used with another request, whether that request is stored or still in flight. */
function refuseOtherRequest({ v1 }: V1Surface, r: RouteRequest): void {
  v1.problem(r.res, 409, 'conflict', { detail: 'This Idempotency-Key was used with a different request: use a new key for a new request.', retryable: false });
}

/** How long the variant holds a new keyed request in flight (processing) before it starts the run. */
export const IN_FLIGHT_MS = 50;

/**
 * Under the variant, a request whose key belongs to a request still being processed is answered 409
 * itself (true): code `idempotency_replay`, retryable, for the same request (retry it and it replays),
 * `conflict` for another. "Same key with the same request replays safely" says nothing of a request
 * arriving before the first is done, and "Mapping of each `code` to an HTTP status: not shown."
 */
export function answeredInFlight(surface: V1Surface, r: RouteRequest, scope: string, request: ExecuteRequest): boolean {
  if (request.key === undefined) return false;
  const digest = inFlightOf(surface.state).get(`${scope}\u0001${request.key}`);
  if (digest === undefined) return false;
  if (digest === request.fingerprint) surface.v1.problem(r.res, 409, 'idempotency_replay', { detail: 'A request with this Idempotency-Key is still being processed: retry it shortly to get its answer.', retryable: true });
  else refuseOtherRequest(surface, r);
  return true;
}

/** Holds a new keyed request in flight for a moment under the variant (requests with its key meet `answeredInFlight`); returns its release. */
export async function holdInFlight(surface: V1Surface, scope: string, request: ExecuteRequest): Promise<() => void> {
  if (request.key === undefined || !surface.fake.variants.has('v1.execute/in-flight-409')) return () => undefined;
  const held = inFlightOf(surface.state);
  const name = `${scope}\u0001${request.key}`;
  held.set(name, request.fingerprint);
  await new Promise((resolve) => setTimeout(resolve, IN_FLIGHT_MS));
  return () => held.delete(name);
}
