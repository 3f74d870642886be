/**
 * Generated JSON-RPC messages for /mcp, in one session, each with an id of its own (MCP: "The
 * request ID MUST NOT have been previously used by the requestor within the same session."):
 * every single mutation of a `ping` request derived from the contract's `jsonrpcRequest` schema
 * (src/contract/schema-cases.ts), the params of `tools/call` and `initialize` of every wrong JSON
 * type, an unknown tool, notifications, batches and the `Mcp-Session-Id` header missing, unknown
 * and malformed. Each answer is judged against the expectation of the message as sent
 * (src/checks/generated/expectation.ts): a must-refuse message gets a JSON-RPC error, nothing gets
 * an HTTP 5xx, and a refusal is in the JSON-RPC error format.
 */
import { randomUUID } from 'node:crypto';
import { jsonrpcRequest } from '../../../contract/mcp/jsonrpc.ts';
import { casesOf } from '../../../contract/schema-cases.ts';
import type { CheckContext } from '../../../rule/index.ts';
import { limitAwareSection } from '../support/limiter.ts';
import { isRecord } from '../../../util/json.ts';
import { notCatalogue } from '../../generated/judge.ts';
import { aspectJudgement } from '../../generated/traffic.ts';
import { caller, postMcp, postRaw, SPEC_URL, withSession, type McpSession } from '../support/session.ts';

const rule = limitAwareSection({ surface: 'mcp', document: 'mcp-2025-03-26', needs: { credentials: ['mcp:primary'] } });

interface McpCase {
  label: string;
  /** A message (or batch) to send as JSON, or a text to send as is. */
  message?: unknown;
  raw?: string;
  /** `session` (the session's own id), `none`, or a header value to send instead. */
  session: 'session' | 'none' | string;
}

/** Gives every request id a value not used before in the session, keeping its JSON type. */
class IdBook {
  private readonly used = new Set<string>();
  private n = 0;
  fresh(id: unknown): unknown {
    if (typeof id !== 'string' && typeof id !== 'number') return id;
    let next: string | number = id;
    while (this.used.has(JSON.stringify(next))) next = typeof id === 'number' ? 900_000 + (this.n += 1) : `${id}-${(this.n += 1)}`;
    this.used.add(JSON.stringify(next));
    return next;
  }
  /** A message, or each message of a batch, with an id of its own. */
  own(message: unknown): unknown {
    if (Array.isArray(message)) return message.map((m) => this.own(m));
    return isRecord(message) && 'id' in message ? { ...message, id: this.fresh(message.id) } : message;
  }
}

const WRONG_TYPES: ReadonlyArray<[string, unknown]> = [
  ['a string', 'apicert'],
  ['a number', 7],
  ['an array', []],
  ['null', null],
  ['a boolean', true],
];

function cases(tool: string | undefined): McpCase[] {
  const out: McpCase[] = casesOf(jsonrpcRequest, { jsonrpc: '2.0', id: 'apicert-generated', method: 'ping' }).cases.map((c) => ({ label: c.label, message: c.value, session: 'session' }));
  const call = (id: string, params: unknown) => ({ jsonrpc: '2.0', id, method: 'tools/call', params });
  for (const [name, value] of WRONG_TYPES) out.push({ label: `tools/call: arguments ${name}`, message: call('apicert-args', { name: tool ?? 'apicert-no-such-tool', arguments: value }), session: 'session' });
  out.push({ label: 'tools/call: an unknown tool', message: call('apicert-unknown-tool', { name: 'apicert-no-such-tool', arguments: {} }), session: 'session' });
  for (const [name, value] of WRONG_TYPES) out.push({ label: `initialize: params ${name}`, message: { jsonrpc: '2.0', id: 'apicert-init', method: 'initialize', params: value }, session: 'none' });
  out.push({ label: 'an unknown method', message: { jsonrpc: '2.0', id: 'apicert-method', method: 'apicert/no-such-method' }, session: 'session' });
  out.push({ label: 'an unknown notification', message: { jsonrpc: '2.0', method: 'notifications/apicert' }, session: 'session' });
  // The empty batch is mcp.batch.empty's: its sentence is judged there once.
  out.push({ label: 'a batch: two pings', message: [{ jsonrpc: '2.0', id: 'apicert-batch', method: 'ping' }, { jsonrpc: '2.0', id: 'apicert-batch', method: 'ping' }], session: 'session' });
  out.push({ label: 'a batch: one notification', message: [{ jsonrpc: '2.0', method: 'notifications/apicert' }], session: 'session' });
  out.push({ label: 'a batch: not JSON-RPC', message: [1, 'two'], session: 'session' });
  out.push({ label: 'malformed JSON', raw: '{"jsonrpc":"2.0",', session: 'session' });
  const ping = { jsonrpc: '2.0', id: 'apicert-session', method: 'ping' };
  out.push({ label: 'Mcp-Session-Id: missing', message: ping, session: 'none' });
  out.push({ label: 'Mcp-Session-Id: unknown', message: ping, session: randomUUID() });
  out.push({ label: 'Mcp-Session-Id: malformed', message: ping, session: 'not a session id!' });
  out.push({ label: 'Mcp-Session-Id: very long', message: ping, session: 'a'.repeat(4096) });
  return out;
}

export const generatedErrors = rule({
  id: 'mcp.jsonrpc.generated.errors',
  title: 'Every generated JSON-RPC message the standards make invalid gets a JSON-RPC error, no generated message gets an HTTP 5xx, and every refusal is a JSON-RPC error; each request id is new in its session',
  level: 'required',
  bulk: true,
  spec: { section: 'Base Protocol > Messages (JSON-RPC 2.0)', quote: 'All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification. … The request ID MUST NOT have been previously used by the requestor within the same session.', url: SPEC_URL.base },
  judgement: aspectJudgement({ surface: 'mcp', aspects: ['no-5xx', 'problem-json', 'error-status'], record: 'a JSON-RPC message posted to /mcp', owns: notCatalogue }),
  async provoke(ctx: CheckContext) {
    const tool = ctx.profile.fixtures.mcp.safeTool?.name;
    const credential = caller(ctx);
    // The messages are judged from the journal, each against the expectation of the message as sent: this only sends them.
    await withSession(ctx, async (session: McpSession) => {
      const ids = new IdBook();
      for (const c of cases(tool)) {
        const message = c.message === undefined ? undefined : ids.own(c.message);
        const header = c.session === 'session' ? session.id : c.session === 'none' ? undefined : c.session;
        const options = { label: `generated: ${c.label}`, session: header ?? null, credential };
        if (message === undefined) await postRaw(ctx, c.raw!, options);
        else await postMcp(ctx, message, options);
      }
    });
  },
});
