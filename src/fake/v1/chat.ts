import type { FakeContext } from '../context.ts';
import type { Route, RouteRequest } from '../http.ts';

/**
 * POST /v1/chat: the reference client's path; the fake serves it as an alias of turn-mode execute,
 * or (`v1.chat/absent`) not at all, the other reading of "unreconciled".
 */
export function chatRoutes(fake: FakeContext, execute: (r: RouteRequest) => Promise<void>): Route[] {
  if (fake.variants.has('v1.chat/absent')) return [];
  return [{ method: 'POST', pattern: /^\/v1\/chat$/, handler: execute }];
}
