import type { FaultDefinition } from '../types.ts';

/** Faults of the mcp.catalogue rules: each breaks /mcp where only a probe catalogue operator looks. */
export const mcpCatalogueFaults = [
  {
    id: 'mcp.catalogue.no-5xx/fractional-id-500',
    description: 'a request whose id is 1.5 answers HTTP 500 (JSON-RPC envelope)',
    alsoBreaks: { rules: ['mcp.jsonrpc.generated.errors'], why: 'judged over the run\'s exchanges (src/runner/run-judgement.ts): the generated rules judge every /mcp exchange whose answer the catalogue leaves open, and a 5xx fails them' },
  },
  {
    id: 'mcp.catalogue.no-5xx/unknown-session-500',
    description: 'the Mcp-Session-Id apicert-never-issued-session answers HTTP 500 (session header)',
    alsoBreaks: { rules: ['mcp.jsonrpc.generated.errors'], why: 'judged over the run\'s exchanges (src/runner/run-judgement.ts): the generated rules judge every /mcp exchange whose answer the catalogue leaves open, and a 5xx fails them' },
  },
  {
    id: 'mcp.catalogue.no-5xx/cursor-500',
    description: 'tools/list with a cursor the server never issued answers HTTP 500 (method params)',
    alsoBreaks: { rules: ['mcp.jsonrpc.generated.errors'], why: 'judged over the run\'s exchanges (src/runner/run-judgement.ts): the generated rules judge every /mcp exchange whose answer the catalogue leaves open, and a 5xx fails them' },
  },
  {
    id: 'mcp.catalogue.error-status/unknown-method-result',
    description: 'the method apicert/unknown is answered with an empty result (JSON-RPC method name)',
    alsoBreaks: { rules: ['mcp.jsonrpc.method-not-found'], why: 'judged over the run\'s exchanges (src/runner/run-judgement.ts): apicert/unknown is a method the server does not have, which JSON-RPC 2.0 §5.1 answers -32601 whichever check sent it' },
  },
  { id: 'mcp.catalogue.error-status/string-arguments-accepted', description: 'tools/call whose arguments are a string is answered with a result (method params)' },
  {
    id: 'mcp.catalogue.accepts-valid/escaped-text-parse-error',
    description: 'a message whose JSON text escapes a letter as \\u00XX gets a parse error (JSON text)',
    alsoBreaks: { rules: ['mcp.transport.request-response', 'mcp.jsonrpc.id-echoed'], why: 'judged over the run\'s exchanges (src/runner/run-judgement.ts): the escaped message is a ping with an id, and its parse error carries id null, not the request\'s' },
  },
  {
    id: 'mcp.catalogue.problem-json/extra-member-string-code',
    description: 'a request with an unknown envelope member gets an error whose code is a string (envelope, the answer)',
    alsoBreaks: { rules: ['mcp.jsonrpc.result-xor-error', 'mcp.jsonrpc.generated.errors'], why: 'judged over the run\'s exchanges (src/runner/run-judgement.ts): an error whose code is a string is no JSON-RPC 2.0 error object (§5.1: an integer code), whichever rule\'s traffic shows it' },
  },
] as const satisfies readonly FaultDefinition[];
