import type { FakeContext } from '../context.ts';
import type { Route } from '../http.ts';
import { chatRoutes } from './chat.ts';
import { withCatalogueFaults } from './catalogue.ts';
import { withContractFaults } from './contract.ts';
import { executeHandler, executeRoutes } from './execute/index.ts';
import { runsRoutes } from './runs/index.ts';
import { v1Surface } from './surface.ts';
import { usageRoutes } from './usage.ts';
import { webhookRoutes } from './webhooks/routes.ts';

/** The /v1 execution fabric, one module per rule area (auth, errors and versioning bend inside the others). */
export function v1Routes(fake: FakeContext): Route[] {
  const surface = v1Surface(fake);
  const execute = executeHandler(surface);
  return withCatalogueFaults(surface, withContractFaults(surface, [...executeRoutes(execute), ...chatRoutes(fake, execute), ...runsRoutes(surface), ...usageRoutes(surface), ...webhookRoutes(fake)]));
}
