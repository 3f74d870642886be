/**
 * Sessions the server ended, and streams of a session a re-initialize opened (audit helper-113's F1,
 * F3, F9). MCP 2025-03-26, Session Management: "The server MAY terminate the session at any time,
 * after which it MUST respond to requests containing that session ID with HTTP 404 Not Found." A
 * 404 to a request of a session is then no answer the message rules judge; a 404 in a session the
 * server served again afterwards was no ending, and stays the request's answer.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { parseProfile } from '../../src/profile/load.ts';
import { certify } from '../../src/runner/certify.ts';
import { json, operating, post, verdicts, type Part } from './mcp-recording.ts';

const S = 'session-a';
const ENDED = { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' } };

const ping = (id: string | number) => ({ jsonrpc: '2.0', id, method: 'ping' });
const pong = (id: string | number) => ({ jsonrpc: '2.0', id, result: {} });
const ended = (body: unknown): Part => ({ ...post(body, S), ...json(404, ENDED) });

/** The requests the message rules pick: a batch of pings, an unknown method, a message without "jsonrpc", a ping. */
const MESSAGES = [[ping('b1'), ping('b2')], { jsonrpc: '2.0', id: 'u1', method: 'apicert/unknown' }, { id: 'x1', method: 'ping' }, ping('p1')];

const RULES = ['mcp.batch.requests', 'mcp.jsonrpc.method-not-found', 'mcp.jsonrpc.invalid-request', 'mcp.revisions.protocol-version-header'];

async function verdictsOf(parts: readonly Part[]): Promise<Record<string, string>> {
  const all = await verdicts(parts, RULES);
  return Object.fromEntries(RULES.map((r) => [r, all[r]?.verdict ?? 'missing']));
}

describe('a session the server ended (404 from one request on)', () => {
  it('the 404s are not judged as the messages’ answers: the rules find nothing in the session to judge, never fail', async () => {
    const parts = [...operating(S), { ...post(ping('p0'), S), ...json(200, pong('p0')) }, ...MESSAGES.map(ended)];
    for (const [rule, verdict] of Object.entries(await verdictsOf(parts))) expect(`${rule}: ${verdict}`).not.toMatch(/fail$/);
  });

  it('a 404 in a session the server served again afterwards was no ending: the message rules fail it', async () => {
    const parts = [...operating(S), ...MESSAGES.map(ended), { ...post(ping('p9'), S), ...json(200, pong('p9')) }];
    const got = await verdictsOf(parts);
    expect(got['mcp.batch.requests']).toBe('fail');
    expect(got['mcp.jsonrpc.method-not-found']).toBe('fail');
    expect(got['mcp.revisions.protocol-version-header']).toBe('fail');
  });

  it('another caller’s 404 for the session ends nothing', async () => {
    const other = { authorization: 'Bearer mcpat_secondcaller0123456789abcdef0' };
    const parts = [...operating(S), { ...post(ping('o1'), S, other), ...json(404, ENDED) }, { ...post({ jsonrpc: '2.0', id: 'u1', method: 'apicert/unknown' }, S), ...json(200, pong('u1')) }];
    expect((await verdicts(parts, ['mcp.jsonrpc.method-not-found']))['mcp.jsonrpc.method-not-found']?.verdict).toBe('fail');
  });
});

describe('mcp.revisions.protocol-version-header picks pings whose answer could show the header’s effect', () => {
  it('a ping with a 10,000-character id refused with -32600 is not judged; an ordinary one still is', async () => {
    const long = `apicert-${'i'.repeat(10_000)}`;
    const refused = { jsonrpc: '2.0', id: long, error: { code: -32600, message: 'id too long' } };
    const parts = [...operating(S), { ...post(ping(long), S), ...json(400, refused) }, { ...post(ping(7), S), ...json(200, pong(7)) }];
    expect((await verdicts(parts, ['mcp.revisions.protocol-version-header']))['mcp.revisions.protocol-version-header']?.verdict).toBe('pass');
  });
});

describe('mcp.sse.event-ids-unique: a re-initialize answered with a new Mcp-Session-Id', () => {
  const stream = (messages: unknown[], first: number, headers: Record<string, string> = {}): Part => ({
    method: 'POST',
    status: 200,
    responseHeaders: { 'content-type': 'text/event-stream', ...headers },
    responseBody: messages.map((m, i) => `id: ${first + i}\nevent: message\ndata: ${JSON.stringify(m)}\n\n`).join(''),
  });
  const reinit = { jsonrpc: '2.0', id: 'r1', method: 'initialize', params: { protocolVersion: 123, capabilities: {}, clientInfo: { name: 'c', version: '1' } } };
  const reinitResult = { jsonrpc: '2.0', id: 'r1', result: { protocolVersion: '2025-03-26', capabilities: {}, serverInfo: { name: 's', version: '1' } } };

  it('its stream’s event ids belong to the new session: ids the old session used do not repeat there', async () => {
    const parts = [...operating(S), { ...post(ping('p1'), S), ...stream([pong('p1')], 1) }, { ...post(reinit, S), ...stream([reinitResult], 1, { 'mcp-session-id': 'session-b' }) }];
    expect((await verdicts(parts, ['mcp.sse.event-ids-unique']))['mcp.sse.event-ids-unique']?.verdict).toBe('pass');
  });

  it('an id used twice within the new session still fails', async () => {
    const parts = [...operating(S), { ...post(reinit, S), ...stream([reinitResult], 1, { 'mcp-session-id': 'session-b' }) }, { ...post(ping('p2'), 'session-b'), ...stream([pong('p2')], 1) }];
    expect((await verdicts(parts, ['mcp.sse.event-ids-unique']))['mcp.sse.event-ids-unique']?.verdict).toBe('fail');
  });
});

describe('mcp.sse.event-ids-unique under mcp.lifecycle/reinitialize-new-session (the deep catalogue re-initializes in a session)', () => {
  it('passes: the new session counts its event ids from 1', async () => {
    const { results, variantsTaken } = await certify({ variants: ['mcp.lifecycle/reinitialize-new-session'], patterns: ['mcp.catalogue.accepts-valid', 'mcp.sse.event-ids-unique'], depth: 'deep', seed: 7 });
    expect(variantsTaken).toEqual(['mcp.lifecycle/reinitialize-new-session']);
    const rule = results.find((r) => r.rule.id === 'mcp.sse.event-ids-unique');
    expect(rule?.verdict, rule?.reason).toBe('pass');
  }, 120_000);
});

/** A server that requires sessions and breaks their setup: `no-sid` issues none (then refuses every request 400), `202` answers every POST 202. */
async function brokenSetup(mode: 'no-sid' | '202', run: (target: string) => Promise<void>): Promise<void> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (mode === '202' || req.method !== 'POST') return void res.writeHead(mode === '202' ? 202 : 405, mode === '202' ? {} : { allow: 'POST' }).end();
      const message = JSON.parse(body || 'null') as { id?: unknown; method?: string } | null;
      const answer = message?.method === 'initialize'
        ? { jsonrpc: '2.0', id: message.id, result: { protocolVersion: '2025-03-26', capabilities: {}, serverInfo: { name: 'broken', version: '1' } } }
        : { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: no session' } };
      res.writeHead(message?.method === 'initialize' ? 200 : 400, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await run(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

function profileFor(target: string) {
  return parseProfile({ target, credentials: [{ name: 'mcp', token: 'mcpat_setupcaller0123456789abcdef', surfaces: ['mcp'] }], fixtures: { mcp: { requiresSession: true } } }, 'test profile');
}

describe('a session setup that fails (audit helper-113 F10, F11)', () => {
  it('the rule’s judgement still decides the setup’s exchanges: a failure there fails the rule; else the run’s exchanges decide, saying the setup failed', async () => {
    await brokenSetup('no-sid', async (target) => {
      const { results } = await certify({ profile: profileFor(target), patterns: ['mcp.session.delete-terminates', 'mcp.jsonrpc.id-echoed'], seed: 3 });
      const byId = Object.fromEntries(results.map((r) => [r.rule.id, r]));
      expect(byId['mcp.session.delete-terminates']?.verdict, byId['mcp.session.delete-terminates']?.reason).toBe('fail');
      expect(byId['mcp.session.delete-terminates']?.reason).toContain('assigned no Mcp-Session-Id');
      // Its own check sent none of the requests it is about; the run's other exchanges gave it cases, all held: a pass over them, as judge-traffic of the run's recording says (audit s27 /mcp F2).
      expect(byId['mcp.jsonrpc.id-echoed']?.verdict).toBe('pass');
      expect(byId['mcp.jsonrpc.id-echoed']?.reason).toMatch(/^judged over every exchange of the run \(its own check ended inconclusive: setup failed: .*found no failure, but the requests it is about were never sent.*\): \d+ exchange\(s\) of the run judged, every case held$/);
    });
  }, 60_000);

  it('asks for a credential /mcp accepts only when initialize was refused 401 or 403', async () => {
    await brokenSetup('202', async (target) => {
      const { results } = await certify({ profile: profileFor(target), patterns: ['mcp.jsonrpc.method-not-found'], seed: 3 });
      expect(results[0]?.verdict).toBe('inconclusive');
      expect(results[0]?.reason).toContain('setup failed: initialize answered HTTP 202');
      expect(results[0]?.reason).not.toContain('credential');
    });
  }, 60_000);
});
