import type { FaultDefinition } from '../types.ts';

/** Faults of the mcp.transport rules: each breaks exactly the rule named before its slash. */
export const mcpTransportFaults = [
  { id: 'mcp.transport.accepted-202/notification-answered-200', description: 'a POST of a single notification or response is answered 200 with a JSON body' },
  { id: 'mcp.transport.request-response/ping-text-plain', description: 'ping is answered with content-type text/plain' },
  { id: 'mcp.transport.get-405/json-success', description: 'GET /mcp answers 200 with a JSON-RPC success body' },
] as const satisfies readonly FaultDefinition[];
