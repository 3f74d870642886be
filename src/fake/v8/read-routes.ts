import type { FakeContext } from '../context.ts';
import type { Route } from '../http.ts';
import type { MissionEngine } from './mission-engine.ts';

/** /v8 read surfaces: capabilities, memory, skills, traces, goals, certificates, coverage, /mcp GET (issue: /v8 read surfaces). */
export function v8ReadRoutes(_fake: FakeContext, _missions: MissionEngine): Route[] {
  return [];
}
