import type { FakeContext } from '../context.ts';
import type { Route } from '../http.ts';

/** /v1 execution fabric: execute, runs, events, approve, cancel, usage (issue: /v1 execution fabric). */
export function v1Routes(_fake: FakeContext): Route[] {
  return [];
}
