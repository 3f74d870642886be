/** A route request's body read as JSON ahead of its route, and the request with a rewritten body: for faults that bend bodies before the area's own code sees them. */
import type { RouteRequest } from '../http.ts';

/** A body larger than this is refused 413 under the `*.contract/body-limit-413` variants (a size limit is the deployment's choice). */
export const CHOSEN_BODY_LIMIT = 512 * 1024;

/** The JSON the body holds, or undefined; the body stays readable by the route (it is read once and kept). */
export async function bodyJson(r: RouteRequest): Promise<unknown> {
  try {
    return JSON.parse(await r.body()) as unknown;
  } catch {
    return undefined;
  }
}

/** The same request with `body` as its body. */
export function withBody(r: RouteRequest, body: unknown): RouteRequest {
  const text = JSON.stringify(body);
  return { ...r, body: () => Promise.resolve(text) };
}
