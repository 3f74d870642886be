/**
 * The server's own messages on its answers, judged from hand-made recordings:
 * mcp.lifecycle.requests-before-initialized (Lifecycle: "The server SHOULD NOT send requests other
 * than pings and logging before receiving the initialized notification.") and mcp.sse.no-broadcast
 * (Multiple Connections: "it MUST NOT broadcast the same message across multiple streams"). Each
 * legal answer passes or leaves the rule nothing to judge; only the break fails.
 */
import { describe, expect, it } from 'vitest';
import { empty, initialize, json, operating, post, verdictOf, type Part } from './mcp-recording.ts';

const S = 'session-a';
const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
const ping = (id: string | number) => ({ jsonrpc: '2.0', id, method: 'ping' });
const pong = (id: string | number) => ({ jsonrpc: '2.0', id, result: {} });
const log = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'answering' } };
const rootsList = (id: string | number) => ({ jsonrpc: '2.0', id, method: 'roots/list' });
const call = (id: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: {} } });
const result = (id: string) => ({ jsonrpc: '2.0', id, result: { content: [] } });

/** An SSE answer carrying `messages`, one event each. */
const sse = (...messages: unknown[]): Part => ({
  method: 'POST',
  status: 200,
  responseHeaders: { 'content-type': 'text/event-stream' },
  responseBody: messages.map((m, i) => `id: ${i + 1}\nevent: message\ndata: ${JSON.stringify(m)}\n\n`).join(''),
});
const notified = (session: string | undefined): Part => ({ ...post(initialized, session), ...empty(202) });

describe('mcp.lifecycle.requests-before-initialized', () => {
  const RULE = 'mcp.lifecycle.requests-before-initialized';

  it('a ping and a log line of the server before notifications/initialized pass', async () => {
    expect(await verdictOf([...initialize('i1', S), { ...post(ping('p1'), S), ...sse(log, ping(0), pong('p1')) }, notified(S)], RULE)).toBe('pass');
  });

  it('a roots/list request before notifications/initialized fails, on the answer to a ping or to initialize itself', async () => {
    expect(await verdictOf([...initialize('i1', S), { ...post(ping('p1'), S), ...sse(rootsList(0), pong('p1')) }, notified(S)], RULE)).toBe('fail');
    const init = initialize('i1', S)[0]!;
    const streamed: Part = { ...init, ...sse(rootsList(0), { jsonrpc: '2.0', id: 'i1', result: { protocolVersion: '2025-03-26', capabilities: {}, serverInfo: { name: 's', version: '1' } } }), responseHeaders: { 'content-type': 'text/event-stream', 'mcp-session-id': S } };
    expect(await verdictOf([streamed, notified(S)], RULE)).toBe('fail');
  });

  it('a session the client never initialized: every answer in it is before the notification', async () => {
    expect(await verdictOf([...initialize('i1', S), { ...post(ping('p1'), S), ...sse(rootsList(0), pong('p1')) }], RULE)).toBe('fail');
  });

  it('the same request after notifications/initialized, or in another session, is not judged', async () => {
    const parts: Part[] = [...operating(S), { ...post(call('c1'), S), ...sse(rootsList(0), result('c1')) }, ...initialize('i2', 'session-b'), { ...post(ping('p2'), 'session-b'), ...json(200, pong('p2')) }, notified('session-b')];
    expect(await verdictOf(parts, RULE)).toBe('pass');
    // Only the answer to initialize, before the notification, is judged.
    expect(await verdictOf([...operating(S), { ...post(call('c1'), S), ...sse(rootsList(0), result('c1')) }], RULE)).toBe('pass');
  });

  it('a session whose opening the recording does not hold is not judged: its initialized may come before the recording', async () => {
    expect(await verdictOf([{ ...post(call('c1'), S), ...sse(rootsList(0), result('c1')) }], RULE)).toBe('not-applicable');
  });

  it('a stream still open when the client sent notifications/initialized is not judged: the request may have come after it', async () => {
    const parts: Part[] = [...initialize('i1', S), { ...post(ping('p1'), S), ...sse(rootsList(0), pong('p1')), durationMs: 5_000 }, notified(S)];
    expect(await verdictOf(parts, RULE)).toBe('pass');
  });

  it('without session ids, a caller that had sent notifications/initialized before is not judged again', async () => {
    const parts: Part[] = [...initialize('i1', undefined), notified(undefined), ...initialize('i2', undefined), { ...post(call('c1'), undefined), ...sse(rootsList(0), result('c1')) }];
    expect(await verdictOf(parts, RULE)).toBe('pass');
    expect(await verdictOf([...initialize('i1', undefined), { ...post(ping('p1'), undefined), ...sse(rootsList(0), pong('p1')) }, notified(undefined)], RULE)).toBe('fail');
  });
});

describe('mcp.sse.no-broadcast', () => {
  const RULE = 'mcp.sse.no-broadcast';

  it('a server ping with one id on two streams of a session fails', async () => {
    const parts: Part[] = [...operating(S), { ...post(call('c1'), S), ...sse(ping(0), result('c1')) }, { ...post(call('c2'), S), ...sse(ping(0), result('c2')) }];
    expect(await verdictOf(parts, RULE)).toBe('fail');
  });

  it('equal log lines and distinct server pings on every stream pass; the same ping id in two sessions passes', async () => {
    const parts: Part[] = [
      ...operating(S),
      { ...post(call('c1'), S), ...sse(log, ping(0), result('c1')) },
      { ...post(call('c2'), S), ...sse(log, ping(1), result('c2')) },
      ...operating('session-b'),
      { ...post(call('c3'), 'session-b'), ...sse(log, ping(0), result('c3')) },
      { ...post(call('c4'), 'session-b'), ...sse(log, ping(1), result('c4')) },
    ];
    expect(await verdictOf(parts, RULE)).toBe('pass');
  });

  it('the response to a request sent once, on two streams, fails; to a request the client sent twice, it does not', async () => {
    const once: Part[] = [...operating(S), { ...post(call('c1'), S), ...sse(result('c1')) }, { ...post(call('c2'), S), ...sse(result('c1'), result('c2')) }];
    expect(await verdictOf(once, RULE)).toBe('fail');
    const twice: Part[] = [...operating(S), { ...post(call('c1'), S), ...sse(result('c1')) }, { ...post(call('c1'), S), ...sse(result('c1')) }];
    expect(await verdictOf(twice, RULE)).toBe('pass');
  });

  it('one id carried by two different server requests is not one message sent twice', async () => {
    const parts: Part[] = [...operating(S), { ...post(call('c1'), S), ...sse(ping(0), result('c1')) }, { ...post(call('c2'), S), ...sse(rootsList(0), result('c2')) }];
    expect(await verdictOf(parts, RULE)).toBe('pass');
  });

  it('without session ids, server request ids name nothing (a stateless server may count them per request); a response sent twice still fails', async () => {
    const pings: Part[] = [...operating(undefined), { ...post(call('c1'), undefined), ...sse(ping(0), result('c1')) }, { ...post(call('c2'), undefined), ...sse(ping(0), result('c2')) }];
    expect(await verdictOf(pings, RULE)).toBe('pass');
    const responses: Part[] = [...operating(undefined), { ...post(call('c1'), undefined), ...sse(result('c1')) }, { ...post(call('c2'), undefined), ...sse(result('c1'), result('c2')) }];
    expect(await verdictOf(responses, RULE)).toBe('fail');
  });

  it('a GET resuming with Last-Event-ID continues its stream, and JSON answers are no streams', async () => {
    const get = (headers: Record<string, string>): Part => ({ ...sse(ping(0)), method: 'GET', requestHeaders: { authorization: post({}, S).requestHeaders!.authorization!, accept: 'text/event-stream', 'mcp-session-id': S, ...headers } });
    const parts: Part[] = [...operating(S), { ...post(call('c1'), S), ...sse(ping(0), result('c1')) }];
    expect(await verdictOf([...parts, get({ 'last-event-id': '1' })], RULE)).toBe('not-applicable');
    // A GET stream of its own (MCP lets a server offer one) is one of the session's streams.
    expect(await verdictOf([...parts, get({})], RULE)).toBe('fail');
    expect(await verdictOf([...operating(S), { ...post(ping('p1'), S), ...json(200, pong('p1')) }, { ...post(ping('p2'), S), ...json(200, pong('p2')) }], RULE)).toBe('not-applicable');
  });
});
