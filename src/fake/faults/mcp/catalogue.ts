import type { FaultDefinition } from '../types.ts';

/** Faults of the mcp.catalogue rules: each breaks /mcp where only a probe catalogue operator looks. */
export const mcpCatalogueFaults = [
  { id: 'mcp.catalogue.no-5xx/fractional-id-500', description: 'a request whose id is 1.5 answers HTTP 500 (JSON-RPC envelope)' },
  { id: 'mcp.catalogue.no-5xx/unknown-session-500', description: 'the Mcp-Session-Id apicert-never-issued-session answers HTTP 500 (session header)' },
  { id: 'mcp.catalogue.no-5xx/cursor-500', description: 'tools/list with a cursor the server never issued answers HTTP 500 (method params)' },
  { id: 'mcp.catalogue.error-status/unknown-method-result', description: 'the method apicert/unknown is answered with an empty result (JSON-RPC method name)' },
  { id: 'mcp.catalogue.error-status/string-arguments-accepted', description: 'tools/call whose arguments are a string is answered with a result (method params)' },
  { id: 'mcp.catalogue.accepts-valid/escaped-text-parse-error', description: 'a message whose JSON text escapes a letter as \\u00XX gets a parse error (JSON text)' },
  { id: 'mcp.catalogue.problem-json/extra-member-string-code', description: 'a request with an unknown envelope member gets an error whose code is a string (envelope, the answer)' },
] as const satisfies readonly FaultDefinition[];
