import { describe, expect, it } from 'vitest';
import { parseEventStreamBody } from '../../src/checks/mcp/support/sse-body.ts';
import { readReply } from '../../src/checks/mcp/support/session.ts';
import type { ProbeResponse } from '../../src/rule/index.ts';

function response(contentType: string, text: string, headers: Record<string, string> = {}): ProbeResponse {
  return { status: 200, headers: { 'content-type': contentType, ...headers }, text, json: undefined, contentType, durationMs: 1 };
}

describe('reading /mcp answers', () => {
  it('parses SSE bodies, including a last event without its blank line', () => {
    const { events } = parseEventStreamBody('id: 1\nevent: message\ndata: {"a":1}\n\n: comment\n\nid: 2\ndata: {"b":2}');
    expect(events).toEqual([
      { id: '1', event: 'message', data: '{"a":1}' },
      { id: '2', data: '{"b":2}' },
    ]);
  });

  it('flattens batched messages in JSON and SSE bodies and skips non-message events', () => {
    const json = readReply(response('application/json; charset=utf-8', '[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"result":{}}]'));
    expect(json.kind).toBe('json');
    expect(json.mediaType).toBe('application/json');
    expect(json.messages).toHaveLength(2);
    const sse = readReply(response('text/event-stream', 'data: [{"id":1},{"id":2}]\n\nevent: other\ndata: {"id":3}\n\nid: 9\ndata:\n\n'));
    expect(sse.kind).toBe('sse');
    expect(sse.messages).toEqual([{ id: 1 }, { id: 2 }]);
    expect(sse.events).toHaveLength(3);
  });

  it('reads JSON whatever the content type says, so only the content-type rule judges it', () => {
    const reply = readReply(response('text/plain', '{"jsonrpc":"2.0","id":1,"result":{}}', { 'mcp-session-id': 's-1' }));
    expect(reply.kind).toBe('json');
    expect(reply.mediaType).toBe('text/plain');
    expect(reply.sessionId).toBe('s-1');
    expect(readReply(response('', '')).kind).toBe('empty');
    expect(readReply(response('text/html', '<html>')).kind).toBe('other');
  });
});
