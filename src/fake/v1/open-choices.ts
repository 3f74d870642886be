/**
 * Legal choices of /v1 the descriptions leave open on the request side (docs/legal-variation.md):
 * each variant takes the other choice from the fake's default before the route runs. Each area's
 * choices live in that area's file (`suites/variants.test.ts` holds a variant to its area).
 */
import type { RouteRequest } from '../http.ts';
import { bodyJson } from '../support/route-body.ts';
import { oddStringRefusal } from './errors.ts';
import { executeRefusal } from './execute/open-choices.ts';
import { approveRefusal, runPathRefusal } from './runs/open-choices.ts';
import type { V1Surface } from './surface.ts';

/** The request to route, or undefined when a variant already answered. */
export async function openChoiceRoute({ fake, v1 }: V1Surface, r: RouteRequest): Promise<RouteRequest | undefined> {
  const v = fake.variants;
  const refuse = (detail: string) => {
    v1.problem(r.res, 400, 'invalid_request', { detail, retryable: false });
    return undefined;
  };
  const runId = /^\/v1\/runs\/([^/]+)/.exec(r.path)?.[1];
  const onPath = runId === undefined ? undefined : runPathRefusal(v, runId);
  if (onPath) return refuse(onPath);
  if (r.req.method !== 'POST') return r;
  const body = await bodyJson(r);
  const refusal = oddStringRefusal(v, body) ?? (r.path === '/v1/execute' ? executeRefusal(v, body) : undefined) ?? (runId !== undefined && r.path.endsWith('/approve') ? approveRefusal(v, body) : undefined);
  return refusal ? refuse(refusal) : r;
}
