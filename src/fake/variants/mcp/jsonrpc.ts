import type { VariantDefinition } from '../types.ts';

const FOLLOW_JSONRPC = 'All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification.';

export const mcpJsonrpcVariants = [
  {
    id: 'mcp.jsonrpc/extra-properties',
    description:
      'tools/list and tools/call results carry _meta and unknown members, each tool carries annotations and a vendor field, and every JSON-RPC error carries a structured data member',
    spec: {
      document: 'mcp-2025-03-26',
      section: 'Base Protocol > Messages (schema: Result; JSON-RPC 2.0: Error object)',
      quote:
        'This result property is reserved by the protocol to allow clients and servers to attach additional metadata to their responses. … (JSON-RPC 2.0) data: A Primitive or Structured value that contains additional information about the error.',
    },
  },
  {
    id: 'mcp.jsonrpc/invalid-id-null',
    description: 'an Invalid Request error always carries id null, even when the invalid request carried a usable id (the fake otherwise echoes it)',
    spec: {
      document: 'mcp-2025-03-26',
      section: 'Base Protocol > Messages (JSON-RPC 2.0: Response object)',
      quote: `${FOLLOW_JSONRPC} … (JSON-RPC 2.0) If there was an error in detecting the id in the Request object (e.g. Parse error/Invalid Request), it MUST be Null.`,
    },
  },
  {
    id: 'mcp.jsonrpc/malformed-answered-200',
    description: 'a body that is not JSON, a single invalid request and an empty batch are answered HTTP 200 with the JSON-RPC error (the fake otherwise answers 400)',
    spec: {
      document: 'mcp-2025-03-26',
      section: 'Transports > Streamable HTTP > Sending Messages to the Server',
      quote: 'The body of the POST request MUST be one of the following: A single JSON-RPC request, notification, or response',
    },
    excludes: ['mcp.jsonrpc/malformed-answered-422'],
  },
  {
    id: 'mcp.jsonrpc/malformed-answered-422',
    description: 'a body that is not JSON, a single invalid request and an empty batch are answered HTTP 422 with the JSON-RPC error (another 4xx than the fake\'s 400)',
    spec: {
      document: 'mcp-2025-03-26',
      section: 'Transports > Streamable HTTP > Sending Messages to the Server',
      quote: 'The body of the POST request MUST be one of the following: A single JSON-RPC request, notification, or response',
    },
    excludes: ['mcp.jsonrpc/malformed-answered-200'],
  },
  {
    id: 'mcp.jsonrpc/repeated-id-refused',
    description: 'a request whose id the client already used in the session is refused with -32600 (ids compared with their type: 7 and "7" differ)',
    spec: {
      document: 'mcp-2025-03-26',
      section: 'Base Protocol > Messages > Requests',
      quote: 'The request ID MUST NOT have been previously used by the requestor within the same session.',
    },
  },
  {
    id: 'mcp.jsonrpc/errors-without-id',
    description: 'an error answering input whose request cannot be identified (not JSON, an invalid request without a usable id, an empty batch) has no id member at all, instead of id null',
    spec: {
      document: 'mcp-2025-03-26',
      section: 'Transports > Streamable HTTP > Sending Messages to the Server; schema: JSONRPCError',
      quote: 'The HTTP response body MAY comprise a JSON-RPC error response that has no id.',
    },
  },
  {
    id: 'mcp.jsonrpc/long-id-refused',
    description: 'a request whose string id is longer than 1,024 characters is answered with a -32600 error that echoes the id, where the fake serves any id',
    spec: {
      document: 'mcp-2025-03-26',
      section: 'Base Protocol > Messages > Responses',
      quote: 'Responses MUST include the same ID as the request they correspond to. Either a result or an error MUST be set. A response MUST NOT set both.',
    },
  },
  {
    id: 'mcp.jsonrpc/lenient-json',
    description: 'a body that is not JSON but a lenient parser reads (a trailing comma, data after the message) is read as that message and served, where the fake answers -32700; text cut short still gets -32700 (RFC 8259 §9: "A JSON parser MAY accept non-JSON forms or extensions")',
    spec: {
      document: 'mcp-2025-03-26',
      section: 'Base Protocol > Messages',
      quote: FOLLOW_JSONRPC,
    },
  },
  {
    id: 'mcp.jsonrpc/lenient-ids',
    description: 'a ping whose id is a fraction (1.5) or null is served with an empty result echoing that id, where the fake answers -32600 (JSON-RPC 2.0 §4 allows "a String, Number, or NULL value"; MCP binds only the client to strings and integers)',
    spec: {
      document: 'mcp-2025-03-26',
      section: 'Base Protocol > Messages > Requests, Responses',
      quote: 'Requests MUST include a string or integer ID. … Responses MUST include the same ID as the request they correspond to.',
    },
  },
  {
    id: 'mcp.jsonrpc/invalid-arguments-as-tool-error',
    description: 'tools/call of a tool the fake has, with arguments its input schema refuses (a string, an array, null, a number, a wrong member), is answered with a tool result carrying isError: true, where the fake answers -32602',
    spec: {
      document: 'mcp-2025-03-26',
      section: 'Server Features > Tools > Error Handling (a page spec/ does not hold)',
      quote: 'Protocol Errors: Standard JSON-RPC errors for issues like: … Invalid arguments … Tool Execution Errors: Reported in tool results with isError: true: … Invalid input data',
    },
  },
] as const satisfies readonly VariantDefinition[];
