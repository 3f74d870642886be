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
  {
    id: 'mcp.transport/media-types-checked',
    description:
      'a POST whose Accept does not list both application/json and text/event-stream is refused with 406, one whose Content-Type is not application/json with 415 (as the TypeScript SDK does)',
    spec: {
      document: 'mcp-2025-03-26',
      section: 'Transports > Streamable HTTP > Sending Messages to the Server',
      quote: 'The client MUST include an Accept header, listing both application/json and text/event-stream as supported content types.',
    },
    excludes: ['mcp.transport/refusals-400'],
  },
  {
    id: 'mcp.transport/refusals-400',
    description: 'every refusal MCP gives no status for is 400 Bad Request: an Accept or Content-Type the server does not take, and a foreign Origin (the fake otherwise answers 403)',
    spec: {
      document: 'mcp-2025-03-26',
      section: 'Transports > Security Warning; Sending Messages to the Server',
      quote: 'Servers MUST validate the Origin header on all incoming connections to prevent DNS rebinding attacks … The client MUST include an Accept header',
    },
    excludes: ['mcp.transport/media-types-checked'],
  },
  {
    id: 'mcp.transport/unaccepted-input-refused',
    description:
      'a POST of only responses or notifications the server cannot use (a response to a request it never sent, a cancellation of a request it never saw) is refused with 400 and a JSON-RPC error that has no id',
    spec: {
      document: 'mcp-2025-03-26',
      section: 'Transports > Streamable HTTP > Sending Messages to the Server',
      quote:
        'If the server cannot accept the input, it MUST return an HTTP error status code (e.g., 400 Bad Request). The HTTP response body MAY comprise a JSON-RPC error response that has no id.',
    },
  },
  {
    id: 'mcp.transport/media-type-parameters',
    description: 'every Content-Type the server sends carries a parameter and capitals (Application/JSON; charset=utf-8, text/event-stream; charset=utf-8)',
    spec: {
      document: 'mcp-2025-03-26',
      section: 'Transports > Streamable HTTP > Sending Messages to the Server',
      quote: 'the server MUST either return Content-Type: text/event-stream, to initiate an SSE stream, or Content-Type: application/json, to return one JSON object.',
    },
  },
  {
    id: 'mcp.transport/rate-limited',
    description: "the gateway's per-principal rate limit refuses every seventh request to /mcp (POST, GET or DELETE) with 429 application/problem+json and Retry-After: 0",
    spec: { document: 'v8-integration-gateway.md', section: 'Limits', quote: 'A per-principal rate limit exists (`429`). Its numeric values: not shown.' },
  },
] as const satisfies readonly VariantDefinition[];
