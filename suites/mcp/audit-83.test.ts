/**
 * An SSE answer to a POST its reader stopped (apicert's stream timeout, a byte or event bound, a
 * client letting go) before the responses a rule needs had come: MCP 2025-03-26 lets the stream
 * carry them later ("The server SHOULD NOT close the SSE stream before sending all JSON-RPC
 * responses"), so the rule lacks them (untestable in a recording) rather than failing. A stream its
 * server ended without them, or a recording that does not say how it ended, still fails.
 */
import { describe, expect, it } from 'vitest';
import { operating, post, verdictOf, type Part } from './mcp-recording.ts';
import type { Exchange } from '../../src/rule/index.ts';

const S = 'session-a';
type End = Exchange['streamEnd'];

/** An SSE answer (200) carrying `messages`, one per event, ended by `end` (undefined: the recording does not say). */
function sse(messages: readonly unknown[], end: End, headers: Record<string, string> = {}): Part {
  const body = messages.map((m) => `event: message\ndata: ${JSON.stringify(m)}\n\n`).join('');
  return { method: 'POST', status: 200, responseHeaders: { 'content-type': 'text/event-stream', ...headers }, responseBody: body, ...(end === undefined ? {} : { streamEnd: end }) };
}

const ping = (id: string) => ({ jsonrpc: '2.0', id, method: 'ping' });
const pong = (id: string) => ({ jsonrpc: '2.0', id, result: {} });
const progress = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'working' } };

/** An opening initialize asking for `version`, answered on an SSE stream carrying `messages`. */
function initializeOverSse(id: string, version: string, messages: readonly unknown[], end: End): Part {
  const request = post({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'client', version: '1' } } }, undefined);
  return { ...request, ...sse(messages, end, { 'mcp-session-id': 'session-b' }) };
}

/** Each rule with the one POST it judges, whose SSE answer carried only a notification (no response). */
const unanswered: ReadonlyArray<[rule: string, parts: (end: End) => Part[]]> = [
  ['mcp.jsonrpc.parse-error', (end) => [...operating(S), { ...post('this is not json', S), ...sse([progress], end) }]],
  ['mcp.jsonrpc.invalid-request', (end) => [...operating(S), { ...post({ id: 'x1', method: 'ping' }, S), ...sse([progress], end) }]],
  ['mcp.jsonrpc.method-not-found', (end) => [...operating(S), { ...post({ jsonrpc: '2.0', id: 'u1', method: 'apicert/no-such-method', params: {} }, S), ...sse([progress], end) }]],
  ['mcp.jsonrpc.invalid-params', (end) => [...operating(S), { ...post({ jsonrpc: '2.0', id: 'c1', method: 'tools/call', params: { arguments: {} } }, S), ...sse([progress], end) }]],
  ['mcp.revisions.protocol-version-header', (end) => [...operating(S), { ...post(ping('p1'), S), ...sse([progress], end) }]],
  ['mcp.revisions.batching', (end) => [initializeOverSse('i1', '2025-06-18', [progress], end)]],
  ['mcp.lifecycle.initialize-result', (end) => [initializeOverSse('i1', '2025-03-26', [progress], end)]],
  ['mcp.lifecycle.version-echo', (end) => [initializeOverSse('i1', '2025-03-26', [progress], end)]],
  ['mcp.lifecycle.version-unknown', (end) => [initializeOverSse('i1', '1999-12-31', [progress], end)]],
  ['mcp.batch.requests', (end) => [...operating(S), { ...post([ping('b1'), ping('b2')], S), ...sse([pong('b1')], end) }]],
];

describe('a POST answer stream its reader stopped before the response a rule needs', () => {
  for (const [rule, parts] of unanswered) {
    it(`${rule}: timeout, byte or event bound, client-disconnect: not fail (inconclusive at apicert's own bound, as certify; untestable where a client let go)`, async () => {
      for (const end of ['timeout', 'byte-limit', 'event-limit'] as const) {
        expect(`${end}: ${await verdictOf(parts(end), rule)}`).toBe(`${end}: inconclusive`);
      }
      expect(await verdictOf(parts('client-disconnect'), rule)).toBe('untestable');
    });

    it(`${rule}: the server ended the stream without it, or the recording does not say: fail`, async () => {
      expect(await verdictOf(parts('server'), rule)).toBe('fail');
      expect(await verdictOf(parts(undefined), rule)).toBe('fail');
    });
  }

  it('mcp.transport.request-response: a ping whose stream its reader stopped before the response is lacked, not passed on its framing', async () => {
    const parts = (end: End) => [...operating(S), { ...post(ping('p1'), S), ...sse([progress], end) }];
    expect(await verdictOf(parts('timeout'), 'mcp.transport.request-response')).toBe('inconclusive');
    expect(await verdictOf(parts('client-disconnect'), 'mcp.transport.request-response')).toBe('untestable');
    // A stream the server closed without it is mcp.sse.closes-after-response's ("SHOULD eventually include"): the framing alone is judged.
    expect(await verdictOf(parts('server'), 'mcp.transport.request-response')).toBe('pass');
  });

  it('what came before the stop is judged: an answer carrying all it owes passes, a wrong one fails', async () => {
    // The probe lets go (client-disconnect) once each request has its response: nothing is owed then.
    expect(await verdictOf([...operating(S), { ...post([ping('b1'), ping('b2')], S), ...sse([pong('b1'), pong('b2')], 'client-disconnect') }], 'mcp.batch.requests')).toBe('pass');
    expect(await verdictOf([...operating(S), { ...post({ jsonrpc: '2.0', id: 'u1', method: 'apicert/no-such-method', params: {} }, S), ...sse([pong('u1')], 'client-disconnect') }], 'mcp.jsonrpc.method-not-found')).toBe('fail');
    // A response read twice, or one for no request of the batch, fails however the stream ended.
    expect(await verdictOf([...operating(S), { ...post([ping('b1'), ping('b2')], S), ...sse([pong('b1'), pong('b1')], 'timeout') }], 'mcp.batch.requests')).toBe('fail');
    expect(await verdictOf([...operating(S), { ...post([ping('b1'), ping('b2')], S), ...sse([pong('b1'), pong('zz')], 'timeout') }], 'mcp.batch.requests')).toBe('fail');
    expect(await verdictOf([...operating(S), { ...post('this is not json', S), ...sse([pong('zz')], 'timeout') }], 'mcp.jsonrpc.parse-error')).toBe('fail');
  });
});
