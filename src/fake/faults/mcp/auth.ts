import type { FaultDefinition } from '../types.ts';

/** Faults of the mcp.auth rules: each breaks exactly the rule named before its slash. */
export const mcpAuthFaults = [
  { id: 'mcp.auth.challenge/no-challenge', description: 'an /mcp 401 carries no WWW-Authenticate header' },
  { id: 'mcp.auth.expired-401/expired-accepted', description: 'an expired token is served on /mcp like a valid one (a missing token is still answered 401)' },
] as const satisfies readonly FaultDefinition[];
