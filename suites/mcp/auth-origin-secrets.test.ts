/**
 * Three /mcp bugs an independent server showed apicert missed (audit helper-113, F5-F7): a token
 * echoed in an /mcp answer when only /mcp is certified, a DELETE from a foreign Origin that is
 * served, and an expired token /mcp accepts where it refuses a missing one with 401.
 */
import { describe, expect, it } from 'vitest';
import { judgeRecording } from '../../src/passive/judge.ts';
import { parseProfile } from '../../src/profile/load.ts';
import { certify } from '../../src/runner/certify.ts';
import { json, journal, MCP_BASE, plain, post, TOKEN, type Part } from './mcp-recording.ts';

const EXPIRED = 'mcpat_expiredcaller0123456789abcdef';

function profile(target = MCP_BASE, expired = true) {
  const credentials = [{ name: 'mcp', token: TOKEN, surfaces: ['mcp'] }, ...(expired ? [{ name: 'mcp-expired', token: EXPIRED, surfaces: ['mcp'], expired: true }] : [])];
  return parseProfile({ target, credentials }, 'test profile');
}

async function verdictsOf(parts: readonly Part[], patterns: string[], options: { target?: string; path?: string; expired?: boolean } = {}) {
  const exchanges = journal(parts).map((ex) => (options.path === undefined ? ex : { ...ex, path: options.path, url: `${MCP_BASE}${options.path}` }));
  const { results } = await judgeRecording(exchanges, { patterns, profile: profile(options.target, options.expired), env: {} });
  return Object.fromEntries(results.map((r) => [r.rule.id, r.verdict]));
}

const initializeBody = (id: string) => ({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'client', version: '1' } } });
const initializeResult = (id: string, name = 'server') => ({ jsonrpc: '2.0', id, result: { protocolVersion: '2025-03-26', capabilities: {}, serverInfo: { name, version: '1' } } });
const withoutToken = (id: string): Part => {
  const p = post(initializeBody(id), undefined);
  const { authorization: _, ...headers } = p.requestHeaders!;
  return { ...p, requestHeaders: headers };
};
const withExpired = (id: string): Part => post(initializeBody(id), undefined, { authorization: `Bearer ${EXPIRED}` });
const unauthorized = plain(401, 'Unauthorized');

describe('F5: mcp.redaction.run-secrets judges /mcp answers with only an mcp credential', () => {
  const leak: Part[] = [{ ...post(initializeBody('i1'), undefined), ...json(200, initializeResult('i1', `server for ${TOKEN}`), { 'mcp-session-id': 's-1' }) }];

  it('an InitializeResult echoing the caller\'s token fails the mcp rule, and only it', async () => {
    const out = await verdictsOf(leak, ['mcp.redaction.run-secrets', 'v8.redaction.run-secrets']);
    expect(out['mcp.redaction.run-secrets']).toBe('fail');
    // One echo, one failure: /v8's rule judges /v8 answers.
    expect(out['v8.redaction.run-secrets']).not.toBe('fail');
  });

  it('judges the endpoint where the profile mounts it, not only /mcp', async () => {
    expect((await verdictsOf(leak, ['mcp.redaction.run-secrets'], { target: `${MCP_BASE}/rpc`, path: '/rpc' }))['mcp.redaction.run-secrets']).toBe('fail');
  });

  it('passes an answer without the token', async () => {
    const clean: Part[] = [{ ...post(initializeBody('i1'), undefined), ...json(200, initializeResult('i1'), { 'mcp-session-id': 's-1' }) }];
    expect((await verdictsOf(clean, ['mcp.redaction.run-secrets']))['mcp.redaction.run-secrets']).toBe('pass');
  });

  it('fails an MCP-only certification of the fake that echoes the token in a 401', async () => {
    const { results } = await certify({ faults: ['mcp.redaction.run-secrets/token-in-401'], surfaces: ['mcp'], patterns: ['*.redaction.run-secrets'], seed: 5 });
    expect(results.map((r) => `${r.rule.id}: ${r.verdict}`)).toEqual(['mcp.redaction.run-secrets: fail']);
  }, 60_000);
});

describe('F6: mcp.transport.origin provokes every method, not only POST', () => {
  it('fails a DELETE from a foreign Origin that the server serves', async () => {
    const { results } = await certify({ faults: ['mcp.transport.origin/delete-unchecked'], patterns: ['mcp.transport.origin'], seed: 5 });
    expect(results[0]!.verdict).toBe('fail');
    expect(results[0]!.reason).toMatch(/DELETE with Origin: https:\/\/apicert-probe\.invalid/);
  }, 60_000);

  it('passes a server refusing GET and DELETE from a foreign Origin with 400 (a 405 or any 4xx passes)', async () => {
    const { results } = await certify({ variants: ['mcp.transport/refusals-400'], patterns: ['mcp.transport.origin'], seed: 5 });
    expect(results[0]!.verdict).toBe('pass');
  }, 60_000);
});

describe('F7: mcp.auth.expired-401 where /mcp answers a missing token 401', () => {
  const rule = 'mcp.auth.expired-401';

  it('fails an expired token served where a missing one is answered 401', async () => {
    const parts: Part[] = [{ ...withoutToken('i1'), ...unauthorized }, { ...withExpired('i2'), ...json(200, initializeResult('i2'), { 'mcp-session-id': 's-2' }) }];
    expect((await verdictsOf(parts, [rule]))[rule]).toBe('fail');
  });

  it('passes an expired token answered 401', async () => {
    const parts: Part[] = [{ ...withoutToken('i1'), ...unauthorized }, { ...withExpired('i2'), ...unauthorized }];
    expect((await verdictsOf(parts, [rule]))[rule]).toBe('pass');
  });

  it('leaves an endpoint without authentication (MCP makes it optional) nothing to judge', async () => {
    const parts: Part[] = [
      { ...withoutToken('i1'), ...json(200, initializeResult('i1'), { 'mcp-session-id': 's-1' }) },
      { ...withExpired('i2'), ...json(200, initializeResult('i2'), { 'mcp-session-id': 's-2' }) },
    ];
    expect((await verdictsOf(parts, [rule]))[rule]).toBe('not-applicable');
  });

  it('fails the fake that accepts an expired token; untestable without an expired mcp credential', async () => {
    const faulty = await certify({ faults: ['mcp.auth.expired-401/expired-accepted'], patterns: [rule], seed: 5 });
    expect(faulty.results[0]!.verdict).toBe('fail');
    const lacking = await certify({ patterns: [rule], seed: 5, adjustEmbeddedProfile: (p) => ({ ...p, credentials: p.credentials.filter((c) => !(c.surfaces.includes('mcp') && c.expired)) }) });
    expect(lacking.results[0]!.verdict).toBe('untestable');
  }, 60_000);
});
