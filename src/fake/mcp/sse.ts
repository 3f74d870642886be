import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { JsonRpcRequest } from '../../contract/mcp/jsonrpc.ts';
import type { FakeContext } from '../context.ts';
import { progressToken } from './jsonrpc.ts';
import { sseFrame, sseWire, wireOptions } from '../sse-framing.ts';
import { sseEvent } from './respond.ts';
import type { McpSession } from './session-store.ts';

/** Whether every answer goes on an SSE stream (a variant), initialize's and batches' too, not only a tool run's. */
export function streamsEveryAnswer(fake: FakeContext): boolean {
  return fake.variants.has('mcp.sse/every-answer-streamed') || batchesInOneEvent(fake);
}

/** "These responses MAY be batched": the answers to a batch as one event holding their array (a variant). */
function batchesInOneEvent(fake: FakeContext): boolean {
  return fake.variants.has('mcp.sse/batched-events');
}

/** The request ids the server gives its own requests: integers from 0, a namespace apart from the client's. */
const serverRequestIds = new WeakMap<McpSession, number>();

/** What a stream may carry before its responses: a log line and a ping of the server's own (a variant). */
function serverMessagesFirst(fake: FakeContext, session: McpSession): unknown[] {
  if (!fake.variants.has('mcp.sse/server-messages-first')) return [];
  const id = serverRequestIds.get(session) ?? 0;
  serverRequestIds.set(session, id + 1);
  return [
    { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', logger: 'apicert-fake', data: 'answering on this stream' } },
    { jsonrpc: '2.0', id, method: 'ping' },
  ];
}

/**
 * Under the fault, one ping of the server's own per session, written on every SSE answer of the
 * session: a broadcast of the same message, where MCP lets each message go on one stream only.
 */
const broadcastPings = new WeakMap<McpSession, unknown>();

function broadcastPing(fake: FakeContext, session: McpSession): unknown[] {
  if (!fake.faults.has('mcp.sse.no-broadcast/ping-on-every-stream')) return [];
  let ping = broadcastPings.get(session);
  if (ping === undefined) {
    const id = serverRequestIds.get(session) ?? 0;
    serverRequestIds.set(session, id + 1);
    ping = { jsonrpc: '2.0', id, method: 'ping' };
    broadcastPings.set(session, ping);
  }
  return [ping];
}

/** How events are framed and named: by default a session-wide counter; the variants take other legal forms. */
function framer(fake: FakeContext, session: McpSession): (message: unknown) => string {
  if (fake.variants.has('mcp.sse/every-answer-streamed')) {
    // The variant sends no ids at all ("Servers MAY attach an id field").
    return (message) => sseFrame({ event: 'message', data: JSON.stringify(message) }, true);
  }
  if (fake.variants.has('mcp.sse/opaque-event-ids')) {
    // A cursor within this stream, unique across streams by its random prefix; no event field (type "message").
    const stream = randomUUID();
    let n = 0;
    return (message) => sseFrame({ id: `${stream}/${(n += 1)}`, data: JSON.stringify(message) }, false);
  }
  let streamEventId = 0;
  const nextId = () => String(fake.faults.has('mcp.sse.event-ids-unique/restart-per-stream') ? ++streamEventId : ++session.lastEventId);
  return (message) => sseEvent(nextId(), message);
}

export interface StreamOptions {
  /** Whether the POST body was a batch (an array), whose answers a variant sends as one event. */
  batch?: boolean;
  headers?: Record<string, string>;
  /** Messages of the server's own the stream starts with (the lifecycle's, before anything else). */
  first?: readonly unknown[];
}

/** Streams the answers as SSE: progress first where asked for, one event per response, then closes. */
export function stream(fake: FakeContext, res: ServerResponse, session: McpSession, requests: JsonRpcRequest[], answers: Record<string, unknown>[], options: StreamOptions = {}): void {
  res.writeHead(200, { ...options.headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const { variants } = fake;
  sseWire(res, wireOptions(fake.config.sseSplitSeed, { crlf: variants.has('mcp.sse/crlf-line-endings'), cr: variants.has('mcp.sse/cr-line-endings'), split: variants.has('mcp.sse/split-writes') }));
  const frame = framer(fake, session);
  const write = (message: unknown) => res.write(frame(message));
  for (const message of [...(options.first ?? []), ...serverMessagesFirst(fake, session), ...broadcastPing(fake, session)]) write(message);
  for (const request of requests) {
    const token = request.method === 'tools/call' ? progressToken(request) : undefined;
    if (token !== undefined) write({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: 1, total: 1 } });
  }
  if (options.batch && batchesInOneEvent(fake)) write(answers);
  else for (const a of answers) write(a);
  if (variants.has('mcp.sse/closes-late')) {
    closeLate(fake, res);
    return;
  }
  // Every SSE answer stays open under the fault: the other rules read up to their responses and never wait on it.
  if (!fake.faults.has('mcp.sse.closes-after-response/held-open')) {
    res.end();
    return;
  }
  const unregister = fake.lifecycle.onClose(() => res.end());
  res.on('close', unregister);
}

/** Under the variant, how long after its last response an SSE answer stays open: longer than the embedded profile's safety.streamCloseGraceMs. */
export const CLOSES_LATE_MS = 2_500;

/** "After all JSON-RPC responses have been sent, the server SHOULD close the SSE stream" sets no time: the variant closes it late. */
function closeLate(fake: FakeContext, res: ServerResponse): void {
  const timer = setTimeout(() => res.end(), CLOSES_LATE_MS);
  const unregister = fake.lifecycle.onClose(() => res.end());
  res.on('close', () => {
    clearTimeout(timer);
    unregister();
  });
}
