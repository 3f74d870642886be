import type { FakeContext } from '../context.ts';
import type { Route } from '../http.ts';
import { capabilitiesRoutes } from './capabilities.ts';
import { certificatesRoutes } from './certificates.ts';
import { catalogueFaultRoute, catalogueFaultRoutes } from './catalogue.ts';
import { contractFaultRoute, refusesOrigin } from './contract.ts';
import { coverageRoutes } from './coverage.ts';
import { openChoiceRoute } from './open-choices.ts';
import { writeProblem } from './errors.ts';
import { goalsRoutes } from './goals.ts';
import { intentsRoutes } from './intents.ts';
import { memoryRoutes } from './memory.ts';
import type { MissionEngine } from './missions/engine.ts';
import { missionsRoutes } from './missions/index.ts';
import { ReadSurface } from './read-surface.ts';
import { skillsRoutes } from './skills.ts';
import { tracesRoutes } from './traces/index.ts';

/**
 * The /v8 gateway, one module per rule area; auth, principal, contract, errors and redaction bend
 * inside the others. `POST /v8/intents` has a route only under its variant (intents.ts): the seed
 * shows neither its path nor its payload, and a 404 is one of the readings the observation rule accepts.
 */
export function v8Routes(fake: FakeContext, missions: MissionEngine): Route[] {
  const surface = new ReadSurface(fake);
  const routes: Route[] = [
    ...missionsRoutes(fake, missions),
    ...capabilitiesRoutes(surface),
    ...memoryRoutes(surface),
    ...skillsRoutes(surface),
    ...tracesRoutes(surface, missions),
    ...goalsRoutes(surface),
    ...certificatesRoutes(surface),
    ...coverageRoutes(surface),
    ...intentsRoutes(surface),
    ...catalogueFaultRoutes(fake, (r, status, code, detail) => writeProblem(fake, r.res, status, code, detail)),
  ];
  // "Every request must use HTTPS. HTTP origins are rejected.": checked before any route runs.
  return routes.map((route) => ({
    ...route,
    handler: async (r) => {
      if (refusesOrigin(fake, r.header('origin'), r.path)) {
        writeProblem(fake, r.res, 403, 'insecure_origin', 'Requests from http:// origins are rejected: use HTTPS.');
        return;
      }
      const problem = (status: number, code: string, detail: string) => writeProblem(fake, r.res, status, code, detail);
      const caught = await catalogueFaultRoute(fake, r, problem);
      const routed = caught && (await contractFaultRoute(fake, caught, problem));
      const chosen = routed && (await openChoiceRoute(fake, routed, problem));
      if (chosen) await route.handler(chosen);
    },
  }));
}
