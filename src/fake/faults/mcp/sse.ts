import type { FaultDefinition } from '../types.ts';

/** Faults of the mcp.sse rules: each breaks exactly the rule named before its slash. */
export const mcpSseFaults = [
  { id: 'mcp.sse.event-ids-unique/restart-per-stream', description: 'SSE event ids restart at 1 on every stream of a session' },
  { id: 'mcp.sse.closes-after-response/held-open', description: 'an SSE response to a tools/call without a progress token stays open after the last response' },
] as const satisfies readonly FaultDefinition[];
