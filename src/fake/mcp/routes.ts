import type { FakeContext } from '../context.ts';
import type { Route } from '../http.ts';

/** POST and DELETE /mcp: MCP 2025-03-26 Streamable HTTP (issue: /mcp transport). */
export function mcpRoutes(_fake: FakeContext): Route[] {
  return [];
}
