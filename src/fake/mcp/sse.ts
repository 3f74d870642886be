import type { ServerResponse } from 'node:http';
import type { JsonRpcRequest } from '../../contract/mcp/jsonrpc.ts';
import type { FakeContext } from '../context.ts';
import { progressToken } from './jsonrpc.ts';
import { sseFrame } from '../sse-framing.ts';
import { sseEvent } from './respond.ts';
import type { McpSession } from './session-store.ts';

/** Whether every answer goes on an SSE stream (a variant), not only a tool run's. */
export function streamsEveryAnswer(fake: FakeContext): boolean {
  return fake.variants.has('mcp.sse/every-answer-streamed');
}

/** Streams the answers as SSE: progress first where asked for, one event per response, then closes. */
export function stream(fake: FakeContext, res: ServerResponse, session: McpSession, requests: JsonRpcRequest[], answers: Record<string, unknown>[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const varied = streamsEveryAnswer(fake);
  let streamEventId = 0;
  // The variant sends no ids at all ("Servers MAY attach an id field").
  const nextId = () => (varied ? undefined : String(fake.faults.has('mcp.sse.event-ids-unique/restart-per-stream') ? ++streamEventId : ++session.lastEventId));
  const write = (message: unknown) => {
    const id = nextId();
    res.write(varied ? sseFrame({ event: 'message', data: JSON.stringify(message) }, true) : sseEvent(id, message));
  };
  for (const request of requests) {
    const token = request.method === 'tools/call' ? progressToken(request) : undefined;
    if (token !== undefined) write({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: 1, total: 1 } });
  }
  for (const a of answers) write(a);
  // The fault spares streams that carried progress, so only the rule about closing sees it.
  const carriedProgress = requests.some((q) => q.method === 'tools/call' && progressToken(q) !== undefined);
  if (!fake.faults.has('mcp.sse.closes-after-response/held-open') || carriedProgress) {
    res.end();
    return;
  }
  const unregister = fake.lifecycle.onClose(() => res.end());
  res.on('close', unregister);
}
