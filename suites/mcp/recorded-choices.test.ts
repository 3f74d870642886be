/**
 * Silence is open, from recordings too: the recording of an mcp run against each legal variant of the
 * fake, and against MCP servers built with the official TypeScript SDK, judged passively (with the
 * run's profile, as `judge-traffic --profile` gives it), gives the active verdict on every /mcp rule
 * a recording can judge. A judgement that reads other rules' traffic wrongly shows up here as a
 * passive failure the active run did not have.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FaultId } from '../../src/fake/faults/index.ts';
import { VARIANTS, type VariantId } from '../../src/fake/variants/index.ts';
import { judgeRecording } from '../../src/passive/judge.ts';
import { parseProfile } from '../../src/profile/load.ts';
import type { CertifyOptions } from '../../src/runner/certify.ts';
import { RULES } from '../../src/registry.ts';
import { fewerModelRuns, recordedDifferences } from '../passive/record.ts';
import { until } from '../support/bounded.ts';
import { documentedVariants } from '../support/documented-variants.ts';
import { PEER_KINDS, startSdkPeer, type PeerKind, type SdkPeer } from '../support/sdk-peers.ts';
import { withSdkClient } from './sdk-client.ts';

const MCP_JUDGED = RULES.filter((r) => r.surface === 'mcp' && r.judgement).map((r) => r.id);

/** Every judged /mcp rule of an `--surface mcp` run whose passive verdict differs from its active one. */
const differences = (options: CertifyOptions) => recordedDifferences({ ...options, surfaces: ['mcp'] });

describe.concurrent('recordings of /mcp runs under legal choices', () => {
  const mcpVariants = VARIANTS.filter((v) => v.id.startsWith('mcp.')).map((v) => [v.id] as const);

  it('covers every /mcp variant docs/legal-variation.md lists', () => {
    expect(mcpVariants.map(([id]) => id).sort()).toEqual(documentedVariants(['mcp']));
  });

  it('judges every /mcp rule from recordings but those docs/judgement.md names as active probe only', () => {
    // Rows of its table: | family | judged from traffic | needs the profile's facts | active probe only (why) |
    const rows = readFileSync(new URL('../../docs/judgement.md', import.meta.url), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('| mcp.'))
      .map((line) => line.split('|').map((cell) => cell.trim()));
    const unjudged = RULES.filter((r) => r.surface === 'mcp' && !MCP_JUDGED.includes(r.id)).map((r) => r.id);
    for (const id of unjudged) {
      const [family, name] = [id.split('.').slice(0, 2).join('.'), id.split('.').slice(2).join('.')];
      expect(rows.some((cells) => cells[1]!.includes(family) && cells[4]!.includes(`${name} (`)), `${id} has no judgement, and docs/judgement.md does not say why`).toBe(true);
    }
  });

  it.each(mcpVariants)('%s: the recording gives the active verdict on every judged /mcp rule', async (id) => {
    expect(await differences({ variants: [id as VariantId], seed: 13, adjustEmbeddedProfile: fewerModelRuns })).toEqual([]);
  }, 120_000);
});

describe.concurrent('recordings of /mcp runs against the official SDK', () => {
  const peers = new Map<PeerKind, SdkPeer>();
  beforeAll(async () => {
    for (const kind of PEER_KINDS) peers.set(kind, await startSdkPeer(kind));
  });
  afterAll(async () => {
    for (const peer of peers.values()) await peer.close();
  });

  it.each(PEER_KINDS.map((k) => [k] as const))('%s: the recording gives the active verdict on every judged /mcp rule', async (kind) => {
    const profile = parseProfile(
      {
        target: peers.get(kind)!.endpoint,
        credentials: [{ name: 'mcp', token: 'apicert-peer-token', surfaces: ['mcp'] }],
        fixtures: { mcp: { safeTool: { name: 'echo', arguments: { text: 'apicert' } } } },
      },
      'sdk peer profile',
    );
    expect(await differences({ profile, seed: 5 })).toEqual([]);
  }, 120_000);
});

/** The official SDK's client, recorded by the proxy in front of the fake: what it sends, judged. */
async function sdkClientRecording(faults: FaultId[]): Promise<Map<string, string>> {
  return withSdkClient({ faults }, async ({ client, transport, proxy, profile }) => {
    await client.listTools();
    // The client opens its GET stream after initialization on its own; the judgement needs its answer recorded.
    await until('the SDK client GET /mcp answered through the proxy', () => proxy.recorded().some((r) => r.method === 'GET' && new URL(r.url, proxy.url).pathname.startsWith('/mcp') && r.status !== undefined), 10_000);
    await transport.terminateSession();
    await client.close();
    const judged = await judgeRecording(proxy.exchanges(), { env: {}, profile });
    return new Map(judged.results.map((r) => [r.rule.id, r.verdict]));
  });
}

describe('the official SDK client, recorded by the proxy', () => {
  it('its GET and DELETE are judged: clean, they pass', async () => {
    const verdicts = await sdkClientRecording([]);
    for (const id of ['mcp.transport.get-405', 'mcp.transport.get-stream-or-405', 'mcp.session.delete-terminates']) expect(`${id}: ${verdicts.get(id)}`).toBe(`${id}: pass`);
  }, 60_000);

  it.each([['mcp.transport.get-405/opens-stream'], ['mcp.transport.get-stream-or-405/json-success']] as const)('%s: caught from its GET', async (fault) => {
    const verdicts = await sdkClientRecording([fault]);
    const rule = fault.split('/')[0]!;
    expect(`${rule}: ${verdicts.get(rule)}`).toBe(`${rule}: fail`);
  }, 60_000);
});
