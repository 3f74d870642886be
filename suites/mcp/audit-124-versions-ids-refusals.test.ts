/**
 * Audit 124 F3, F4, F8 on hand-made recordings: an offered version the server then does not echo
 * (mcp.lifecycle.version-unknown), two initializations given one session id (mcp.session.id-unique),
 * and HTTP refusals of requests that carry no JSON-RPC (mcp.transport.request-response).
 */
import { describe, expect, it } from 'vitest';
import { empty, json, operating, post, verdictOf, verdicts, type Part } from './mcp-recording.ts';

/** An initialize asking for `asked`, answered with a result naming `answered` (and the session id, when given). */
function init(id: string, asked: string, answered: string, session?: string): Part {
  const request = post({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: asked, capabilities: {}, clientInfo: { name: 'client', version: '1' } } }, undefined);
  const result = { protocolVersion: answered, capabilities: { tools: {} }, serverInfo: { name: 'server', version: '1' } };
  return { ...request, ...json(200, { jsonrpc: '2.0', id, result }, session === undefined ? {} : { 'mcp-session-id': session }) };
}

const problem = (status: number): Part => ({
  method: 'POST',
  status,
  responseHeaders: { 'content-type': 'application/problem+json', 'retry-after': '1' },
  responseBody: JSON.stringify({ type: 'about:blank', title: 'Too Many Requests', status, detail: 'rate limit for the principal', code: 'rate_limited', requestId: '6f1c1f1e-8d2b-4c1a-9a8e-0b6c1d2e3f40' }),
});

describe('F4: a version the server offered is one it supports', () => {
  const rule = 'mcp.lifecycle.version-unknown';

  it('fails an offered version that, asked for, is answered with another', async () => {
    expect(await verdictOf([init('a', '1999-12-31', '2024-11-05', 's1'), init('b', '2024-11-05', '2025-03-26', 's2')], rule)).toBe('fail');
  });

  it('fails an offered version that, asked for, is refused with an error', async () => {
    const refused = { ...post({ jsonrpc: '2.0', id: 'b', method: 'initialize', params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'client', version: '1' } } }, undefined), ...json(200, { jsonrpc: '2.0', id: 'b', error: { code: -32602, message: 'Unsupported protocol version' } }) };
    expect(await verdictOf([init('a', '1999-12-31', '2024-11-05', 's1'), refused], rule)).toBe('fail');
  });

  it('passes an offered version echoed when asked for, and one answered with an HTTP refusal only', async () => {
    expect(await verdictOf([init('a', '1999-12-31', '2024-11-05', 's1'), init('b', '2024-11-05', '2024-11-05', 's2')], rule)).toBe('pass');
    const limited = { ...post({ jsonrpc: '2.0', id: 'b', method: 'initialize', params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'client', version: '1' } } }, undefined), ...problem(429) };
    expect(await verdictOf([init('a', '1999-12-31', '2024-11-05', 's1'), limited], rule)).toBe('pass');
  });

  it('leaves the offer of 2025-03-26 to mcp.lifecycle.version-echo', async () => {
    const judged = await verdicts([init('a', '1999-12-31', '2025-03-26', 's1'), init('b', '2025-03-26', '2024-11-05', 's2')], [rule, 'mcp.lifecycle.version-echo']);
    expect(judged[rule]?.verdict).toBe('pass');
    expect(judged['mcp.lifecycle.version-echo']?.verdict).toBe('fail');
  });
});

describe('F3: no two initializations get the same session id', () => {
  const rule = 'mcp.session.id-unique';

  it('fails (as the SHOULD it is) two initializations answered with one id, and passes distinct ones', async () => {
    const same = await verdicts([init('a', '2025-03-26', '2025-03-26', '1'), init('b', '2025-03-26', '2025-03-26', '1')], [rule]);
    expect(same[rule]).toEqual({ verdict: 'fail', level: 'should' });
    expect(await verdictOf([init('a', '2025-03-26', '2025-03-26', 'f3c9a1d2-0b7e-4c55-9f0e-7d1a2b3c4d5e'), init('b', '2025-03-26', '2025-03-26', '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d')], rule)).toBe('pass');
  });

  it('has nothing to compare with one initialization', async () => {
    expect(await verdictOf([init('a', '2025-03-26', '2025-03-26', '1')], rule)).toBe('not-applicable');
  });
});

describe('F8: an HTTP refusal of requests carrying no JSON-RPC is not an answer the content-type sentence frames', () => {
  const rule = 'mcp.transport.request-response';
  const toolsList = (session: string) => post({ jsonrpc: '2.0', id: 't1', method: 'tools/list' }, session);
  const ping = (session: string) => ({ ...post({ jsonrpc: '2.0', id: 'p1', method: 'ping' }, session), ...json(200, { jsonrpc: '2.0', id: 'p1', result: {} }) });

  it('passes a 429 in the gateway problem+json and a bodiless 503', async () => {
    expect(await verdictOf([...operating('s1'), ping('s1'), { ...toolsList('s1'), ...problem(429) }], rule)).toBe('pass');
    expect(await verdictOf([...operating('s1'), ping('s1'), { ...toolsList('s1'), ...empty(503) }], rule)).toBe('pass');
  });

  it('fails an error answer carrying a JSON-RPC response under another content type, and a 2xx one', async () => {
    const carried = { method: 'POST', status: 400, responseHeaders: { 'content-type': 'text/plain' }, responseBody: JSON.stringify({ jsonrpc: '2.0', id: 't1', error: { code: -32602, message: 'bad' } }) };
    expect(await verdictOf([...operating('s1'), { ...toolsList('s1'), ...carried }], rule)).toBe('fail');
    expect(await verdictOf([...operating('s1'), { ...toolsList('s1'), ...problem(200) }], rule)).toBe('fail');
  });
});
