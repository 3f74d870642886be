import type { FaultDefinition } from '../types.ts';

/** Faults of the mcp.sse rules: each breaks exactly the rule named before its slash. */
export const mcpSseFaults = [
  { id: 'mcp.sse.event-ids-unique/restart-per-stream', description: 'SSE event ids restart at 1 on every stream of a session' },
  { id: 'mcp.sse.closes-after-response/held-open', description: 'every SSE answer stays open after its last response' },
  { id: 'mcp.sse.no-broadcast/ping-on-every-stream', description: 'every SSE answer of a session starts with the same ping request of the server\'s own (one id per session): one message broadcast on every stream' },
] as const satisfies readonly FaultDefinition[];
