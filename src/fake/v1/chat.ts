import type { Route, RouteRequest } from '../http.ts';

/** POST /v1/chat: the reference client's path; the fake serves it as an alias of turn-mode execute. */
export function chatRoutes(execute: (r: RouteRequest) => Promise<void>): Route[] {
  return [{ method: 'POST', pattern: /^\/v1\/chat$/, handler: execute }];
}
