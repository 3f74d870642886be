import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INVALID_REQUEST, PARSE_ERROR } from '../../src/contract/mcp/jsonrpc.ts';
import { SESSION_HEADER } from '../../src/contract/mcp/transport.ts';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { startFake, type RunningFake } from '../../src/fake/server.ts';
import { parseEventStreamBody } from '../../src/checks/mcp/support/sse-body.ts';

// Raw HTTP against the fake's /mcp: batches and malformed input, which no SDK client ever sends.
describe('fake /mcp with raw requests', () => {
  let fake: RunningFake;
  let token: string;
  let session: string;

  async function post(body: string, headers: Record<string, string> = {}): Promise<{ status: number; contentType: string; text: string; json: unknown }> {
    const res = await fetch(new URL('/mcp', fake.baseUrl), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body,
    });
    const text = await res.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, contentType: res.headers.get('content-type') ?? '', text, json };
  }

  const inSession = (body: unknown) => post(JSON.stringify(body), { [SESSION_HEADER]: session });

  beforeAll(async () => {
    fake = await startFake();
    token = embeddedProfile(fake).credentials.find((c) => c.surfaces.includes('mcp') && !c.expired)!.token;
    const res = await fetch(new URL('/mcp', fake.baseUrl), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
    });
    session = res.headers.get(SESSION_HEADER)!;
    await res.body?.cancel();
    expect(session).toBeTruthy();
  });

  afterAll(() => fake.close());

  it('answers a batch of two requests with a JSON array of two responses, ids matched', async () => {
    const res = await inSession([
      { jsonrpc: '2.0', id: 'a', method: 'ping' },
      { jsonrpc: '2.0', id: 7, method: 'tools/list' },
    ]);
    expect(res.status).toBe(200);
    expect(res.contentType).toMatch(/^application\/json/);
    expect(res.json).toEqual([
      { jsonrpc: '2.0', id: 'a', result: {} },
      expect.objectContaining({ jsonrpc: '2.0', id: 7, result: expect.objectContaining({ tools: expect.any(Array) }) }),
    ]);
  });

  it('answers a batch of notifications with 202 and no body', async () => {
    const res = await inSession([
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'x' } },
    ]);
    expect(res.status).toBe(202);
    expect(res.text).toBe('');
  });

  it('answers a batch of responses with 202 and no body', async () => {
    const res = await inSession([{ jsonrpc: '2.0', id: 'server-1', result: {} }]);
    expect(res.status).toBe(202);
    expect(res.text).toBe('');
  });

  it('answers only the requests of a batch that mixes requests and notifications', async () => {
    const res = await inSession([
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'x' } },
      { jsonrpc: '2.0', id: 3, method: 'ping' },
    ]);
    expect(res.json).toEqual([{ jsonrpc: '2.0', id: 3, result: {} }]);
  });

  it('answers an invalid element of a batch with -32600 and still serves the rest', async () => {
    const res = await inSession([{ jsonrpc: '2.0', id: 4, method: 'ping' }, { id: 5, method: 'ping' }, 17]);
    expect(res.status).toBe(200);
    expect(res.json).toEqual([
      { jsonrpc: '2.0', id: 4, result: {} },
      { jsonrpc: '2.0', id: 5, error: expect.objectContaining({ code: INVALID_REQUEST }) },
      { jsonrpc: '2.0', id: null, error: expect.objectContaining({ code: INVALID_REQUEST }) },
    ]);
  });

  it('refuses initialize inside a batch and an empty batch', async () => {
    const batched = await inSession([{ jsonrpc: '2.0', id: 6, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } } }]);
    expect(batched.json).toEqual([{ jsonrpc: '2.0', id: 6, error: expect.objectContaining({ code: INVALID_REQUEST }) }]);
    const empty = await inSession([]);
    expect(empty.status).toBe(400);
    expect(empty.json).toMatchObject({ id: null, error: { code: INVALID_REQUEST } });
  });

  it('streams a batch with a tool call as SSE: one event per response, unique ids, then closes', async () => {
    const res = await inSession([
      { jsonrpc: '2.0', id: 'call', method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 2 }, _meta: { progressToken: 'p' } } },
      { jsonrpc: '2.0', id: 'ping', method: 'ping' },
    ]);
    expect(res.status).toBe(200);
    expect(res.contentType).toMatch(/^text\/event-stream/);
    const { events, errors } = parseEventStreamBody(res.text);
    expect(errors).toEqual([]);
    const messages = events.map((e) => JSON.parse(e.data) as Record<string, unknown>);
    expect(messages.map((m) => m.id ?? m.method)).toEqual(['notifications/progress', 'call', 'ping']);
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
  });

  it('answers a body that is not JSON with 400 and -32700, id null', async () => {
    const res = await post('{"jsonrpc":', { [SESSION_HEADER]: session });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ jsonrpc: '2.0', id: null, error: expect.objectContaining({ code: PARSE_ERROR }) });
  });

  it('answers 400 without a session id, 404 with an unknown one, and 405 to GET', async () => {
    expect((await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }))).status).toBe(400);
    expect((await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }), { [SESSION_HEADER]: 'nope' })).status).toBe(404);
    const get = await fetch(new URL('/mcp', fake.baseUrl), { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST, DELETE');
    expect(await get.text()).toBe('');
  });

  it('refuses a request carrying the Origin of a foreign page with 403, and serves loopback origins', async () => {
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 'o', method: 'ping' });
    expect((await post(ping, { [SESSION_HEADER]: session, origin: 'https://evil.example' })).status).toBe(403);
    expect((await post(ping, { [SESSION_HEADER]: session, origin: 'http://127.0.0.1:3000' })).status).toBe(200);
  });
});
