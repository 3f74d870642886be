/**
 * Legal /mcp answers the rules once failed (the /mcp rule audit), each as a hand-made recording
 * judged passively: the legal choice passes (or leaves the rule nothing to judge), and the answer
 * the rule exists to catch still fails on the same kind of traffic.
 */
import { describe, expect, it } from 'vitest';
import { empty, initialize, json, OTHER_TOKEN, operating, plain, post, TOKEN, verdictOf, verdicts, type Part } from './mcp-recording.ts';

const S = 'session-a';
const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
const ping = (id: string) => ({ jsonrpc: '2.0', id, method: 'ping' });
const pong = (id: string) => ({ jsonrpc: '2.0', id, result: {} });
const error = (id: string | null, code: number) => ({ jsonrpc: '2.0', id, error: { code, message: 'refused' } });
const del = (session: string, status: number): Part => ({ method: 'DELETE', requestHeaders: { authorization: `Bearer ${TOKEN}`, 'mcp-session-id': session }, status, responseHeaders: {}, responseBody: '' });
/** A session opened but not yet initialized (notifications/initialized not sent). */
const opened = (session: string, capabilities?: Record<string, unknown>) => initialize(`init-${session}`, session, capabilities);

describe('mcp.transport.accepted-202: only notifications sent as clients must, in an open session', () => {
  it('a 404 after DELETE, a 400 without a session id and a 406 for a bad Accept may stand', async () => {
    const parts: Part[] = [
      ...opened(S),
      { ...post(initialized, S), ...empty(202) },
      { ...post(initialized, S, { accept: 'application/json' }), ...plain(406, 'Not Acceptable') },
      { ...post(initialized, undefined), ...plain(400, 'Bad Request: no session id') },
      del(S, 204),
      { ...post(initialized, S), ...plain(404, 'Session not found') },
    ];
    expect(await verdictOf(parts, 'mcp.transport.accepted-202')).toBe('pass');
  });

  it('notifications/initialized answered 200 in an open session still fails', async () => {
    expect(await verdictOf([...opened(S), { ...post(initialized, S), ...json(200, { jsonrpc: '2.0', result: {} }) }], 'mcp.transport.accepted-202')).toBe('fail');
  });
});

describe('input the server cannot accept: "it MUST return an HTTP error status code", a 5xx as much as a 4xx', () => {
  const cancelled = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'never-sent', reason: 'gone' } };

  const refusedWith = async (status: number) => {
    const parts: Part[] = [...operating(S), { ...post(cancelled, S), ...plain(status, 'cannot accept') }, { ...post([cancelled], S), ...plain(status, 'cannot accept') }, { ...post([], S), ...plain(status, 'cannot accept') }];
    const out = await verdicts(parts, ['mcp.transport.accepted-202', 'mcp.batch.notifications-202', 'mcp.batch.empty']);
    return Object.entries(out).map(([id, v]) => `${id}: ${v.verdict}`);
  };

  it.each([500, 503])('notifications/cancelled alone, or in a batch, or an empty batch, refused %i is judged as a 400 refusal is: not failed', async (status) => {
    // The 400 refusal is the reference: observed, so only the session's own notifications/initialized (202) is judged, and the batch rule has nothing else.
    expect(await refusedWith(400)).toEqual(['mcp.transport.accepted-202: pass', 'mcp.batch.notifications-202: not-applicable', 'mcp.batch.empty: pass']);
    expect(await refusedWith(status)).toEqual(await refusedWith(400));
  });

  it('a 2xx other than 202 still fails, and so does notifications/initialized refused with a 5xx', async () => {
    expect(await verdictOf([...operating(S), { ...post(cancelled, S), ...empty(200) }], 'mcp.transport.accepted-202')).toBe('fail');
    expect(await verdictOf([...opened(S), { ...post(initialized, S), ...plain(500, 'cannot accept') }], 'mcp.transport.accepted-202')).toBe('fail');
    expect(await verdictOf([...opened(S), { ...post([initialized], S), ...plain(500, 'cannot accept') }], 'mcp.batch.notifications-202')).toBe('fail');
  });
});

describe('mcp.jsonrpc parse-error, invalid-request, invalid-params and mcp.batch.empty: refusals of the transport come first', () => {
  const rules = ['mcp.jsonrpc.parse-error', 'mcp.jsonrpc.invalid-request', 'mcp.jsonrpc.invalid-params', 'mcp.batch.empty'];
  const bodies: unknown[] = ['this is not json', { id: 'x1', method: 'ping' }, { jsonrpc: '2.0', id: 'c1', method: 'tools/call', params: { arguments: {} } }, []];

  it('a 400 without a session id and a 406 for an Accept of JSON alone are not JSON-RPC answers owed', async () => {
    const parts: Part[] = [...operating(S)];
    for (const body of bodies) {
      parts.push({ ...post(body, undefined), ...plain(400, 'Bad Request: no session id') });
      parts.push({ ...post(body, S, { accept: 'application/json' }), ...json(406, error(null, -32000)) });
    }
    const out = await verdicts(parts, rules);
    for (const rule of rules) expect(`${rule}: ${out[rule]?.verdict}`).toBe(`${rule}: not-applicable`);
  });

  it('in an operating session the JSON-RPC code is still owed', async () => {
    const parts: Part[] = [
      ...operating(S),
      { ...post('this is not json', S), ...json(400, error(null, -32600)) },
      { ...post({ id: 'x1', method: 'ping' }, S), ...json(200, pong('x1')) },
      { ...post({ jsonrpc: '2.0', id: 'c1', method: 'tools/call', params: { arguments: {} } }, S), ...json(200, error('c1', -32603)) },
      { ...post([], S), ...json(200, []) },
    ];
    const out = await verdicts(parts, rules);
    for (const rule of rules) expect(`${rule}: ${out[rule]?.verdict}`).toBe(`${rule}: fail`);
  });
});

describe('mcp.jsonrpc.invalid-params: tools is a negotiated capability', () => {
  const nameless = { jsonrpc: '2.0', id: 'c1', method: 'tools/call', params: { arguments: {} } };

  it('a server that declared no tools may answer -32601', async () => {
    expect(await verdictOf([...operating(S, { logging: {} }), { ...post(nameless, S), ...json(200, error('c1', -32601)) }], 'mcp.jsonrpc.invalid-params')).toBe('pass');
  });

  it('a server that declared tools owes -32602', async () => {
    expect(await verdictOf([...operating(S, { tools: {} }), { ...post(nameless, S), ...json(200, error('c1', -32601)) }], 'mcp.jsonrpc.invalid-params')).toBe('fail');
  });

  it('before notifications/initialized a server may refuse the request as a whole', async () => {
    expect(await verdictOf([...opened(S), { ...post(nameless, S), ...json(200, error('c1', -32600)) }], 'mcp.jsonrpc.invalid-params')).toBe('not-applicable');
  });
});

describe('mcp.transport.request-response: an HTTP error status to a request is bound when it answers the request (audit 124 F8)', () => {
  const list = { jsonrpc: '2.0', id: 'l1', method: 'tools/list' };

  it('tools/list refused 400 text/plain in an operating session is a refusal, recorded; carrying a JSON-RPC response as text/plain it fails', async () => {
    // A refusal is not an answer the sentence frames: with nothing else sent, nothing is judged.
    expect(await verdictOf([...operating(S), { ...post(list, S), ...plain(400, 'no') }], 'mcp.transport.request-response')).toBe('not-applicable');
    expect(await verdictOf([...operating(S), { ...post(list, S), ...plain(400, JSON.stringify(error('l1', -32602))) }], 'mcp.transport.request-response')).toBe('fail');
  });

  it('outside an operating session a refusal may stand, but an answer that took the input (2xx) is still held to it', async () => {
    expect(await verdictOf([...opened(S), { ...post(list, undefined), ...plain(400, 'Bad Request: no session id') }, { ...post(ping('p0'), S), ...json(200, pong('p0')) }], 'mcp.transport.request-response')).toBe('pass');
    expect(await verdictOf([...opened(S), { ...post(ping('p0'), S), ...plain(200, 'pong') }], 'mcp.transport.request-response')).toBe('fail');
  });

  it('a 404 (the server may end a session at any time) and a JSON error with a 4xx pass', async () => {
    const parts: Part[] = [...operating(S), { ...post(ping('p1'), S), ...json(429, error('p1', -32000)) }, { ...post(list, S), ...plain(404, 'Session not found') }];
    expect(await verdictOf(parts, 'mcp.transport.request-response')).toBe('pass');
  });
});

describe('mcp.batch.requests: a batch repeating a request id is open', () => {
  it('two pings sharing an id, or reusing an id of the session, are not judged', async () => {
    const parts: Part[] = [
      ...operating(S),
      { ...post([ping('same'), ping('same')], S), ...json(200, [pong('same'), pong('same')]) },
      { ...post(ping('used'), S), ...json(200, pong('used')) },
      { ...post([ping('used'), ping('fresh-1')], S), ...json(200, [pong('fresh-1')]) },
    ];
    expect(await verdictOf(parts, 'mcp.batch.requests')).toBe('not-applicable');
  });

  it('a batch of fresh ids answered with one response still fails', async () => {
    expect(await verdictOf([...operating(S), { ...post([ping('b1'), ping('b2')], S), ...json(200, [pong('b1')]) }], 'mcp.batch.requests')).toBe('fail');
  });
});

describe('mcp.lifecycle.version-unknown: only a version no server can support', () => {
  it('a pre-release version the server supports (2024-10-07) may be echoed', async () => {
    expect(await verdictOf(initialize('i1', 's1', { tools: {} }, '2024-10-07'), 'mcp.lifecycle.version-unknown')).toBe('not-applicable');
  });

  it('1999-12-31 echoed still fails', async () => {
    expect(await verdictOf(initialize('i1', 's1', { tools: {} }, '1999-12-31'), 'mcp.lifecycle.version-unknown')).toBe('fail');
  });
});

describe('mcp.session.delete-terminates: a server without GET streams answers every GET 405', () => {
  const get = (status: number): Part => ({ method: 'GET', requestHeaders: { authorization: `Bearer ${TOKEN}`, accept: 'text/event-stream', 'mcp-session-id': S }, status, responseHeaders: { allow: 'POST, DELETE' }, responseBody: '' });

  it('GET after DELETE answered 405 passes', async () => {
    expect(await verdictOf([...operating(S), del(S, 204), get(405)], 'mcp.session.delete-terminates')).toBe('pass');
  });

  it('a ping after DELETE served 200 still fails', async () => {
    expect(await verdictOf([...operating(S), del(S, 204), { ...post(ping('p1'), S), ...json(200, pong('p1')) }], 'mcp.session.delete-terminates')).toBe('fail');
  });
});

describe('mcp.batch.empty: [] is input of no notifications, or a batch JSON-RPC refuses', () => {
  it.each([
    ['202 with no body', empty(202)],
    ['a 4xx without a body', plain(400, 'Bad Request')],
    ['a 400 JSON-RPC error', json(400, error(null, -32600))],
    ['a 200 JSON-RPC error', json(200, error(null, -32600))],
  ] as const)('%s passes', async (_what, answer) => {
    expect(await verdictOf([...operating(S), { ...post([], S), ...answer }], 'mcp.batch.empty')).toBe('pass');
  });

  it.each([
    ['202 with a body', json(202, [])],
    ['200 with an empty array', json(200, [])],
    ['200 with no body', empty(200)],
  ] as const)('%s fails', async (_what, answer) => {
    expect(await verdictOf([...operating(S), { ...post([], S), ...answer }], 'mcp.batch.empty')).toBe('fail');
  });
});

describe('mcp.batch.answer-array: JSON-RPC 2.0 "should respond with an Array"', () => {
  it('a batch of one answered with a bare object is a SHOULD failure (a warning), an array passes', async () => {
    const bare = await verdicts([...operating(S), { ...post([ping('a1')], S), ...json(200, pong('a1')) }], ['mcp.batch.answer-array']);
    expect(bare['mcp.batch.answer-array']).toEqual({ verdict: 'fail', level: 'should' });
    expect(await verdictOf([...operating(S), { ...post([ping('a1')], S), ...json(200, [pong('a1')]) }], 'mcp.batch.answer-array')).toBe('pass');
  });
});

describe('an initialize answered with an error opens no session-less connection', () => {
  it('a notifications batch refused 400 after it is not judged as in an open session', async () => {
    const asked = post({ jsonrpc: '2.0', id: 'i1', method: 'initialize', params: { protocolVersion: '1999-12-31', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }, undefined);
    const parts: Part[] = [{ ...asked, ...json(200, error('i1', -32602)) }, { ...post([initialized], undefined), ...plain(400, 'Bad Request: no session id') }];
    expect(await verdictOf(parts, 'mcp.batch.notifications-202')).toBe('not-applicable');
  });

  it('after an initialize answered with a result and no session id, the same refusal fails', async () => {
    const parts: Part[] = [...initialize('i1', undefined), { ...post([initialized], undefined), ...plain(400, 'Bad Request') }];
    expect(await verdictOf(parts, 'mcp.batch.notifications-202')).toBe('fail');
  });
});

describe('mcp.sse.event-ids-unique: without sessions, ids are unique per client', () => {
  const stream = (token: string, ids: string[]): Part => ({
    ...post(ping(`p-${token.slice(-4)}-${ids.join('')}`), undefined, { authorization: `Bearer ${token}` }),
    status: 200,
    responseHeaders: { 'content-type': 'text/event-stream' },
    events: ids.map((id, i) => ({ id, event: 'message', data: JSON.stringify(pong(`p${i}`)), atMs: i })),
    streamEnd: 'server',
  });

  it('two clients each numbering their own streams from 1 pass', async () => {
    expect(await verdictOf([...initialize('i1', undefined), stream(TOKEN, ['1', '2']), stream(OTHER_TOKEN, ['1', '2'])], 'mcp.sse.event-ids-unique')).toBe('pass');
  });

  it('one client seeing an id twice still fails', async () => {
    expect(await verdictOf([...initialize('i1', undefined), stream(TOKEN, ['1', '2']), stream(TOKEN, ['2', '3'])], 'mcp.sse.event-ids-unique')).toBe('fail');
  });
});

describe('mcp.jsonrpc.id-echoed: a response carries its request id whatever the HTTP status', () => {
  it('a JSON-RPC error sent with a 4xx under another id fails; one under the request id, or id null, passes', async () => {
    const wrong = [...operating(S), { ...post(ping('p1'), S), ...json(400, error('p2', -32600)) }];
    expect(await verdictOf(wrong, 'mcp.jsonrpc.id-echoed')).toBe('fail');
    const right = [...operating(S), { ...post(ping('p1'), S), ...json(400, error('p1', -32600)) }, { ...post(ping('p3'), S), ...json(400, error(null, -32000)) }, { ...post(ping('p4'), S), ...plain(404, 'Session not found') }];
    expect(await verdictOf(right, 'mcp.jsonrpc.id-echoed')).toBe('pass');
  });
});
