import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCP_REVISION } from '../../src/contract/mcp/lifecycle.ts';
import { SESSION_HEADER, VISIBLE_ASCII } from '../../src/contract/mcp/transport.ts';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { startFake, type RunningFake } from '../../src/fake/server.ts';

// The official TypeScript SDK client against the fake's /mcp: if a real client cannot use it, the
// rules certify a fake nobody could talk to.
describe('the official MCP SDK client against the fake /mcp', () => {
  let fake: RunningFake;
  let token: string;
  const offered: string[] = [];

  beforeAll(async () => {
    fake = await startFake();
    const credential = embeddedProfile(fake).credentials.find((c) => c.surfaces.includes('mcp') && !c.expired);
    if (!credential) throw new Error('the embedded profile has no mcp credential');
    token = credential.token;
  });

  afterAll(() => fake.close());

  /** Records the protocolVersion the SDK asks for, so the test sees the downgrade it accepts. */
  const recordingFetch: typeof fetch = async (input, init) => {
    if (typeof init?.body === 'string' && init.body.includes('"initialize"')) {
      const body = JSON.parse(init.body) as { params?: { protocolVersion?: string } };
      if (body.params?.protocolVersion) offered.push(body.params.protocolVersion);
    }
    return fetch(input, init);
  };

  it('connects, lists tools, calls them, and terminates the session', async () => {
    const transport = new StreamableHTTPClientTransport(new URL('/mcp', fake.baseUrl), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
      fetch: recordingFetch,
    });
    const client = new Client({ name: 'apicert-interop', version: '0.1.0' });
    const errors: unknown[] = [];
    client.onerror = (error) => errors.push(error);
    await client.connect(transport);

    // The SDK offers its newest revision; the fake answers 2025-03-26 and the SDK must accept it.
    expect(offered).toHaveLength(1);
    expect(offered[0]! > MCP_REVISION, `the SDK offered ${offered[0]}`).toBe(true);
    expect(transport.protocolVersion).toBe(MCP_REVISION);
    expect(client.getServerVersion()?.name).toBe('apicert-reference-fake');
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    const sessionId = transport.sessionId;
    expect(sessionId).toMatch(VISIBLE_ASCII);

    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['add', 'echo']);

    const echoed = await client.callTool({ name: 'echo', arguments: { text: 'hello from the SDK' } });
    expect(echoed.isError).toBe(false);
    expect(echoed.content).toEqual([{ type: 'text', text: 'hello from the SDK' }]);

    const progress: number[] = [];
    const sum = await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } }, undefined, { onprogress: (p) => progress.push(p.progress) });
    expect(sum.content).toEqual([{ type: 'text', text: '42' }]);
    expect(progress).toEqual([1]);

    await expect(client.callTool({ name: 'no-such-tool', arguments: {} })).rejects.toThrow(/Unknown tool/);
    await expect(client.ping()).resolves.toEqual({});

    await transport.terminateSession();
    expect(transport.sessionId).toBeUndefined();
    await client.close();

    // The terminated session is gone for every client, not only for the SDK's own bookkeeping.
    const after = await fetch(new URL('/mcp', fake.baseUrl), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', [SESSION_HEADER]: sessionId! },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(after.status).toBe(404);
    await after.body?.cancel();

    // GET /mcp answers 405, which the SDK takes as "no server push" rather than an error.
    expect(errors).toEqual([]);
  });

  it('is refused without a token, and the SDK reports the 401', async () => {
    const transport = new StreamableHTTPClientTransport(new URL('/mcp', fake.baseUrl));
    const client = new Client({ name: 'apicert-interop', version: '0.1.0' });
    await expect(client.connect(transport)).rejects.toThrow(/401|Unauthorized|bearer token/i);
    await client.close();
  });
});
