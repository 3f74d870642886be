import type { FaultDefinition } from '../types.ts';

/** Faults of the mcp.jsonrpc rules: each breaks exactly the rule named before its slash. */
export const mcpJsonrpcFaults = [
  { id: 'mcp.jsonrpc.parse-error/code-32600', description: 'a body that is not JSON gets -32600 instead of -32700' },
  {
    id: 'mcp.jsonrpc.invalid-request/missing-jsonrpc-served',
    description: 'a request without "jsonrpc" is served as if it were valid',
    alsoBreaks: { rules: ['mcp.jsonrpc.generated.errors'], why: 'the generated messages include one without "jsonrpc", which must get a JSON-RPC error too' },
  },
  {
    id: 'mcp.jsonrpc.method-not-found/code-32603',
    description: 'an unknown method gets -32603 instead of -32601',
    alsoBreaks: { rules: ['mcp.jsonrpc.generated.errors'], why: 'the generated messages include an unknown method, which JSON-RPC 2.0 §5.1 answers -32601 there too' },
  },
  { id: 'mcp.jsonrpc.invalid-params/missing-name-32603', description: 'tools/call without a name gets -32603 instead of -32602' },
  { id: 'mcp.jsonrpc.result-xor-error/error-with-null-result', description: 'error responses also carry "result": null' },
  {
    id: 'mcp.jsonrpc.id-echoed/digit-string-as-number',
    description: 'a string id made of digits is echoed as a number',
    alsoBreaks: { rules: ['mcp.transport.request-response'], why: 'judged over the run\'s exchanges (src/runner/run-judgement.ts): other checks send requests with digit-string ids too (a ping with id "0"), whose response must carry that id' },
  },
  { id: 'mcp.jsonrpc.generated.errors/object-id-500', description: 'a request whose id is an object crashes the server (HTTP 500)' },
  { id: 'mcp.jsonrpc.generated.errors/string-params-served', description: 'a request whose params is a string is served as if it had none' },
  {
    id: 'mcp.jsonrpc.generated.errors/string-arguments-500',
    description: 'a tools/call whose arguments is a string crashes the server (HTTP 500)',
    alsoBreaks: { rules: ['mcp.catalogue.no-5xx'], why: 'the catalogue\'s tools/call operator sends string arguments too, and a 5xx fails it' },
  },
  { id: 'mcp.jsonrpc.generated.errors/initialize-array-params-500', description: 'an initialize whose params is an array crashes the server (HTTP 500)' },
  { id: 'mcp.jsonrpc.generated.errors/long-session-id-500', description: 'an Mcp-Session-Id over 1024 characters crashes the server (HTTP 500)' },
  {
    id: 'mcp.jsonrpc.generated.errors/long-method-served',
    description: 'a request whose method name is over 4096 characters is answered with an empty result instead of Method not found',
    alsoBreaks: { rules: ['mcp.jsonrpc.method-not-found'], why: "judged over the run's exchanges (src/runner/run-judgement.ts), which keep each body up to 1 MiB: the generated request's unknown method answered with a result breaks that rule's sentence too" },
  },
] as const satisfies readonly FaultDefinition[];
