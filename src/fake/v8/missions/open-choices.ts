/**
 * Legal choices of /v8 missions the description leaves open on the request side
 * (docs/legal-variation.md): each variant takes the other choice from the fake's default.
 */
import type { VariantSet } from '../../variants/index.ts';
import type { RouteRequest } from '../../http.ts';
import { withBody } from '../../support/route-body.ts';
import { isRecord } from '../../../util/json.ts';
import type { WriteProblem } from '../contract.ts';

/** Longer than this, a natural-language task is refused under `v8.missions/task-text-bounds`. */
const TASK_MAX = 4096;

/** The request to route (its body perhaps rewritten), or undefined when a variant already answered. */
export function missionsOpenChoice(v: VariantSet, r: RouteRequest, body: unknown, writeProblem: WriteProblem): RouteRequest | undefined {
  if (r.path === '/v8/missions' && isRecord(body)) {
    const task = isRecord(body.goalSpec) ? body.goalSpec.task : undefined;
    if (typeof task === 'string' && v.has('v8.missions/task-text-bounds')) {
      if (task.trim() === '') {
        writeProblem(400, 'invalid_request', 'goalSpec.task must be a non-empty string.');
        return undefined;
      }
      if (task.length > TASK_MAX) {
        writeProblem(413, 'payload_too_large', `goalSpec.task is longer than ${TASK_MAX} characters.`);
        return undefined;
      }
    }
  }
  if (/^\/v8\/missions\/[^/]+\/signals$/.test(r.path) && isRecord(body) && body.payload === null && v.has('v8.missions/signal-null-payload-accepted')) {
    // Null is taken as a JSON value like any other; the fake records it as an empty object.
    return withBody(r, { ...body, payload: {} });
  }
  return r;
}
