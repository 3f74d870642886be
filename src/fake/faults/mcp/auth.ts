import type { FaultDefinition } from '../types.ts';

/** Faults of the mcp.auth rules: each breaks exactly the rule named before its slash. */
export const mcpAuthFaults = [
  { id: 'mcp.auth.challenge/no-challenge', description: 'an /mcp 401 carries no WWW-Authenticate header' },
  { id: 'mcp.auth.challenge/basic-only', description: 'an /mcp 401 challenges only with Basic (a framework\'s default left in front of the Bearer gateway)' },
  { id: 'mcp.auth.expired-401/expired-accepted', description: 'an expired token is served on /mcp like a valid one (a missing token is still answered 401)' },
  { id: 'mcp.auth.expired-401/missing-token-served', description: 'an /mcp request without an Authorization header is served (an optional auth middleware: "if a token comes, verify it"); an expired token is still answered 401' },
  { id: 'mcp.auth.expired-401/session-skips-auth', description: 'the /mcp token is checked only where no live session id comes: a request carrying one is served as its session\'s owner, with an expired token or none (initialize is still refused 401)' },
] as const satisfies readonly FaultDefinition[];
