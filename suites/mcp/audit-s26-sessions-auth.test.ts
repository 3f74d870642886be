/**
 * The /mcp audit on the official SDK (session s26): sessions the server ends, and tokens inside a
 * session. MCP 2025-03-26, Session Management: "The server MAY terminate the session at any time,
 * after which it MUST respond to requests containing that session ID with HTTP 404 Not Found."
 * Gateway, Authentication: "A missing or expired token gives `401`."
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SESSION_HEADER } from '../../src/contract/mcp/transport.ts';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { startFake, type RunningFake } from '../../src/fake/server.ts';
import { certify } from '../../src/runner/certify.ts';
import { modelProxy, type ModelProxy } from '../harness/model-proxy.ts';
import { CLIENT_HEADERS, empty, json, operating, post, verdictOf, type Part } from './mcp-recording.ts';

let running: Array<RunningFake | ModelProxy> = [];
afterEach(async () => {
  await Promise.all(running.map((r) => r.close()));
  running = [];
});

describe('F1: catalogue messages answered 404 in a session the server ended', () => {
  it('under mcp.session/ends-early (3 requests a session) every catalogue rule passes: the 404s are unjudged and the cases go again in a new session', async () => {
    const { results, variantsTaken } = await certify({ variants: ['mcp.session/ends-early'], patterns: ['mcp.catalogue.*'], seed: 26 });
    expect(variantsTaken).toEqual(['mcp.session/ends-early']);
    expect(results.map((r) => [r.rule.id, r.verdict, r.verdict === 'pass' ? '' : r.reason])).toEqual(results.map((r) => [r.rule.id, 'pass', '']));
  }, 60_000);
});

describe('F3: a missing or expired token on a request in a live session', () => {
  it('fails mcp.auth.expired-401 on a fake that checks the token only where no live session id comes, for the expired token and for none', async () => {
    const { results } = await certify({ faults: ['mcp.auth.expired-401/session-skips-auth'], patterns: ['mcp.auth.expired-401'], seed: 26 });
    const rule = results.find((r) => r.rule.id === 'mcp.auth.expired-401');
    expect(rule?.verdict, rule?.reason).toBe('fail');
    const failing = (rule?.cases ?? []).map((c) => c.reason).join('\n');
    expect(failing).toMatch(/with an expired token in a session the server opened was answered HTTP 200/);
    expect(failing).toMatch(/without a token in a session the server opened was answered HTTP 200/);
  }, 60_000);

  it('judges a ping without a token in a session from a recording, even where the profile names no expired token', async () => {
    const bare = { ...CLIENT_HEADERS } as Record<string, string>;
    delete bare.authorization;
    const noToken = (body: unknown, session: string | undefined): Part => ({ method: 'POST', requestHeaders: { ...bare, ...(session === undefined ? {} : { [SESSION_HEADER]: session }) }, requestBody: JSON.stringify(body) });
    const init = { jsonrpc: '2.0', id: 'i0', method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'c', version: '1' } } };
    const refused = { ...noToken(init, undefined), ...json(401, { jsonrpc: '2.0', error: { code: -32000, message: 'token required' } }, { 'www-authenticate': 'Bearer' }) };
    const ping = { jsonrpc: '2.0', id: 'p1', method: 'ping' };
    const served = { ...noToken(ping, 'session-a'), ...json(200, { jsonrpc: '2.0', id: 'p1', result: {} }) };
    expect(await verdictOf([refused, ...operating('session-a'), served], 'mcp.auth.expired-401')).toBe('fail');
    const held = { ...noToken(ping, 'session-a'), ...json(401, { jsonrpc: '2.0', error: { code: -32000, message: 'token required' } }, { 'www-authenticate': 'Bearer' }) };
    // Held to 401, the missing token passes; the expired one is still the profile's to name.
    expect(await verdictOf([refused, ...operating('session-a'), held], 'mcp.auth.expired-401')).toBe('untestable');
    expect(await verdictOf([refused, ...operating('session-a'), { ...post(ping, 'session-a'), ...empty(202) }], 'mcp.auth.expired-401')).toBe('untestable');
  });
});

/**
 * A deployment that ends the first session it issues after serving `served` requests in it (an idle
 * timeout, an eviction): every later request carrying that session's id is answered 404, as MCP
 * orders; later sessions are served.
 */
async function endsFirstSession(served: number): Promise<{ target: string; fake: RunningFake }> {
  const fake = await startFake();
  let first: string | undefined;
  let left = served;
  const proxy = await modelProxy(fake.baseUrl, async (req, up) => {
    if (!req.path.startsWith('/mcp')) return undefined;
    const carried = req.headers[SESSION_HEADER];
    if (first !== undefined && carried === first && left-- <= 0) return { answer: { status: 404, json: { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' } } } };
    if (first !== undefined || req.method !== 'POST' || carried !== undefined || !req.body.toString().includes('"initialize"')) return undefined;
    const answer = await up(req.method, req.path, req.headers, req.body);
    const issued = answer.headers[SESSION_HEADER];
    if (typeof issued === 'string') first = issued;
    const headers: Record<string, string> = {};
    for (const name of ['content-type', SESSION_HEADER, 'www-authenticate']) {
      const value = answer.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    return { answer: { status: answer.status, headers, body: answer.body.toString('utf8') } };
  });
  running.push(proxy, fake);
  return { target: proxy.url, fake };
}

describe('F4: a rule whose fresh session the server ends before serving it', () => {
  const cases: Array<[string, number]> = [
    ['mcp.transport.request-response', 0],
    ['mcp.transport.get-405', 0],
    ['mcp.transport.accepted-202', 0],
    ['mcp.session.delete-terminates', 0],
    ['mcp.batch.notifications-202', 0],
    // Ended once notifications/initialized was taken: the rule's own first request gets the 404.
    ['mcp.transport.request-response', 1],
    ['mcp.session.delete-terminates', 1],
  ];
  for (const [rule, served] of cases) {
    it(`${rule} (the first session ended after ${served} request(s) in it) opens a new session once and passes`, async () => {
      const { target, fake } = await endsFirstSession(served);
      const { results } = await certify({ profile: { ...embeddedProfile(fake), target }, patterns: [rule], seed: 26 });
      const result = results.find((r) => r.rule.id === rule);
      expect(result?.verdict, result?.reason).toBe('pass');
    }, 30_000);
  }
});
