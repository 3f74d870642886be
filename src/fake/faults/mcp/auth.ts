import type { FaultDefinition } from '../types.ts';

/** Faults of the mcp.auth rules: each breaks exactly the rule named before its slash. */
export const mcpAuthFaults = [{ id: 'mcp.auth.challenge/no-challenge', description: 'an /mcp 401 carries no WWW-Authenticate header' }] as const satisfies readonly FaultDefinition[];
