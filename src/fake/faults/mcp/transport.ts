import type { FaultDefinition } from '../types.ts';

/** Faults of the mcp.transport rules: each breaks exactly the rule named before its slash. */
export const mcpTransportFaults = [
  {
    id: 'mcp.transport.accepted-202/notification-answered-200',
    description: 'a POST of a single notification or response is answered 200 with a JSON body',
    alsoBreaks: { rules: ['mcp.jsonrpc.result-xor-error'], why: 'the 200 answer\'s JSON body is a result with no id (a notification has none to echo), which every answered response is held to' },
  },
  {
    id: 'mcp.transport.request-response/ping-text-plain',
    description: 'ping is answered with content-type text/plain',
    alsoBreaks: { rules: ['mcp.catalogue.accepts-valid'], why: 'the catalogue\'s JSON-text cases send ping too (whitespace, \\u escapes), which must be accepted with a JSON-RPC result, not a text/plain body' },
  },
  { id: 'mcp.transport.allow-on-405/no-allow', description: 'an /mcp 405 (GET, another method) carries no Allow header' },
  { id: 'mcp.transport.allow-on-405/lists-refused', description: 'GET /mcp is answered 405 with an Allow that lists GET itself (an SDK\'s Allow copied onto the gateway\'s refusal)' },
  { id: 'mcp.transport.get-405/opens-stream', description: 'GET /mcp opens an (empty) SSE stream: legal in MCP, refused by the gateway seed' },
  {
    id: 'mcp.transport.get-stream-or-405/json-success',
    description: 'GET /mcp answers 200 with a JSON-RPC success body',
    alsoBreaks: { rules: ['mcp.transport.get-405'], why: "the gateway's 405 narrows MCP's \"SSE stream or 405\": whatever breaks MCP's rule breaks the gateway's" },
  },
  { id: 'mcp.transport.origin/foreign-origin-served', description: 'a request whose Origin is a foreign site is served like any other' },
  { id: 'mcp.transport.origin/http-origin-served', description: 'a foreign https:// Origin is refused, but the same site over http:// is served' },
  { id: 'mcp.transport.origin/prefix-matched', description: 'the Origin allow-list is matched by prefix (an origin starting with http://127.0.0.1 or http://localhost is allowed), so http://127.0.0.1.<another site> is served' },
  { id: 'mcp.transport.origin/delete-unchecked', description: 'Origin is validated on POST and GET, but a DELETE from a foreign Origin ends the session' },
] as const satisfies readonly FaultDefinition[];
