/**
 * Event streams a recording kept only in part: the GET stream a client closed itself (MCP's
 * long-lived listening stream, which the official SDK client opens and closes), or a body the
 * recorder cut. "If present, the ID MUST be globally unique across all streams within that
 * session": an id recorded was sent, so the ids kept are judged; a stream kept with none has nothing
 * to judge, and only a stream of which nothing was kept is lacked.
 */
import { describe, expect, it } from 'vitest';
import { exchangeOfEntry } from '../../src/passive/har.ts';
import { judgeRecording } from '../../src/passive/judge.ts';
import { parseProfile } from '../../src/profile/load.ts';
import { CLIENT_HEADERS, MCP_BASE, TOKEN, operating, post, verdicts, type Part } from './mcp-recording.ts';

const RULE = 'mcp.sse.event-ids-unique';
const CLOSED = 'the client closed the connection';

/** A GET stream of session `session` the client broke off, with `body` kept of it. */
function closedGet(session: string, body: string): Part {
  return {
    method: 'GET',
    requestHeaders: { authorization: CLIENT_HEADERS.authorization, accept: 'text/event-stream', 'mcp-session-id': session },
    status: 200,
    responseHeaders: { 'content-type': 'text/event-stream' },
    responseBody: body,
    responseBodyTruncated: true,
    streamEnd: 'aborted',
    error: CLOSED,
  };
}

/** A tools/call answered with a whole SSE stream whose events carry `ids`. */
function streamedCall(session: string, id: string, ids: string[]): Part {
  const events = ids.map((eid, i) => `id: ${eid}\nevent: message\ndata: ${JSON.stringify(i === ids.length - 1 ? { jsonrpc: '2.0', id, result: { content: [] } } : { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: id, progress: i + 1 } })}\n\n`);
  return { ...post({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' } } }, session), status: 200, responseHeaders: { 'content-type': 'text/event-stream' }, responseBody: events.join('') };
}

const note = (eid: string) => `id: ${eid}\nevent: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}\n\n`;

const verdictOf = async (parts: Part[]) => (await verdicts(parts, [RULE]))[RULE]?.verdict;

describe('mcp.sse.event-ids-unique on streams kept in part', () => {
  it('a GET stream the client closed, no ids anywhere: not-applicable, as in an active run', async () => {
    expect(await verdictOf([...operating('s1'), closedGet('s1', '')])).toBe('not-applicable');
    expect(await verdictOf([...operating('s1'), closedGet('s1', ': keep-alive\n\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{}}\n\n')])).toBe('not-applicable');
  });

  it('a GET stream the client closed, its ids distinct: its prefix is judged, pass', async () => {
    expect(await verdictOf([...operating('s1'), closedGet('s1', note('g1') + note('g2'))])).toBe('pass');
  });

  it('a duplicate id within the prefix, or repeating one of another stream of the session: fail', async () => {
    expect(await verdictOf([...operating('s1'), closedGet('s1', note('g1') + note('g1'))])).toBe('fail');
    expect(await verdictOf([...operating('s1'), streamedCall('s1', 'c1', ['e1', 'e2']), closedGet('s1', note('e2'))])).toBe('fail');
  });

  it('a last event cut short is no event: an id line left without its event is not a duplicate', async () => {
    expect(await verdictOf([...operating('s1'), closedGet('s1', `${note('g1')}id: g1\nevent: mess`)])).toBe('pass');
  });

  it('a GET stream of which nothing was kept: untestable, naming it', async () => {
    const dropped: Part = { ...closedGet('s1', ''), responseBody: undefined, responseBodyTruncated: undefined, responseBodyMissing: `the client aborted the stream (${CLOSED}) and the recorder kept none of its body` };
    expect(await verdictOf([...operating('s1'), dropped])).toBe('untestable');
  });

  it("the proxy's HAR of the SDK client's closed GET stream (empty, with _error): not-applicable", async () => {
    const entry = (method: string, body: unknown, status: number, answer: string, type: string, error?: string) => ({
      startedDateTime: '2025-01-01T00:00:00.000Z',
      time: 5,
      request: {
        method,
        url: `${MCP_BASE}/mcp`,
        httpVersion: 'HTTP/1.1',
        cookies: [],
        headers: [
          { name: 'authorization', value: `Bearer ${TOKEN}` },
          { name: 'accept', value: method === 'GET' ? 'text/event-stream' : 'application/json, text/event-stream' },
          ...(method === 'POST' ? [{ name: 'content-type', value: 'application/json' }] : []),
          ...(method === 'GET' ? [{ name: 'mcp-session-id', value: 's1' }] : []),
        ],
        queryString: [],
        headersSize: -1,
        bodySize: body === undefined ? 0 : JSON.stringify(body).length,
        ...(body === undefined ? {} : { postData: { mimeType: 'application/json', text: JSON.stringify(body) } }),
      },
      response: {
        status,
        statusText: '',
        httpVersion: 'HTTP/1.1',
        cookies: [],
        headers: [{ name: 'content-type', value: type }, ...(method === 'POST' ? [{ name: 'mcp-session-id', value: 's1' }] : [])],
        content: { size: answer.length, mimeType: type, text: answer },
        redirectURL: '',
        headersSize: -1,
        bodySize: answer.length,
        ...(error === undefined ? {} : { _error: error }),
      },
      cache: {},
      timings: { send: 0, wait: 5, receive: 0 },
    });
    const init = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'c', version: '1' } } };
    const result = JSON.stringify({ jsonrpc: '2.0', id: 0, result: { protocolVersion: '2025-03-26', capabilities: {}, serverInfo: { name: 's', version: '1' } } });
    const entries = [entry('POST', init, 200, result, 'application/json'), entry('GET', undefined, 200, '', 'text/event-stream', CLOSED)];
    const exchanges = entries.map((e, i) => exchangeOfEntry(e, i)!);
    expect(exchanges[1]).toMatchObject({ streamEnd: 'aborted', responseBody: '' });
    const profile = parseProfile({ target: MCP_BASE, credentials: [{ name: 'mcp', token: TOKEN, surfaces: ['mcp'] }] }, 'test profile');
    const { results } = await judgeRecording(exchanges, { surfaces: ['mcp'], patterns: [RULE], profile, env: {} });
    expect(results.map((r) => `${r.rule.id}: ${r.verdict}`)).toEqual([`${RULE}: not-applicable`]);
  });

  it('mcp.batch.empty reads a whole stream: one broken off is lacked, never read as an empty array', async () => {
    const rule = 'mcp.batch.empty';
    const broken: Part = { ...post([], 's1'), status: 200, responseHeaders: { 'content-type': 'text/event-stream' }, responseBody: '', responseBodyTruncated: true, streamEnd: 'aborted', error: CLOSED };
    expect((await verdicts([...operating('s1'), broken], [rule]))[rule]?.verdict).toBe('untestable');
  });
});
