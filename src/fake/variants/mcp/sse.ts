import type { VariantDefinition } from '../types.ts';

export const mcpSseVariants = [
  {
    id: 'mcp.sse/every-answer-streamed',
    description:
      'every request (batches too) is answered on an SSE stream, one event per response, without event ids, with comments, a retry: field and JSON split over several data: lines',
    spec: {
      document: 'mcp-2025-03-26',
      section: 'Transports > Sending Messages to the Server; Resumability and Redelivery',
      quote: 'These responses MAY be batched. … Servers MAY attach an id field to their SSE events',
    },
    excludes: ['mcp.transport/json-only'],
  },
] as const satisfies readonly VariantDefinition[];
