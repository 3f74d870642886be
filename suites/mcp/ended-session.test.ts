/**
 * MCP 2025-03-26 Session Management: "The server MAY terminate the session at any time, after which
 * it MUST respond to requests containing that session ID with HTTP 404 Not Found." The 404 a
 * server answers a request of a live session with is how it ends the session; the rule holds every
 * later request of that session to 404, and holds nothing against a server that never ends one.
 */
import { describe, expect, it } from 'vitest';
import { empty, json, operating, post, verdictOf, type Part } from './mcp-recording.ts';

const RULE = 'mcp.session.ended-stays-404';
const S = 'session-0123456789abcdef';
const ping = (id: string): Part => post({ jsonrpc: '2.0', id, method: 'ping' }, S);
const pong = (id: string) => json(200, { jsonrpc: '2.0', id, result: {} });
const gone = () => json(404, { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } });
const del = (status: number): Part => ({ method: 'DELETE', requestHeaders: { ...post({}, S).requestHeaders }, status, responseHeaders: {}, responseBody: '' });

describe(RULE, () => {
  it('passes a server that ends a session and answers every later request of it 404', async () => {
    expect(await verdictOf([...operating(S), { ...ping('1'), ...pong('1') }, { ...ping('2'), ...gone() }, { ...ping('3'), ...gone() }, del(404)], RULE)).toBe('pass');
  });

  it('fails a session served again after the server answered 404 in it (a store that lost the session and made it anew)', async () => {
    expect(await verdictOf([...operating(S), { ...ping('1'), ...gone() }, { ...ping('2'), ...pong('2') }], RULE)).toBe('fail');
  });

  it('fails a DELETE of a session the server ended answered 204, and accepts 405 (a server that lets no client end sessions)', async () => {
    expect(await verdictOf([...operating(S), { ...ping('1'), ...gone() }, del(204)], RULE)).toBe('fail');
    expect(await verdictOf([...operating(S), { ...ping('1'), ...gone() }, del(405)], RULE)).toBe('pass');
  });

  it('does not apply where the server ended no session, or a DELETE ended it (mcp.session.delete-terminates judges that)', async () => {
    expect(await verdictOf([...operating(S), { ...ping('1'), ...pong('1') }, del(204)], RULE)).toBe('not-applicable');
    // A GET answered 404 is a server without a GET route (it owes 405), not the end of the session.
    const get404: Part = { method: 'GET', requestHeaders: { ...post({}, S).requestHeaders, accept: 'text/event-stream' }, status: 404, responseHeaders: {}, responseBody: '' };
    expect(await verdictOf([...operating(S), get404, { ...ping('1'), ...pong('1') }], RULE)).toBe('not-applicable');
    expect(await verdictOf([...operating(S), del(204), { ...ping('1'), ...gone() }, { ...ping('2'), ...empty(404) }], RULE)).toBe('not-applicable');
  });
});
