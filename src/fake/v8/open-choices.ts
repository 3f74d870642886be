/**
 * Legal choices of /v8 the descriptions leave open on the request side (docs/legal-variation.md):
 * each variant takes the other choice from the fake's default before the route runs.
 */
import type { FakeContext } from '../context.ts';
import type { RouteRequest } from '../http.ts';
import { holdsOddString } from '../support/odd-strings.ts';
import { bodyJson, withBody } from '../support/route-body.ts';
import { isRecord } from '../../util/json.ts';
import type { WriteProblem } from './contract.ts';

const BUDGET_FIELDS = ['maximumSteps', 'maximumToolCalls', 'maximumElapsedMs', 'maximumParallelism'];
/** Longer than this, a natural-language task is refused under `v8.missions/task-text-bounds`. */
const TASK_MAX = 4096;

/** The request to route (its body perhaps rewritten), or undefined when a variant already answered. */
export async function openChoiceRoute(fake: FakeContext, r: RouteRequest, writeProblem: WriteProblem): Promise<RouteRequest | undefined> {
  if (r.req.method !== 'POST') return r;
  const v = fake.variants;
  const body = await bodyJson(r);
  if (v.has('v8.contract/refuses-nul-and-lone-surrogates') && holdsOddString(body)) {
    writeProblem(400, 'invalid_request', 'Strings may not hold NUL characters or lone surrogates.');
    return undefined;
  }
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
    const budget = body.resourceBudget;
    if (isRecord(budget) && Object.keys(budget).some((k) => !BUDGET_FIELDS.includes(k)) && v.has('v8.contract/open-request-objects')) {
      return withBody(r, { ...body, resourceBudget: Object.fromEntries(Object.entries(budget).filter(([k]) => BUDGET_FIELDS.includes(k))) });
    }
  }
  if (/^\/v8\/missions\/[^/]+\/signals$/.test(r.path) && isRecord(body) && body.payload === null && v.has('v8.missions/signal-null-payload-accepted')) {
    // Null is taken as a JSON value like any other; the fake records it as an empty object.
    return withBody(r, { ...body, payload: {} });
  }
  return r;
}
