import type { FakeContext } from '../context.ts';
import type { Route } from '../http.ts';
import { withCatalogueFaults } from './catalogue.ts';
import { mcpSurface } from './surface.ts';
import { transportRoutes } from './transport.ts';

/** /mcp: one endpoint, so one route table (transport); the other areas bend inside it. */
export function mcpRoutes(fake: FakeContext): Route[] {
  return withCatalogueFaults(fake, transportRoutes(mcpSurface(fake)));
}
