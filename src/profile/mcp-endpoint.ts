import type { Profile } from './schema.ts';

export const DEFAULT_MCP_PATH = '/mcp';

const endpoints = new WeakMap<object, string>();

/**
 * Where the MCP endpoint is mounted: fixtures.mcp.endpoint, else the target URL's path when it has
 * one, else `/mcp`. Asked for every exchange of a recording: worked out once per profile.
 */
export function mcpEndpointOf(profile: Pick<Profile, 'target' | 'fixtures'>): string {
  const configured = profile.fixtures.mcp.endpoint;
  if (configured) return configured;
  let endpoint = endpoints.get(profile);
  if (endpoint === undefined) {
    const { pathname } = new URL(profile.target);
    endpoint = pathname !== '/' && pathname !== '' ? pathname : DEFAULT_MCP_PATH;
    endpoints.set(profile, endpoint);
  }
  return endpoint;
}
