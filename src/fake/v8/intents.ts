import { randomUUID } from 'node:crypto';
import { IDEMPOTENCY_KEY_PATTERN } from '../../contract/v8/common.ts';
import type { Route, RouteRequest } from '../http.ts';
import type { ReadSurface } from './read-surface.ts';

/**
 * POST /v8/intents, only under the variant: one overview lists it among the mutating operations,
 * another omits it, and the seed shows neither its payload nor its response. The fake's default
 * is the 14-operation reading (no route, 404); the variant takes the other one.
 */
export function intentsRoutes(surface: ReadSurface): Route[] {
  if (!surface.fake.variants.has('v8.intents/present')) return [];
  const { v8 } = surface;

  async function submit(r: RouteRequest): Promise<void> {
    if (!v8.authorize(r, 'missions:write')) return;
    const key = r.header('idempotency-key');
    if (key === undefined || !IDEMPOTENCY_KEY_PATTERN.test(key)) {
      v8.problem(r.res, 400, 'idempotency_key_invalid', 'This operation mutates state: send an Idempotency-Key header (16-128 characters of A-Za-z0-9 . _ : -).');
      return;
    }
    const body = await surface.jsonBody(r);
    if (body === undefined) return;
    if (!body || typeof body !== 'object' || typeof (body as { intent?: unknown }).intent !== 'string') {
      v8.problem(r.res, 400, 'invalid_request', 'body.intent: a string is required.');
      return;
    }
    v8.json(r.res, 202, { intentId: randomUUID(), status: 'accepted' });
  }

  return [{ method: 'POST', pattern: /^\/v8\/intents$/, handler: submit }];
}
