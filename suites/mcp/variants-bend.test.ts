import { afterAll, describe, expect, it } from 'vitest';
import { INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR } from '../../src/contract/mcp/jsonrpc.ts';
import { SESSION_HEADER, VISIBLE_ASCII } from '../../src/contract/mcp/transport.ts';
import { parseEventStreamBody } from '../../src/checks/mcp/support/sse-body.ts';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { startFake, type RunningFake } from '../../src/fake/server.ts';
import type { VariantId } from '../../src/fake/variants/index.ts';
import { parseJson } from '../../src/util/json.ts';

/**
 * suites/variants.test.ts proves the rules pass under each /mcp variant; this proves each variant
 * takes its other choice at all (a variant the fake ignores would make that proof empty). Each
 * case compares the raw exchange on the default fake with the one under the variant.
 */
const ACCEPT = 'application/json, text/event-stream';
const INIT = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } } };

interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

class Peer {
  readonly fake: RunningFake;
  private readonly token: string;
  private constructor(fake: RunningFake, token: string) {
    this.fake = fake;
    this.token = token;
  }

  static async start(variant?: VariantId): Promise<Peer> {
    const fake = await startFake(variant ? { variants: [variant] } : {});
    const token = embeddedProfile(fake).credentials.find((c) => c.surfaces.includes('mcp') && !c.expired)!.token;
    return new Peer(fake, token);
  }

  async send(method: string, body: string | undefined, headers: Record<string, string> = {}): Promise<Reply> {
    const res = await fetch(new URL('/mcp', this.fake.baseUrl), {
      method,
      headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/json', accept: ACCEPT, ...headers },
      ...(body === undefined ? {} : { body }),
    });
    const text = await res.text();
    const parsed = parseJson(text);
    return { status: res.status, headers: res.headers, text, json: parsed.ok ? parsed.value : undefined };
  }

  post(body: unknown, headers: Record<string, string> = {}): Promise<Reply> {
    return this.send('POST', typeof body === 'string' ? body : JSON.stringify(body), headers);
  }

  /** A session, initialized unless asked not to; its id and the answer to initialize. */
  async session(initialized = true): Promise<{ id: string; init: Reply }> {
    const init = await this.post(INIT);
    const id = init.headers.get(SESSION_HEADER)!;
    if (initialized) await this.post({ jsonrpc: '2.0', method: 'notifications/initialized' }, { [SESSION_HEADER]: id });
    return { id, init };
  }
}

const peers: Peer[] = [];
async function peer(variant?: VariantId): Promise<Peer> {
  const p = await Peer.start(variant);
  peers.push(p);
  return p;
}
afterAll(async () => {
  for (const p of peers) await p.fake.close();
});

const call = (id: number | string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' } } });
const sseMessages = (text: string) => parseEventStreamBody(text).events.map((e) => ({ id: e.id, event: e.event, message: JSON.parse(e.data) as Record<string, unknown> }));

describe.concurrent('each /mcp variant takes its other choice', () => {
  it('mcp.lifecycle/extra-properties and other-capabilities change the InitializeResult', async () => {
    const plain = (await (await peer()).session()).init.json as { result: Record<string, unknown> };
    const extra = (await (await peer('mcp.lifecycle/extra-properties')).session()).init.json as { result: Record<string, unknown> };
    const other = (await (await peer('mcp.lifecycle/other-capabilities')).session()).init.json as { result: Record<string, unknown> };
    expect(plain.result).not.toHaveProperty('_meta');
    expect(extra.result).toHaveProperty('_meta');
    expect(extra.result.capabilities).toHaveProperty('experimental');
    expect(Object.keys(extra.result.serverInfo as object).length).toBeGreaterThan(2);
    expect(Object.keys(other.result.capabilities as object).sort()).toEqual(['logging', 'prompts', 'resources', 'tools']);
    expect(other.result).not.toHaveProperty('instructions');
  });

  it('mcp.lifecycle/other-capabilities serves the methods it declares', async () => {
    const p = await peer('mcp.lifecycle/other-capabilities');
    const { id } = await p.session();
    const res = await p.post({ jsonrpc: '2.0', id: 1, method: 'resources/list' }, { [SESSION_HEADER]: id });
    expect(res.json).toEqual({ jsonrpc: '2.0', id: 1, result: { resources: [] } });
  });

  it('mcp.lifecycle/unknown-version-error answers an unknown version with -32602', async () => {
    const p = await peer('mcp.lifecycle/unknown-version-error');
    const res = await p.post({ ...INIT, params: { ...INIT.params, protocolVersion: '1999-12-31' } });
    expect(res.json).toMatchObject({ id: 0, error: { code: INVALID_PARAMS, data: { supported: ['2025-03-26'], requested: '1999-12-31' } } });
  });

  it('mcp.lifecycle/initialized-required refuses tools/list before notifications/initialized, never ping', async () => {
    const p = await peer('mcp.lifecycle/initialized-required');
    const { id } = await p.session(false);
    const list = await p.post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { [SESSION_HEADER]: id });
    const ping = await p.post({ jsonrpc: '2.0', id: 2, method: 'ping' }, { [SESSION_HEADER]: id });
    expect(list.json).toMatchObject({ id: 1, error: { code: INVALID_REQUEST } });
    expect(ping.json).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
  });

  it('mcp.jsonrpc/extra-properties opens tool listings, results and errors', async () => {
    const p = await peer('mcp.jsonrpc/extra-properties');
    const { id } = await p.session();
    const list = (await p.post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { [SESSION_HEADER]: id })).json as { result: { _meta: unknown; tools: Array<Record<string, unknown>> } };
    const error = (await p.post({ jsonrpc: '2.0', id: 2, method: 'no/such' }, { [SESSION_HEADER]: id })).json as { error: { data?: unknown } };
    expect(list.result._meta).toBeDefined();
    expect(list.result.tools[0]).toHaveProperty('annotations');
    expect(error.error.data).toBeDefined();
  });

  it('mcp.jsonrpc/invalid-id-null and the malformed-input statuses', async () => {
    const invalid = { id: 'kept', method: 'ping' };
    const plain = await peer();
    const plainSession = (await plain.session()).id;
    expect((await plain.post(invalid, { [SESSION_HEADER]: plainSession })).json).toMatchObject({ id: 'kept' });
    const nulled = await peer('mcp.jsonrpc/invalid-id-null');
    expect((await nulled.post(invalid, { [SESSION_HEADER]: (await nulled.session()).id })).json).toMatchObject({ id: null, error: { code: INVALID_REQUEST } });
    for (const [variant, status] of [['mcp.jsonrpc/malformed-answered-200', 200], ['mcp.jsonrpc/malformed-answered-422', 422], [undefined, 400]] as const) {
      const p = await peer(variant);
      const { id } = await p.session();
      const parse = await p.post('not json', { [SESSION_HEADER]: id });
      const empty = await p.post([], { [SESSION_HEADER]: id });
      expect([parse.status, empty.status], String(variant)).toEqual([status, status]);
      expect(parse.json).toMatchObject({ id: null, error: { code: PARSE_ERROR } });
    }
  });

  it('mcp.batch/answers-reversed reverses the array', async () => {
    const p = await peer('mcp.batch/answers-reversed');
    const { id } = await p.session();
    const res = await p.post([{ jsonrpc: '2.0', id: 'a', method: 'ping' }, { jsonrpc: '2.0', id: 'b', method: 'ping' }], { [SESSION_HEADER]: id });
    expect((res.json as Array<{ id: string }>).map((m) => m.id)).toEqual(['b', 'a']);
  });

  it('mcp.session id formats: JWT-shaped and punctuation-rich, both visible ASCII', async () => {
    const jwt = (await (await peer('mcp.session/jwt-ids')).session()).id;
    expect(jwt.split('.')).toHaveLength(3);
    expect(jwt.length).toBeGreaterThan(200);
    const p = await peer('mcp.session/punctuation-ids');
    const { id } = await p.session();
    expect(id.length).toBe(600);
    expect(id).toMatch(VISIBLE_ASCII);
    for (const c of ['"', '\\', ',', ';', '~', '!']) expect(id).toContain(c);
    // The id is usable as sent.
    expect((await p.post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { [SESSION_HEADER]: id })).status).toBe(200);
  });

  it('mcp.session/id-on-every-response and delete-405', async () => {
    const p = await peer('mcp.session/id-on-every-response');
    const { id } = await p.session();
    expect((await p.post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { [SESSION_HEADER]: id })).headers.get(SESSION_HEADER)).toBe(id);
    const d = await peer('mcp.session/delete-405');
    const s = await d.session();
    expect((await d.send('DELETE', undefined, { [SESSION_HEADER]: s.id })).status).toBe(405);
    expect((await d.post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { [SESSION_HEADER]: s.id })).status).toBe(200);
  });

  it('mcp.transport media type checks: 406/415, or 400 throughout (a foreign Origin too)', async () => {
    const cases = [
      ['mcp.transport/media-types-checked', 406, 415, 403],
      ['mcp.transport/refusals-400', 400, 400, 400],
      [undefined, 200, 200, 403],
    ] as const;
    for (const [variant, accept, type, origin] of cases) {
      const p = await peer(variant);
      const { id } = await p.session();
      const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
      expect((await p.post(ping, { [SESSION_HEADER]: id, accept: 'application/json' })).status, `${variant} Accept`).toBe(accept);
      expect((await p.post(ping, { [SESSION_HEADER]: id, 'content-type': 'text/plain' })).status, `${variant} Content-Type`).toBe(type);
      expect((await p.post(ping, { [SESSION_HEADER]: id, origin: 'https://apicert-probe.invalid' })).status, `${variant} Origin`).toBe(origin);
    }
  });

  it('mcp.transport/unaccepted-input-refused refuses a stray response with an error without id, never notifications/initialized', async () => {
    const p = await peer('mcp.transport/unaccepted-input-refused');
    const { id } = await p.session(false);
    const stray = await p.post({ jsonrpc: '2.0', id: 'never-sent', result: {} }, { [SESSION_HEADER]: id });
    expect(stray.status).toBe(400);
    expect(stray.json).not.toHaveProperty('id');
    expect((await p.post({ jsonrpc: '2.0', method: 'notifications/initialized' }, { [SESSION_HEADER]: id })).status).toBe(202);
  });

  it('mcp.transport/media-type-parameters spells media types with capitals and a charset', async () => {
    const p = await peer('mcp.transport/media-type-parameters');
    const { id, init } = await p.session();
    expect(init.headers.get('content-type')).toBe('Application/JSON; charset=utf-8');
    expect((await p.post(call(1), { [SESSION_HEADER]: id })).headers.get('content-type')).toBe('Text/Event-Stream; charset=utf-8');
  });

  it('mcp.sse/opaque-event-ids and server-messages-first change what a stream carries', async () => {
    const o = await peer('mcp.sse/opaque-event-ids');
    const os = await o.session();
    const events = sseMessages((await o.post(call(1), { [SESSION_HEADER]: os.id })).text);
    expect(events[0]!.id).toMatch(/^[0-9a-f-]{36}\/1$/);
    expect(events[0]!.event).toBeUndefined();
    const s = await peer('mcp.sse/server-messages-first');
    const ss = await s.session();
    const first = sseMessages((await s.post(call(0), { [SESSION_HEADER]: ss.id })).text).map((e) => e.message);
    expect(first.map((m) => m.method ?? 'response')).toEqual(['notifications/message', 'ping', 'response']);
    // The server's own request may carry the id a client uses: only the response has no method.
    expect(first[1]!.id).toBe(0);
    expect(first[2]).toMatchObject({ id: 0, result: expect.any(Object) });
  });

  it('mcp.sse/batched-events streams initialize and sends a batch\'s responses as one event', async () => {
    const p = await peer('mcp.sse/batched-events');
    const { id, init } = await p.session();
    expect(init.headers.get('content-type')).toBe('text/event-stream');
    expect(id).toBeTruthy();
    const batch = await p.post([{ jsonrpc: '2.0', id: 'a', method: 'ping' }, { jsonrpc: '2.0', id: 'b', method: 'tools/list' }], { [SESSION_HEADER]: id });
    const events = parseEventStreamBody(batch.text).events;
    expect(events).toHaveLength(1);
    expect((JSON.parse(events[0]!.data) as Array<{ id: string }>).map((m) => m.id)).toEqual(['a', 'b']);
  });

  it('mcp.jsonrpc/repeated-id-refused refuses an id used before, by value and type', async () => {
    const p = await peer('mcp.jsonrpc/repeated-id-refused');
    const { id } = await p.session();
    const ping = (rid: number | string) => p.post({ jsonrpc: '2.0', id: rid, method: 'ping' }, { [SESSION_HEADER]: id });
    expect((await ping(7)).json).toMatchObject({ id: 7, result: {} });
    expect((await ping('7')).json).toMatchObject({ id: '7', result: {} });
    expect((await ping(7)).json).toMatchObject({ id: 7, error: { code: INVALID_REQUEST } });
  });

  it('mcp.session/plain-refusals refuses with text/plain', async () => {
    const p = await peer('mcp.session/plain-refusals');
    const res = await p.post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { [SESSION_HEADER]: 'never-issued' });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(res.json).toBeUndefined();
  });

  it('mcp.jsonrpc/errors-without-id leaves id out of errors that answer no identifiable request', async () => {
    const p = await peer('mcp.jsonrpc/errors-without-id');
    const { id } = await p.session();
    for (const body of ['not json', '[]', '42']) {
      const res = await p.post(body, { [SESSION_HEADER]: id });
      expect(res.json, body).toHaveProperty('error');
      expect(res.json, body).not.toHaveProperty('id');
    }
    // An invalid request whose id could be read still carries it.
    expect((await p.post({ id: 'kept', method: 'ping' }, { [SESSION_HEADER]: id })).json).toMatchObject({ id: 'kept' });
  });
});
