import { z } from 'zod';
import {
  INTERNAL_ERROR,
  INVALID_PARAMS,
  INVALID_REQUEST,
  jsonrpcId,
  jsonrpcNotification,
  jsonrpcRequest,
  METHOD_NOT_FOUND,
  PARSE_ERROR,
  requestId,
  type JsonRpcRequest,
  type RequestId,
} from '../../contract/mcp/jsonrpc.ts';
import { callToolParams } from '../../contract/mcp/tools.ts';
import { parseJson } from '../../util/json.ts';
import type { FakeContext } from '../context.ts';
import type { RouteRequest } from '../http.ts';
import { lenientJson } from '../support/lenient-json.ts';
import { withExtraMembers } from './extra-members.ts';
import { writeJson } from './respond.ts';
import type { McpSession } from './session-store.ts';
import { FAKE_TOOLS, toolListing, type FakeTool } from './tools.ts';

export type Classified =
  | { kind: 'request'; message: JsonRpcRequest }
  | { kind: 'notification'; method: string }
  | { kind: 'response' }
  | { kind: 'invalid'; id: RequestId | null; why: string }
  /** A message the fake answered while reading it, whatever the session's phase: `answer` is its response. */
  | { kind: 'answered'; answer: Record<string, unknown> };

/** A ping whose id is any JSON-RPC 2.0 id (§4: "a String, Number, or NULL value"), not only MCP's strings and integers. */
const anyIdPing = jsonrpcRequest.extend({ id: jsonrpcId, method: z.literal('ping') });

/**
 * "Requests MUST include a string or integer ID" binds the client: under the variant a ping whose id
 * is a fraction or null, which JSON-RPC 2.0 allows, is served with an empty result echoing that id
 * (other methods with such an id still get -32600).
 */
function lenientIdPing(fake: FakeContext, value: unknown): Classified | undefined {
  const ping = anyIdPing.safeParse(value);
  if (!ping.success || requestId.safeParse(ping.data.id).success || !fake.variants.has('mcp.jsonrpc/lenient-ids')) return undefined;
  return { kind: 'answered', answer: { jsonrpc: '2.0', id: ping.data.id, result: {} } };
}

const looseResponse = z.looseObject({ jsonrpc: z.literal('2.0'), id: requestId.nullable() }).refine((m) => 'result' in m || 'error' in m);

/** What one element of a POST body is; an invalid one keeps the id it carried when that id is usable. */
export function classify(fake: FakeContext, value: unknown): Classified {
  const members = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  if (fake.faults.has('mcp.jsonrpc.generated.errors/object-id-500') && typeof members.id === 'object' && members.id !== null) throw new Error('the id column takes strings and numbers');
  if (fake.faults.has('mcp.jsonrpc.generated.errors/string-params-served') && typeof members.params === 'string') {
    const { params: _ignored, ...rest } = members;
    return classify(fake, rest);
  }
  const request = jsonrpcRequest.safeParse(value);
  if (request.success) return { kind: 'request', message: request.data };
  const lenient = lenientIdPing(fake, value);
  if (lenient) return lenient;
  if (fake.faults.has('mcp.jsonrpc.invalid-request/missing-jsonrpc-served')) {
    const lenient = jsonrpcRequest.omit({ jsonrpc: true }).safeParse(value);
    if (lenient.success) return { kind: 'request', message: { ...lenient.data, jsonrpc: '2.0' } };
  }
  const notification = jsonrpcNotification.safeParse(value);
  if (notification.success) return { kind: 'notification', method: notification.data.method };
  if (looseResponse.safeParse(value).success && !(typeof value === 'object' && value !== null && 'method' in value)) return { kind: 'response' };
  const id = requestId.safeParse(typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as { id?: unknown }).id : undefined);
  // JSON-RPC 2.0 asks for null only when the id could not be detected; the variant never looks.
  const usable = id.success && !fake.variants.has('mcp.jsonrpc/invalid-id-null');
  return { kind: 'invalid', id: usable ? id.data : null, why: 'not a JSON-RPC 2.0 request, notification or response' };
}

/** Builds responses, applying the faults that change how every response looks. */
export class ResponseFactory {
  private readonly fake: FakeContext;
  constructor(fake: FakeContext) {
    this.fake = fake;
  }

  private echo(id: RequestId | null): RequestId | null {
    if (typeof id === 'string' && /^\d+$/.test(id) && this.fake.faults.has('mcp.jsonrpc.id-echoed/digit-string-as-number')) return Number(id);
    return id;
  }

  result(id: RequestId, result: Record<string, unknown>): Record<string, unknown> {
    return { jsonrpc: '2.0', id: this.echo(id), result };
  }

  error(id: RequestId | null, code: number, message: string, data: unknown = this.extraData(code)): Record<string, unknown> {
    const body: Record<string, unknown> = { jsonrpc: '2.0', id: this.echo(id), error: data === undefined ? { code, message } : { code, message, data } };
    if (id === null && withoutId(this.fake)) delete body.id;
    if (this.fake.faults.has('mcp.jsonrpc.result-xor-error/error-with-null-result')) body.result = null;
    return body;
  }

  /** The `data` member JSON-RPC 2.0 lets an error carry ("may be omitted"): the fake omits it, the variant fills it. */
  extraData(code: number): unknown {
    return this.fake.variants.has('mcp.jsonrpc/extra-properties') ? { code, retryable: false, details: ['apicert extra-properties variant'] } : undefined;
  }

  /** A result; the variant adds members to the result objects the tools area builds. */
  toolResult(id: RequestId, result: Record<string, unknown>, where: string): Record<string, unknown> {
    return this.result(id, this.fake.variants.has('mcp.jsonrpc/extra-properties') ? withExtraMembers(result, where) : result);
  }
}

/** The tool listing; the variant gives each tool annotations (revision 2025-03-26) and a vendor member. */
function listedTools(fake: FakeContext): Array<Record<string, unknown>> {
  if (!fake.variants.has('mcp.jsonrpc/extra-properties')) return toolListing();
  return toolListing().map((t) => ({ ...t, annotations: { readOnlyHint: true, openWorldHint: false }, 'x-apicert-extension': { cost: 0 } }));
}

/**
 * Whether an error that answers no identifiable request leaves `id` out instead of sending null: the
 * MCP schema types every id as a string or integer (never null) and the transport allows "a JSON-RPC
 * error response that has no id", where JSON-RPC 2.0 asks for null.
 */
function withoutId(fake: FakeContext): boolean {
  return fake.variants.has('mcp.jsonrpc/errors-without-id');
}

/** An error answering input whose request could not be identified (not JSON, an empty batch). */
export function unattributedError(fake: FakeContext, code: number, message: string): Record<string, unknown> {
  const data = new ResponseFactory(fake).extraData(code);
  const error = { code, message, ...(data === undefined ? {} : { data }) };
  return withoutId(fake) ? { jsonrpc: '2.0', error } : { jsonrpc: '2.0', id: null, error };
}

/** The HTTP status of malformed input (not JSON, not a request, an empty batch): MCP names none. */
export function malformedStatus(fake: FakeContext): number {
  if (fake.variants.has('mcp.jsonrpc/malformed-answered-200')) return 200;
  return fake.variants.has('mcp.jsonrpc/malformed-answered-422') ? 422 : 400;
}

/** The request ids a session has used, newest last; bounded, so an old id may be forgotten. */
const usedIds = new WeakMap<McpSession, Set<string>>();
const MAX_REMEMBERED_IDS = 1_000;

/** "The request ID MUST NOT have been previously used by the requestor within the same session": whether this one was (ids keep their type). */
function reused(session: McpSession, id: RequestId): boolean {
  const used = usedIds.get(session) ?? new Set<string>();
  usedIds.set(session, used);
  const key = JSON.stringify(id);
  if (used.has(key)) return true;
  used.add(key);
  if (used.size > MAX_REMEMBERED_IDS) used.delete(used.values().next().value!);
  return false;
}

/** The longest string id `mcp.jsonrpc/long-id-refused` serves. */
const MAX_ID_LENGTH = 1024;

/** Answers one request of an initialized (or session-less) exchange; `initialize` is handled by the route. */
export function answer(fake: FakeContext, responses: ResponseFactory, session: McpSession, request: JsonRpcRequest): Record<string, unknown> {
  // No sentence bounds an id's length: under the variant a long one gets an error that still echoes it ("Either a result or an error MUST be set").
  if (typeof request.id === 'string' && request.id.length > MAX_ID_LENGTH && fake.variants.has('mcp.jsonrpc/long-id-refused')) {
    return responses.error(request.id, INVALID_REQUEST, `Invalid Request: a request id is at most ${MAX_ID_LENGTH} characters here.`);
  }
  if (fake.variants.has('mcp.jsonrpc/repeated-id-refused') && reused(session, request.id)) {
    return responses.error(request.id, INVALID_REQUEST, 'Invalid Request: this request id was already used in this session.');
  }
  switch (request.method) {
    case 'ping':
      return responses.result(request.id, {});
    case 'tools/list':
      return responses.toolResult(request.id, { tools: listedTools(fake) }, 'ListToolsResult');
    case 'tools/call':
      return callTool(fake, responses, request);
    case 'initialize':
      return responses.error(request.id, INVALID_REQUEST, 'initialize must be sent on its own, not in a batch');
    default:
      if (fake.faults.has('mcp.jsonrpc.method-not-found/code-32603')) return responses.error(request.id, INTERNAL_ERROR, 'Internal error');
      return responses.error(request.id, METHOD_NOT_FOUND, `Method not found: ${request.method}`);
  }
}

function callTool(fake: FakeContext, responses: ResponseFactory, request: JsonRpcRequest): Record<string, unknown> {
  const params = callToolParams.safeParse(request.params ?? {});
  if (!params.success) {
    const missingName = typeof request.params?.name !== 'string';
    if (missingName && fake.faults.has('mcp.jsonrpc.invalid-params/missing-name-32603')) return responses.error(request.id, INTERNAL_ERROR, 'Internal error');
    // A tool it has, called with arguments that are no object: the tool is known, its input is what is wrong.
    const named = missingName ? undefined : FAKE_TOOLS.find((t) => t.name === request.params?.name);
    if (named && fake.variants.has('mcp.jsonrpc/invalid-arguments-as-tool-error')) return inputError(responses, request, named, 'arguments must be an object');
    return responses.error(request.id, INVALID_PARAMS, 'Invalid params: tools/call needs a string "name" and an object "arguments"');
  }
  const tool = FAKE_TOOLS.find((t) => t.name === params.data.name);
  if (!tool) return responses.error(request.id, INVALID_PARAMS, `Unknown tool: ${params.data.name}`);
  const args = tool.arguments.safeParse(params.data.arguments ?? {});
  if (!args.success) {
    const why = args.error.issues.map((i) => `${i.path.join('.') || 'arguments'}: ${i.message}`).join('; ');
    if (fake.variants.has('mcp.jsonrpc/invalid-arguments-as-tool-error')) return inputError(responses, request, tool, why);
    return responses.error(request.id, INVALID_PARAMS, `Invalid arguments for ${tool.name}: ${why}`);
  }
  return responses.toolResult(request.id, { content: [{ type: 'text', text: tool.run(args.data) }], isError: false }, 'CallToolResult');
}

/**
 * MCP tools, Error Handling: "Tool Execution Errors: Reported in tool results with isError: true: …
 * Invalid input data", where the fake otherwise answers -32602 ("Protocol Errors: … Invalid arguments").
 */
function inputError(responses: ResponseFactory, request: JsonRpcRequest, tool: FakeTool, why: string): Record<string, unknown> {
  return responses.toolResult(request.id, { content: [{ type: 'text', text: `Invalid input for ${tool.name}: ${why}` }], isError: true }, 'CallToolResult');
}

/** The progress token a tools/call asked for, if any ("_meta": {"progressToken": ...}). */
export function progressToken(request: JsonRpcRequest): string | number | undefined {
  const meta = request.params?._meta;
  if (typeof meta !== 'object' || meta === null) return undefined;
  const token = (meta as { progressToken?: unknown }).progressToken;
  return typeof token === 'string' || typeof token === 'number' ? token : undefined;
}

/** The POST body as JSON; answers a parse error itself and returns undefined when it is not JSON. */
export async function parseBody(fake: FakeContext, r: RouteRequest): Promise<{ value: unknown } | undefined> {
  const text = await r.body();
  const parsed = parseJson(text);
  if (parsed.ok) return { value: parsed.value };
  // "A JSON parser MAY accept non-JSON forms or extensions" (RFC 8259 §9): under the variant a trailing comma or data after the message is read past.
  const lenient = lenientJson(text);
  if (lenient && fake.variants.has('mcp.jsonrpc/lenient-json')) return lenient;
  const code = fake.faults.has('mcp.jsonrpc.parse-error/code-32600') ? INVALID_REQUEST : PARSE_ERROR;
  writeJson(r.res, malformedStatus(fake), unattributedError(fake, code, 'Parse error: the body is not valid JSON.'));
  return undefined;
}

/** Faults of `mcp.jsonrpc.generated.errors`: inputs only the generated messages send. True when the fault answered. */
export function generatedFault(fake: FakeContext, responses: ResponseFactory, r: RouteRequest, value: unknown): boolean {
  const m = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  const params = typeof m.params === 'object' && m.params !== null ? (m.params as Record<string, unknown>) : {};
  const crash =
    (fake.faults.has('mcp.jsonrpc.generated.errors/string-arguments-500') && m.method === 'tools/call' && typeof params.arguments === 'string') ||
    (fake.faults.has('mcp.jsonrpc.generated.errors/initialize-array-params-500') && m.method === 'initialize' && Array.isArray(m.params)) ||
    (fake.faults.has('mcp.jsonrpc.generated.errors/long-session-id-500') && (r.header('mcp-session-id')?.length ?? 0) > 1024);
  if (crash) {
    writeJson(r.res, 500, { error: 'internal error' });
    return true;
  }
  if (fake.faults.has('mcp.jsonrpc.generated.errors/long-method-served') && typeof m.method === 'string' && m.method.length > 4096 && (typeof m.id === 'string' || typeof m.id === 'number')) {
    writeJson(r.res, 200, responses.result(m.id, {}));
    return true;
  }
  return false;
}
