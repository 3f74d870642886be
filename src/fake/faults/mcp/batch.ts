import type { FaultDefinition } from '../types.ts';

/** Faults of the mcp.batch rules: each breaks exactly the rule named before its slash. */
export const mcpBatchFaults = [
  { id: 'mcp.batch.requests/first-only', description: 'a batch is answered with the response to its first request only' },
  {
    id: 'mcp.batch.notifications-202/answered-200',
    description: 'a batch of notifications is answered 200 with an empty JSON array',
    alsoBreaks: { rules: ['mcp.transport.accepted-202'], why: 'judged over the run\'s exchanges (src/runner/run-judgement.ts): a POST of notifications only, batched or not, is answered 202 Accepted (MCP transport); the batch answered 200 breaks that sentence too' },
  },
  { id: 'mcp.batch.answer-array/single-as-object', description: 'a batch carrying one request is answered with a bare response object, not an array' },
  { id: 'mcp.batch.empty/answered-202', description: 'an empty batch [] is answered 202 Accepted with a body (an empty JSON array)' },
] as const satisfies readonly FaultDefinition[];
