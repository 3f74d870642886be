/**
 * The first probe of an MCP-only run asks the MCP endpoint: a deployment (or an edge in front of it)
 * may serve /mcp alone and reset every other path. The MCP audit on the official SDK (F2): the first
 * probe went to /v8, was reset, and every one of the 42 /mcp rules ended inconclusive.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseProfile } from '../../src/profile/load.ts';
import { certify } from '../../src/runner/certify.ts';

describe('the first probe of an MCP-only run', () => {
  let server: Server;
  const seen: string[] = [];
  let target = '';

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      // Only the mounted MCP endpoint is served; every other path is reset, as an edge routing /mcp alone does.
      if (req.url !== '/tenant-a/mcp') return req.socket.destroy();
      req.resume();
      req.on('end', () => {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    target = `http://127.0.0.1:${(server.address() as AddressInfo).port}/tenant-a/mcp`;
  });

  afterAll(() => server.close());

  it('POSTs to the profile\'s MCP endpoint, so a deployment serving /mcp alone is not taken for one that is down', async () => {
    const profile = parseProfile({ target, credentials: [], safety: { requestTimeoutMs: 2_000 } }, 'mcp-only profile');
    const { results } = await certify({ profile, surfaces: ['mcp'], patterns: ['mcp.transport.get-405'], seed: 3 });
    // Old code: GET /v8/missions/... was reset, and the rule was "not run: the first probe failed".
    expect(seen[0]).toBe('POST /tenant-a/mcp');
    expect(results.map((r) => r.reason ?? '').join('\n')).not.toMatch(/first probe/);
  }, 60_000);
});
