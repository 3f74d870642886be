import type { VariantDefinition } from '../types.ts';

export const mcpBatchVariants = [
  {
    id: 'mcp.batch/answers-reversed',
    description: 'the JSON array answering a batch lists its responses in the reverse order of the requests',
    spec: {
      document: 'mcp-2025-03-26',
      section: 'Base Protocol > Batching (JSON-RPC 2.0: Batch)',
      quote: 'MCP implementations MAY support sending JSON-RPC batches, but MUST support receiving JSON-RPC batches. … (JSON-RPC 2.0) The Response objects being returned from a batch call MAY be returned in any order within the Array.',
    },
  },
  {
    id: 'mcp.batch/empty-accepted',
    description: 'an empty batch [] is answered 202 Accepted with no body, as input of no notifications (as the TypeScript SDK does), not with a JSON-RPC error',
    spec: {
      document: 'mcp-2025-03-26',
      section: 'Transports > Streamable HTTP > Sending Messages to the Server',
      quote: 'If the input consists solely of (any number of) JSON-RPC responses or notifications: If the server accepts the input, the server MUST return HTTP status code 202 Accepted with no body.',
    },
  },
] as const satisfies readonly VariantDefinition[];
