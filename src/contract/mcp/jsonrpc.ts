import { z } from 'zod';

/** JSON-RPC 2.0 error codes MCP uses (schema.ts of revision 2025-03-26). */
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;

/** "Requests MUST include a string or integer ID. Unlike base JSON-RPC, the ID MUST NOT be null." */
export const requestId = z.union([z.string(), z.number().int()]);
export type RequestId = z.infer<typeof requestId>;

const params = z.record(z.string(), z.unknown());

export const jsonrpcRequest = z.looseObject({
  jsonrpc: z.literal('2.0'),
  id: requestId,
  method: z.string(),
  params: params.optional(),
});
export type JsonRpcRequest = z.infer<typeof jsonrpcRequest>;

/** "Notifications MUST NOT include an ID." */
export const jsonrpcNotification = z
  .looseObject({
    jsonrpc: z.literal('2.0'),
    method: z.string(),
    params: params.optional(),
  })
  .refine((m) => !('id' in m), 'a notification carries no id');

const errorObject = z.looseObject({
  /** "Error codes MUST be integers." */
  code: z.number().int(),
  message: z.string(),
  data: z.unknown().optional(),
});

/** "Either a `result` or an `error` MUST be set. A response MUST NOT set both." */
export const jsonrpcResponse = z
  .looseObject({
    jsonrpc: z.literal('2.0'),
    id: requestId.nullable().optional(),
    result: z.looseObject({}).optional(),
    error: errorObject.optional(),
  })
  .refine((m) => ('result' in m) !== ('error' in m), 'exactly one of result and error must be set')
  .refine((m) => !('result' in m) || (m.id !== null && m.id !== undefined), 'a result must carry the id of its request');

/** Loose reading used to find a response in whatever the server sent; judging its shape is left to the rules. */
export function isResponseLike(m: unknown): m is { id?: unknown; result?: unknown; error?: unknown } {
  return typeof m === 'object' && m !== null && !Array.isArray(m) && !('method' in m) && ('result' in m || 'error' in m);
}
