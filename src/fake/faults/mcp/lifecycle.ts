import type { FaultDefinition } from '../types.ts';

/** Faults of the mcp.lifecycle rules: each breaks exactly the rule named before its slash. */
export const mcpLifecycleFaults = [
  { id: 'mcp.lifecycle.initialize-result/no-server-info', description: 'the initialize result carries no serverInfo' },
  { id: 'mcp.lifecycle.version-echo/answers-2024-11-05', description: 'initialize asking for 2025-03-26 is answered with 2024-11-05' },
  { id: 'mcp.lifecycle.version-unknown/echoes-unknown', description: 'initialize with an unknown protocolVersion echoes it back' },
  {
    id: 'mcp.lifecycle.version-unknown/offers-unsupported-version',
    description: 'initialize asking for a version older than 2025-06-18 is answered with 2025-06-18, which the fake does not speak: asked for 2025-06-18, it answers 2025-03-26',
  },
  {
    id: 'mcp.lifecycle.version-latest/offers-older',
    description: 'the fake speaks 2024-11-05 besides 2025-03-26, and answers initialize asking for a version it does not speak with 2024-11-05, not its latest',
  },
  {
    id: 'mcp.lifecycle.requests-before-initialized/roots-list-early',
    description: 'a ping sent before notifications/initialized is answered on an SSE stream that starts with a roots/list request of the server\'s own',
  },
] as const satisfies readonly FaultDefinition[];
