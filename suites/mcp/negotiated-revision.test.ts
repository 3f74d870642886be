/**
 * A session's revision is the one negotiated (MCP 2025-03-26 Lifecycle, Version Negotiation), not
 * the one the client asked for: every current client (the official SDK's among them) asks for a
 * later revision, accepts 2025-03-26 and goes on in it. The operating-phase rules judge such a
 * session's requests in a recording as they would in an active run.
 */
import { EmptyResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { MCP_REVISION } from '../../src/contract/mcp/lifecycle.ts';
import type { VariantId } from '../../src/fake/variants/index.ts';
import type { TrafficExchange } from '../../src/passive/exchange.ts';
import { judgeRecording } from '../../src/passive/judge.ts';
import type { Profile } from '../../src/profile/schema.ts';
import { empty, json, post, verdicts, type Part } from './mcp-recording.ts';
import { withSdkClient } from './sdk-client.ts';

const UNKNOWN_METHOD = 'apicert/no-such-method';
const RULES = ['mcp.transport.request-response', 'mcp.jsonrpc.method-not-found'];

interface SdkRecording {
  exchanges: TrafficExchange[];
  profile: Profile;
  /** The protocolVersion the SDK asked for, and the one it kept after initialize. */
  asked: string | undefined;
  negotiated: string | undefined;
  /** What the SDK got for the unknown method. */
  unknownMethod: string;
}

/** The official SDK client, through the proxy in front of the fake: initialize, tools, a ping and an unknown method. */
async function recordSdkClient(variants: VariantId[] = []): Promise<SdkRecording> {
  return withSdkClient({ variants }, async ({ client, transport, proxy, profile }) => {
    await client.listTools();
    await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    await client.ping();
    const unknownMethod = await client.request({ method: UNKNOWN_METHOD, params: {} } as never, EmptyResultSchema).then(
      () => 'a result',
      (e: unknown) => String(e),
    );
    if (transport.sessionId !== undefined) await transport.terminateSession();
    await client.close();
    const exchanges = proxy.exchanges();
    const init = exchanges.find((ex) => ex.requestBody?.includes('"initialize"'));
    const asked = (JSON.parse(init?.requestBody ?? '{}') as { params?: { protocolVersion?: string } }).params?.protocolVersion;
    return { exchanges, profile, asked, negotiated: transport.protocolVersion, unknownMethod };
  });
}

async function judged(recording: SdkRecording, exchanges = recording.exchanges): Promise<Record<string, string>> {
  const { results } = await judgeRecording(exchanges, { env: {}, profile: recording.profile, patterns: RULES });
  return Object.fromEntries(results.map((r) => [r.rule.id, r.verdict]));
}

/** The recording with the answer to the unknown method bent from -32601 to -32000, as a server that gets the code wrong answers. */
function bent(exchanges: readonly TrafficExchange[]): TrafficExchange[] {
  return exchanges.map((ex) => {
    if (!ex.requestBody?.includes(UNKNOWN_METHOD) || !ex.responseBody?.includes('-32601')) return ex;
    return { ...ex, responseBody: ex.responseBody.replace('-32601', '-32000') };
  });
}

describe.each([
  ['a session the fake issued', [] as VariantId[]],
  ['a session-less fake', ['mcp.session/no-sessions'] as VariantId[]],
])('the official SDK client, recorded by the proxy: %s', (_, variants) => {
  it('asks for a later revision, is answered 2025-03-26, and its requests are judged in that session', async () => {
    const recording = await recordSdkClient(variants);
    // The premise: the SDK asked for more than /mcp's revision and went on in 2025-03-26.
    expect(recording.asked! > MCP_REVISION, `the SDK asked for ${recording.asked}`).toBe(true);
    expect(recording.negotiated).toBe(MCP_REVISION);
    expect(recording.unknownMethod).toMatch(/-32601|Method not found/);
    expect(await judged(recording)).toEqual({ 'mcp.transport.request-response': 'pass', 'mcp.jsonrpc.method-not-found': 'pass' });
    // The same recording with the unknown method answered -32000: caught.
    const bentOnes = bent(recording.exchanges);
    expect(bentOnes.filter((ex, i) => ex !== recording.exchanges[i])).toHaveLength(1);
    expect((await judged(recording, bentOnes))['mcp.jsonrpc.method-not-found']).toBe('fail');
  }, 60_000);
});

/** An initialize asking for `asked`, answered `answered` (with the session id, when given), then notifications/initialized answered 202. */
function negotiated(session: string | undefined, asked: string, answered: string, headers: Record<string, string> = {}): Part[] {
  const request = post({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: asked, capabilities: {}, clientInfo: { name: 'client', version: '1' } } }, undefined);
  const result = { protocolVersion: answered, capabilities: { tools: {} }, serverInfo: { name: 'server', version: '1' } };
  return [
    { ...request, ...json(200, { jsonrpc: '2.0', id: 'init', result }, session === undefined ? {} : { 'mcp-session-id': session }) },
    { ...post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session, headers), ...empty(202) },
  ];
}

/** A request for an unknown method, answered with error `code`. */
function unknownMethod(session: string | undefined, code: number, headers: Record<string, string> = {}): Part {
  return { ...post({ jsonrpc: '2.0', id: 'u1', method: UNKNOWN_METHOD, params: {} }, session, headers), ...json(200, { jsonrpc: '2.0', id: 'u1', error: { code, message: 'no' } }) };
}

describe('mcp.jsonrpc.method-not-found in recordings, by the revision negotiated', () => {
  const rule = 'mcp.jsonrpc.method-not-found';

  it.each<{ what: string; session: string | undefined; asked: string; answered: string; headers: Record<string, string>; verdict: string }>([
    // Asked later, answered 2025-03-26: a 2025-03-26 session, whether or not the client names it in MCP-Protocol-Version.
    { what: 'asked 2025-11-25, answered 2025-03-26, no header', session: 's1', asked: '2025-11-25', answered: MCP_REVISION, headers: {}, verdict: 'fail' },
    { what: 'asked 2025-11-25, answered 2025-03-26, MCP-Protocol-Version: 2025-03-26', session: 's1', asked: '2025-11-25', answered: MCP_REVISION, headers: { 'mcp-protocol-version': MCP_REVISION }, verdict: 'fail' },
    { what: 'session-less: asked 2025-11-25, answered 2025-03-26', session: undefined, asked: '2025-11-25', answered: MCP_REVISION, headers: {}, verdict: 'fail' },
    // Negotiated to a later revision: not /mcp's, so not held to it (whether or not the request names it).
    { what: 'asked 2025-06-18, answered 2025-06-18', session: 's1', asked: '2025-06-18', answered: '2025-06-18', headers: {}, verdict: 'not-applicable' },
    { what: 'session-less: asked 2025-06-18, answered 2025-06-18', session: undefined, asked: '2025-06-18', answered: '2025-06-18', headers: {}, verdict: 'not-applicable' },
    { what: 'asked 2025-03-26, the request names 2025-06-18', session: 's1', asked: MCP_REVISION, answered: MCP_REVISION, headers: { 'mcp-protocol-version': '2025-06-18' }, verdict: 'not-applicable' },
  ])('$what: -32000 for an unknown method gives $verdict', async ({ session, asked, answered, headers, verdict }) => {
    const parts = [...negotiated(session, asked, answered, headers), unknownMethod(session, -32000, headers)];
    expect((await verdicts(parts, [rule]))[rule]?.verdict).toBe(verdict);
  });

  it('the initialize answer not kept: the MCP-Protocol-Version the request carries names the session revision', async () => {
    const [init, initialized] = negotiated('s1', '2025-11-25', MCP_REVISION, { 'mcp-protocol-version': MCP_REVISION });
    const unread: Part = { ...init!, responseBody: undefined, responseBodyMissing: 'the recorder kept no response body' };
    const withHeader = [unread, initialized!, unknownMethod('s1', -32000, { 'mcp-protocol-version': MCP_REVISION })];
    expect((await verdicts(withHeader, [rule]))[rule]?.verdict).toBe('fail');
    // Without it, only what the client asked for is known: a later revision.
    const withoutHeader = [unread, ...negotiated('s1', '2025-11-25', MCP_REVISION).slice(1), unknownMethod('s1', -32000)];
    expect((await verdicts(withoutHeader, [rule]))[rule]?.verdict).toBe('not-applicable');
  });
});
