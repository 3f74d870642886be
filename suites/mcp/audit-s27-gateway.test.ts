/**
 * The /mcp audit of the official SDK inside the gateway's auth and limits (session s27): what the
 * gateway layer around the SDK gets wrong. Gateway, Authentication: "A missing or expired token
 * gives `401`", "Scheme: `Authorization: Bearer <ACCESS_TOKEN>`"; RFC 9110 15.5.2 and 15.5.6; MCP
 * 2025-03-26, Security Warning: "Servers MUST validate the Origin header".
 */
import { describe, expect, it } from 'vitest';
import { lookalikeOrigins } from '../../src/checks/mcp/transport/origin.ts';
import { judgeRecording } from '../../src/passive/judge.ts';
import { parseProfile } from '../../src/profile/load.ts';
import { certify } from '../../src/runner/certify.ts';
import { allowCase, challengeCase } from '../../src/traffic/http-fields.ts';
import { CLIENT_HEADERS, journal, json, MCP_BASE, operating, plain, post, TOKEN, verdicts, type Part } from './mcp-recording.ts';

const EXPIRED = 'mcpat_expiredcaller0123456789abcdef';
const BEARER = { name: 'Bearer', stated: 'Authentication: "Scheme: Bearer"' };

async function judged(parts: readonly Part[], rule: string): Promise<{ verdict: string; reason: string }> {
  const profile = parseProfile({ target: MCP_BASE, credentials: [{ name: 'mcp', token: TOKEN, surfaces: ['mcp'] }, { name: 'mcp-expired', token: EXPIRED, surfaces: ['mcp'], expired: true }] }, 'test profile');
  const { results } = await judgeRecording(journal(parts), { surfaces: ['mcp'], patterns: [rule], profile, env: {} });
  const r = results.find((x) => x.rule.id === rule)!;
  return { verdict: r.verdict, reason: [r.reason ?? '', ...(r.cases ?? []).map((c) => c.reason ?? '')].join('\n') };
}

const initializeBody = (id: string) => ({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'client', version: '1' } } });
const initializeResult = (id: string) => ({ jsonrpc: '2.0', id, result: { protocolVersion: '2025-03-26', capabilities: { tools: {} }, serverInfo: { name: 'server', version: '1' } } });
const { authorization: _, ...NO_TOKEN } = CLIENT_HEADERS;
const withoutToken = (body: unknown, session?: string): Part => ({ method: 'POST', requestHeaders: { ...NO_TOKEN, ...(session === undefined ? {} : { 'mcp-session-id': session }) }, requestBody: JSON.stringify(body) });
const withExpired = (id: string): Part => post(initializeBody(id), undefined, { authorization: `Bearer ${EXPIRED}` });
const unauthorized = { ...plain(401, 'Unauthorized'), responseHeaders: { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' } };

describe('F1: a gateway that serves a missing token but refuses an expired one 401 runs bearer auth', () => {
  const rule = 'mcp.auth.expired-401';

  it('fails the initialize without a token that was served, saying what showed the authentication', async () => {
    const out = await judged([{ ...withoutToken(initializeBody('i1')), ...json(200, initializeResult('i1')) }, { ...withExpired('i2'), ...unauthorized }], rule);
    expect(out.verdict).toBe('fail');
    expect(out.reason).toMatch(/without a token \(an initialize\) was answered HTTP 200, expected 401: this endpoint answers an expired token 401/);
  });

  it('still leaves an endpoint that refuses nothing 401 (no authentication at all) nothing to judge', async () => {
    const out = await judged([{ ...withoutToken(initializeBody('i1')), ...json(200, initializeResult('i1')) }, { ...withExpired('i2'), ...json(200, initializeResult('i2')) }], rule);
    expect(out.verdict).toBe('not-applicable');
  });

  it('passes a gateway refusing both 401', async () => {
    const out = await judged([{ ...withoutToken(initializeBody('i1')), ...unauthorized }, { ...withExpired('i2'), ...unauthorized }], rule);
    expect(out.verdict).toBe('pass');
  });

  it('fails the fake whose auth is optional (a missing token served) in an active run; passes the fake', async () => {
    const faulty = await certify({ faults: ['mcp.auth.expired-401/missing-token-served'], patterns: [rule], seed: 27 });
    expect(faulty.results[0]!.verdict, faulty.results[0]!.reason).toBe('fail');
    expect((faulty.results[0]!.cases ?? []).map((c) => c.reason).join('\n')).toMatch(/without a token \(an initialize\) was answered HTTP 200/);
    const clean = await certify({ patterns: [rule], seed: 27 });
    expect(clean.results[0]!.verdict, clean.results[0]!.reason).toBe('pass');
  }, 60_000);
});

describe('F8: on a server that issues no session id, expired-401 names no session', () => {
  it('says the POST came after an accepted initialize, not in a session the server opened', async () => {
    const ping = { jsonrpc: '2.0', id: 'p1', method: 'ping' };
    const out = await judged([{ ...withoutToken(initializeBody('i0')), ...unauthorized }, ...operating(undefined), { ...withoutToken(ping), ...json(200, { jsonrpc: '2.0', id: 'p1', result: {} }) }], 'mcp.auth.expired-401');
    expect(out.verdict).toBe('fail');
    expect(out.reason).toMatch(/without a token after an initialize the server accepted \(it issues no session id\) was answered HTTP 200/);
    expect(out.reason).not.toMatch(/in a session the server opened/);
  });
});

describe('F3: a 401 challenge names the Bearer scheme the gateway takes', () => {
  it.each(['Bearer', 'bearer realm="x"', 'BEARER', 'Basic realm="x", Bearer', 'Basic realm="a,b", Bearer error="invalid_token"', 'Negotiate abc==, Bearer'])('a Bearer challenge: %s', (value) => {
    expect(challengeCase(value, BEARER).ok).toBe(true);
  });
  it.each(['Basic realm="gateway"', 'Basic realm="Bearer, x"', 'Basic realm="x", Bearer="y"', 'Basic realm="x", Bearer = "y"', 'Bearerx', 'DPoP algs="ES256"'])('no Bearer challenge: %s', (value) => {
    const c = challengeCase(value, BEARER);
    expect(c.ok).toBe(false);
    expect(c.why).toMatch(/name no Bearer scheme/);
  });

  it('fails an /mcp 401 whose only challenge is Basic, from a recording', async () => {
    const basic = { ...unauthorized, responseHeaders: { 'content-type': 'text/plain', 'www-authenticate': 'Basic realm="gateway"' } };
    const out = await verdicts([{ ...withoutToken(initializeBody('i1')), ...basic }], ['mcp.auth.challenge']);
    expect(out['mcp.auth.challenge']?.verdict).toBe('fail');
  });

  it('fails the fake challenging with Basic on /mcp, /v8 and /v1', async () => {
    for (const surface of ['mcp', 'v8', 'v1'] as const) {
      const { results } = await certify({ faults: [`${surface}.auth.challenge/basic-only`], patterns: [`${surface}.auth.challenge`], seed: 27 });
      expect(results[0]!.verdict, `${surface}: ${results[0]!.reason}`).toBe('fail');
    }
  }, 60_000);
});

describe('F4: a 405 whose Allow lists the method it refuses', () => {
  it('fails Allow naming the refused method; method names are case-sensitive', () => {
    expect(allowCase('GET, POST, DELETE', 'GET').ok).toBe(false);
    expect(allowCase('GET, POST, DELETE', 'GET').why).toMatch(/lists GET, the method this answer refuses/);
    expect(allowCase('POST, DELETE', 'GET').ok).toBe(true);
    expect(allowCase('get, POST', 'GET').ok).toBe(true);
    expect(allowCase('', 'OPTIONS').ok).toBe(true);
  });

  it('fails the fake whose GET /mcp 405 lists GET', async () => {
    const { results } = await certify({ faults: ['mcp.transport.allow-on-405/lists-refused'], patterns: ['mcp.transport.allow-on-405'], seed: 27 });
    expect(results[0]!.verdict, results[0]!.reason).toBe('fail');
    expect((results[0]!.cases ?? []).map((c) => c.reason).join('\n')).toMatch(/answered GET with 405 and Allow "GET, POST, DELETE"/);
  }, 60_000);
});

describe('F5: an Origin allow-list matched by prefix', () => {
  it('derives look-alike origins from the target: its host with the reserved name appended, with and without its port', () => {
    expect(lookalikeOrigins('http://127.0.0.1:8080')).toEqual(['http://127.0.0.1.apicert-probe.invalid', 'http://127.0.0.1.apicert-probe.invalid:8080']);
    expect(lookalikeOrigins('https://gateway.example.com/base')).toEqual(['https://gateway.example.com.apicert-probe.invalid']);
    expect(lookalikeOrigins('http://[::1]:9000')).toEqual([]);
  });

  it('fails the fake that matches its allow-list by prefix, naming the look-alike origin', async () => {
    const { results } = await certify({ faults: ['mcp.transport.origin/prefix-matched'], patterns: ['mcp.transport.origin'], seed: 27 });
    expect(results[0]!.verdict, results[0]!.reason).toBe('fail');
    expect((results[0]!.cases ?? []).map((c) => c.reason).join('\n')).toMatch(/Origin: http:\/\/127\.0\.0\.1\.apicert-probe\.invalid/);
  }, 60_000);
});

describe('F7: a non-2xx HTTP error body is not a JSON-RPC response', () => {
  const malformed: Part = { ...post('{"jsonrpc": "2.0", "id": 1, "method": "ping"', 'session-a') };
  const fastify400 = json(400, { statusCode: 400, code: 'FST_ERR_CTP_INVALID_JSON', error: 'Bad Request', message: 'Body is not valid JSON' });

  it('result-xor-error leaves a framework\'s 400 body to parse-error, which fails it', async () => {
    const out = await verdicts([...operating('session-a'), { ...malformed, ...fastify400 }], ['mcp.jsonrpc.result-xor-error', 'mcp.jsonrpc.parse-error']);
    expect(out['mcp.jsonrpc.result-xor-error']?.verdict).not.toBe('fail');
    expect(out['mcp.jsonrpc.parse-error']?.verdict).toBe('fail');
  });

  it('still fails a 2xx body with an error member and no jsonrpc, and a non-2xx JSON-RPC error without code', async () => {
    const ping = { jsonrpc: '2.0', id: 'p1', method: 'ping' };
    const ok200 = await verdicts([...operating('session-a'), { ...post(ping, 'session-a'), ...json(200, { id: 'p1', error: 'nope' }) }], ['mcp.jsonrpc.result-xor-error']);
    expect(ok200['mcp.jsonrpc.result-xor-error']?.verdict).toBe('fail');
    const rpc400 = await verdicts([...operating('session-a'), { ...post(ping, 'session-a'), ...json(400, { jsonrpc: '2.0', id: 'p1', error: 'nope' }) }], ['mcp.jsonrpc.result-xor-error']);
    expect(rpc400['mcp.jsonrpc.result-xor-error']?.verdict).toBe('fail');
  });
});
