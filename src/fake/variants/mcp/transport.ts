import type { VariantDefinition } from '../types.ts';

export const mcpTransportVariants = [
  {
    id: 'mcp.transport/json-only',
    description: 'every request is answered with application/json, tool calls included (no SSE stream)',
    spec: {
      document: 'mcp-2025-03-26',
      section: 'Transports > Sending Messages to the Server',
      quote: 'the server MUST either return Content-Type: text/event-stream, to initiate an SSE stream, or Content-Type: application/json, to return one JSON object.',
    },
    excludes: ['mcp.sse/every-answer-streamed'],
  },
  {
    id: 'mcp.transport/host-checked',
    description: 'a request whose Host is not the loopback address the fake listens on is refused with 403',
    spec: { document: 'mcp-2025-03-26', section: 'Transports > Security Warning', quote: 'Servers MUST validate the Origin header on all incoming connections to prevent DNS rebinding attacks' },
  },
] as const satisfies readonly VariantDefinition[];
