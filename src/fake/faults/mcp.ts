import type { FaultDefinition } from './types.ts';

/** Each fault breaks exactly the rule named before its slash. */
export const mcpFaults = [
  { id: 'mcp.transport.accepted-202/notification-answered-200', description: 'a POST of a single notification or response is answered 200 with a JSON body' },
  { id: 'mcp.transport.request-response/ping-text-plain', description: 'ping is answered with content-type text/plain' },
  { id: 'mcp.transport.get-405/json-success', description: 'GET /mcp answers 200 with a JSON-RPC success body' },
  { id: 'mcp.lifecycle.initialize-result/no-server-info', description: 'the initialize result carries no serverInfo' },
  { id: 'mcp.lifecycle.version-echo/answers-2024-11-05', description: 'initialize asking for 2025-03-26 is answered with 2024-11-05' },
  { id: 'mcp.lifecycle.version-unknown/echoes-unknown', description: 'initialize with an unknown protocolVersion echoes it back' },
  { id: 'mcp.session.id-visible-ascii/contains-space', description: 'the Mcp-Session-Id contains a space' },
  { id: 'mcp.session.missing-400/served-without-session', description: 'a request without Mcp-Session-Id is served' },
  { id: 'mcp.session.unknown-404/never-issued-400', description: 'a session id that was never issued is answered 400' },
  { id: 'mcp.session.delete-terminates/delete-ignored', description: 'DELETE answers 204 but the session stays usable' },
  { id: 'mcp.jsonrpc.parse-error/code-32600', description: 'a body that is not JSON gets -32600 instead of -32700' },
  { id: 'mcp.jsonrpc.invalid-request/missing-jsonrpc-served', description: 'a request without "jsonrpc" is served as if it were valid' },
  { id: 'mcp.jsonrpc.method-not-found/code-32603', description: 'an unknown method gets -32603 instead of -32601' },
  { id: 'mcp.jsonrpc.invalid-params/missing-name-32603', description: 'tools/call without a name gets -32603 instead of -32602' },
  { id: 'mcp.jsonrpc.result-xor-error/error-with-null-result', description: 'error responses also carry "result": null' },
  { id: 'mcp.jsonrpc.id-echoed/digit-string-as-number', description: 'a string id made of digits is echoed as a number' },
  { id: 'mcp.batch.requests/first-only', description: 'a batch is answered with the response to its first request only' },
  { id: 'mcp.batch.notifications-202/answered-200', description: 'a batch of notifications is answered 200 with an empty JSON array' },
  { id: 'mcp.sse.event-ids-unique/restart-per-stream', description: 'SSE event ids restart at 1 on every stream of a session' },
  { id: 'mcp.sse.closes-after-response/held-open', description: 'an SSE response to a tools/call without a progress token stays open after the last response' },
] as const satisfies readonly FaultDefinition[];
