/** The official MCP SDK's client talking to the fake through `apicert proxy`'s recorder, as a team's client would. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { startFake, type FakeOptions } from '../../src/fake/server.ts';
import { startProxy, type RunningProxy } from '../../src/passive/proxy.ts';
import type { Profile } from '../../src/profile/schema.ts';

export interface SdkClientSession {
  client: Client;
  transport: StreamableHTTPClientTransport;
  proxy: RunningProxy;
  profile: Profile;
}

/** Starts the fake (with `options`) and the proxy in front of it, connects the SDK client with the fake's /mcp token, runs `use`, then stops both. */
export async function withSdkClient<T>(options: FakeOptions, use: (session: SdkClientSession) => Promise<T>): Promise<T> {
  const fake = await startFake(options);
  const proxy = await startProxy({ upstream: fake.baseUrl, bodyLimit: 64 * 1024, maxExchanges: 1_000 });
  try {
    const profile = embeddedProfile(fake);
    const token = profile.credentials.find((c) => c.surfaces.includes('mcp') && !c.expired)!.token;
    const transport = new StreamableHTTPClientTransport(new URL('/mcp', proxy.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
    const client = new Client({ name: 'not-apicert', version: '1.0.0' });
    await client.connect(transport);
    return await use({ client, transport, proxy, profile });
  } finally {
    await proxy.close();
    await fake.close();
  }
}
