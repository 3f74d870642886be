import type { FaultDefinition } from '../types.ts';

/** Faults of the mcp.session rules: each breaks exactly the rule named before its slash. */
export const mcpSessionFaults = [
  { id: 'mcp.session.id-visible-ascii/contains-space', description: 'the Mcp-Session-Id contains a space' },
  { id: 'mcp.session.missing-400/served-without-session', description: 'a request without Mcp-Session-Id is served' },
  { id: 'mcp.session.never-issued/served', description: 'a session id that was never issued is served as if it were a live session' },
  { id: 'mcp.session.delete-terminates/delete-ignored', description: 'DELETE answers 204 but the session stays usable' },
] as const satisfies readonly FaultDefinition[];
