import type { FaultDefinition } from '../types.ts';

/** Faults of the mcp.redaction rules: each breaks exactly the rule named before its slash. */
export const mcpRedactionFaults = [
  { id: 'mcp.redaction.run-secrets/token-in-401', description: "an /mcp 401 for an expired token echoes the caller's own token in its JSON-RPC error message" },
] as const satisfies readonly FaultDefinition[];
