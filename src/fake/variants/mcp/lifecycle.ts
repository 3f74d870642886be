import type { VariantDefinition } from '../types.ts';

export const mcpLifecycleVariants = [
  {
    id: 'mcp.lifecycle/extra-properties',
    description:
      'the InitializeResult carries _meta, an unknown member, experimental and vendor capabilities and extra serverInfo fields (every open object of it gets members the fake otherwise leaves out)',
    spec: {
      document: 'mcp-2025-03-26',
      section: 'Lifecycle > Initialization (schema: Result, ServerCapabilities)',
      quote:
        'This result property is reserved by the protocol to allow clients and servers to attach additional metadata to their responses. … Known capabilities are defined here, in this schema, but this is not a closed set: any server can define its own, additional capabilities.',
    },
  },
  {
    id: 'mcp.lifecycle/other-capabilities',
    description:
      'the server declares logging, prompts and resources besides tools (serving logging/setLevel, prompts/list, resources/list and resources/templates/list, all empty), tools without listChanged, and sends no instructions',
    spec: {
      document: 'mcp-2025-03-26',
      section: 'Lifecycle > Initialization > Capability Negotiation',
      quote: 'Key capabilities include: … prompts … resources … tools … logging',
    },
  },
  {
    id: 'mcp.lifecycle/unknown-version-error',
    description: 'initialize asking for a version the server does not support is answered with the error of the lifecycle example: -32602 "Unsupported protocol version", data { supported, requested }',
    spec: {
      document: 'mcp-2025-03-26',
      section: 'Lifecycle > Error Handling',
      quote: 'Implementations SHOULD be prepared to handle these error cases: Protocol version mismatch',
    },
  },
  {
    id: 'mcp.lifecycle/initialized-required',
    description: 'a request other than ping sent before notifications/initialized is answered with a JSON-RPC error (-32600), as the operation phase has not begun',
    spec: {
      document: 'mcp-2025-03-26',
      section: 'Lifecycle > Initialization',
      quote: 'After successful initialization, the client MUST send an initialized notification to indicate it is ready to begin normal operations',
    },
  },
  {
    id: 'mcp.lifecycle/reinitialize-new-session',
    description:
      'an initialize sent within a session opens a new session whatever version it asks for (one not supported, or not a string, gets the fake\'s own), answered on an SSE stream to a client that accepts one, its event ids counted in the new session from 1',
    spec: {
      document: 'mcp-2025-03-26',
      section: 'Transports > Session Management; Lifecycle > Version Negotiation',
      quote:
        'A server using the Streamable HTTP transport MAY assign a session ID at initialization time, by including it in an Mcp-Session-Id header on the HTTP response containing the InitializeResult. … Otherwise, the server MUST respond with another protocol version it supports.',
    },
  },
] as const satisfies readonly VariantDefinition[];
