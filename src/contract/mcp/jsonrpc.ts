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

const errorObject = z.looseObject(
  {
    /** "Error codes MUST be integers." */
    code: z.number({ error: 'not an integer' }).int({ error: 'not an integer' }),
    message: z.string({ error: 'not a string' }),
    data: z.unknown().optional(),
  },
  { error: 'not an error object with a code and a message' },
);

/**
 * JSON-RPC 2.0 §4's id: "a String, Number, or NULL value". MCP narrows what a client sends (`requestId`);
 * a server may serve a request whose id is a fraction or null, and its response echoes that id (§5).
 */
export const jsonrpcId = z.union([z.string(), z.number(), z.null()], { error: 'not a String, Number or Null, the id forms of JSON-RPC 2.0 §4' });
export type JsonRpcId = z.infer<typeof jsonrpcId>;

/**
 * "Either a `result` or an `error` MUST be set. A response MUST NOT set both." The id's form is
 * JSON-RPC's: whether it is the request's is mcp.jsonrpc.id-echoed's to judge, and an error whose
 * request could not be read carries null or, as MCP's transport allows, no id.
 */
export const jsonrpcResponse = z
  .looseObject({
    jsonrpc: z.literal('2.0', { error: 'not "2.0"' }),
    id: jsonrpcId.optional(),
    result: z.looseObject({}, { error: 'not an object (MCP schema: Result)' }).optional(),
    error: errorObject.optional(),
  })
  .refine((m) => ('result' in m) !== ('error' in m), 'both result and error are set, where exactly one must be')
  .refine((m) => !('result' in m) || 'id' in m, 'a result carries no id (JSON-RPC 2.0 §5: id is REQUIRED)');

/** Loose reading used to find a response in whatever the server sent; judging its shape is left to the rules. */
export function isResponseLike(m: unknown): m is { id?: unknown; result?: unknown; error?: unknown } {
  return typeof m === 'object' && m !== null && !Array.isArray(m) && !('method' in m) && ('result' in m || 'error' in m);
}
