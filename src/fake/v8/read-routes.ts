import type { FakeContext } from '../context.ts';
import type { Route } from '../http.ts';
import { capabilityRoutes } from './capabilities.ts';
import { contextTwinRoutes } from './context-twin.ts';
import { coverageRoutes } from './coverage.ts';
import { lookupRoutes } from './lookups.ts';
import { memoryRoutes } from './memory.ts';
import type { MissionEngine } from './mission-engine.ts';
import { ReadSurface } from './read-support.ts';
import { worldModelRoutes } from './world-model.ts';

/**
 * /v8 read surfaces: capabilities, memory, skills, traces, goals, certificates, coverage.
 * `POST /v8/intents` has no route on purpose: the seed shows neither its path nor its payload,
 * and a 404 is one of the readings the observation rule accepts.
 */
export function v8ReadRoutes(fake: FakeContext, missions: MissionEngine): Route[] {
  const surface = new ReadSurface(fake);
  return [
    ...capabilityRoutes(surface),
    ...memoryRoutes(surface),
    ...lookupRoutes(surface, missions),
    ...contextTwinRoutes(surface),
    ...worldModelRoutes(surface),
    ...coverageRoutes(surface),
  ];
}
