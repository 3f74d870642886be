import { sseWireVariants } from '../sse-wire.ts';
import type { VariantDefinition } from '../types.ts';

export const mcpSseVariants = [
  ...sseWireVariants('mcp.sse', { document: 'mcp-2025-03-26', section: 'Transports > Sending Messages to the Server', quote: 'the server MUST either return Content-Type: text/event-stream, to initiate an SSE stream, or Content-Type: application/json, to return one JSON object.' }),
  {
    id: 'mcp.sse/every-answer-streamed',
    description:
      'every request (initialize and batches too) is answered on an SSE stream, one event per response, without event ids, with comments, a retry: field and JSON split over several data: lines',
    spec: {
      document: 'mcp-2025-03-26',
      section: 'Transports > Sending Messages to the Server; Resumability and Redelivery',
      quote: 'These responses MAY be batched. … Servers MAY attach an id field to their SSE events',
    },
    excludes: ['mcp.transport/json-only'],
  },
  {
    id: 'mcp.sse/opaque-event-ids',
    description: 'SSE event ids are opaque per-stream cursors (a random stream id, a slash, a counter) and events carry no event: field (the type defaults to message)',
    spec: {
      document: 'mcp-2025-03-26',
      section: 'Transports > Resumability and Redelivery',
      quote: 'If present, the ID MUST be globally unique across all streams within that session—or all streams with that specific client, if session management is not in use.',
    },
    excludes: ['mcp.sse/every-answer-streamed'],
  },
  {
    id: 'mcp.sse/server-messages-first',
    description:
      'an SSE answer starts with a logging notification and a ping request of the server\'s own (integer ids from 0, which may equal the ids a client uses) before the response',
    spec: {
      document: 'mcp-2025-03-26',
      section: 'Transports > Streamable HTTP > Sending Messages to the Server',
      quote: 'The server MAY send JSON-RPC requests and notifications before sending a JSON-RPC response. These messages SHOULD relate to the originating client request.',
    },
  },
  {
    id: 'mcp.sse/batched-events',
    description: 'every request (initialize and batches too) is answered on an SSE stream, and the responses to a batch travel together as one event holding their JSON array',
    spec: {
      document: 'mcp-2025-03-26',
      section: 'Transports > Streamable HTTP > Sending Messages to the Server',
      quote: 'The SSE stream SHOULD eventually include one JSON-RPC response per each JSON-RPC request sent in the POST body. These responses MAY be batched.',
    },
    excludes: ['mcp.transport/json-only', 'mcp.sse/every-answer-streamed'],
  },
  {
    id: 'mcp.sse/closes-late',
    description: 'an SSE answer is closed 2.5 s after its last response, later than the embedded profile\'s 1 s safety.streamCloseGraceMs',
    spec: {
      document: 'mcp-2025-03-26',
      section: 'Transports > Sending Messages to the Server',
      quote: 'After all JSON-RPC responses have been sent, the server SHOULD close the SSE stream.',
    },
  },
] as const satisfies readonly VariantDefinition[];
