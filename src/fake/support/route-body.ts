/** A route request's body read as JSON ahead of its route, and the request with a rewritten body: for faults that bend bodies before the area's own code sees them. */
import type { RouteRequest } from '../http.ts';

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
