/**
 * Generated JSON-RPC messages for /mcp: every single mutation of a `ping` request derived from the
 * contract's `jsonrpcRequest` schema (src/contract/schema-cases.ts), sent in one session.
 */
import { jsonrpcRequest } from '../../../contract/mcp/jsonrpc.ts';
import { casesOf } from '../../../contract/schema-cases.ts';
import { type CheckContext, section } from '../../../rule/index.ts';
import { isRecord } from '../../../util/json.ts';
import { errorOf, postMcp, responses, SPEC_URL, withSession } from '../support/session.ts';

const rule = section({ surface: 'mcp', document: 'mcp-2025-03-26', needs: { credentials: ['mcp:primary'] } });

/** The codes JSON-RPC 2.0 names for input it cannot serve: parse error, invalid request, method not found, invalid params. */
const INPUT_ERRORS = [-32700, -32600, -32601, -32602];

/**
 * Whether a message breaks JSON-RPC 2.0 itself (not only MCP's narrower schema): then an error is
 * owed. A message without an id is a notification, and by-position params are JSON-RPC's own.
 */
function breaksJsonRpc(value: unknown): boolean {
  if (!isRecord(value)) return true;
  if (!('id' in value)) return false;
  if (value.jsonrpc !== '2.0' || typeof value.method !== 'string') return true;
  const id = value.id;
  if (id !== null && typeof id !== 'string' && typeof id !== 'number') return true;
  return 'params' in value && (value.params === null || typeof value.params !== 'object');
}

export const generatedErrors = rule({
  id: 'mcp.jsonrpc.generated.errors',
  title: 'Every generated JSON-RPC message that breaks JSON-RPC 2.0 gets a JSON-RPC error (-32700, -32600, -32601 or -32602), and no generated message gets an HTTP 5xx',
  level: 'required',
  bulk: true,
  spec: { section: 'Base Protocol > Messages (JSON-RPC 2.0)', quote: 'All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification.', url: SPEC_URL.base },
  async check(ctx: CheckContext) {
    const { cases } = casesOf(jsonrpcRequest, { jsonrpc: '2.0', id: 'apicert-generated-1', method: 'ping' });
    await withSession(ctx, async (session) => {
      const codes = new Map<string, unknown>();
      for (const c of cases) {
        const reply = await postMcp(ctx, c.value, { session, label: `generated: ${c.label}` });
        if (reply.res.status === 429 || reply.res.status === 503) continue;
        ctx.check(reply.res.status < 500, `${c.label}: answered HTTP ${reply.res.status}, a server error`, reply.res);
        if (!breaksJsonRpc(c.value)) continue;
        const error = errorOf(responses(reply).find((m) => 'error' in m));
        codes.set(c.label, error?.code ?? `HTTP ${reply.res.status}`);
        ctx.check(error && INPUT_ERRORS.includes(error.code as number), `${c.label}: answered HTTP ${reply.res.status} ${error ? `with error code ${JSON.stringify(error.code)}` : 'without a JSON-RPC error'}, expected one of ${INPUT_ERRORS.join(', ')}`, reply.res);
      }
      ctx.observe('error codes of generated invalid messages', Object.fromEntries(codes));
    });
  },
});
