/**
 * Silence is open, from recordings too: the recording of an mcp run against each legal variant of the
 * fake, and against MCP servers built with the official TypeScript SDK, judged passively (with the
 * run's profile, as `judge-traffic --profile` gives it), gives the active verdict on every /mcp rule
 * a recording can judge. A judgement that reads other rules' traffic wrongly shows up here as a
 * passive failure the active run did not have.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VARIANTS, type VariantId } from '../../src/fake/variants/index.ts';
import { judgeRecording } from '../../src/passive/judge.ts';
import { HarRecorder, hidingFor } from '../../src/passive/recorder.ts';
import { parseProfile } from '../../src/profile/load.ts';
import type { Profile } from '../../src/profile/schema.ts';
import { certify, HARNESS_VERSION, redactorFor, type CertifyOptions } from '../../src/runner/certify.ts';
import { RULES } from '../../src/registry.ts';
import { exchangesOf, stripApicert } from '../passive/record.ts';
import { PEER_KINDS, startSdkPeer, type PeerKind, type SdkPeer } from '../support/sdk-peers.ts';

const MCP_JUDGED = RULES.filter((r) => r.surface === 'mcp' && r.judgement).map((r) => r.id);

/** Every judged /mcp rule whose passive verdict differs from its active one, with the passive reason. */
async function differences(options: CertifyOptions): Promise<string[]> {
  const recorder = new HarRecorder();
  const active = await certify({ ...options, surfaces: ['mcp'], recorder });
  const profile = active.profile!;
  const written = JSON.parse(JSON.stringify(recorder.document(HARNESS_VERSION, hidingFor(profile.credentials, redactorFor(profile))))) as { log: { entries: unknown[] } };
  const passive = await judgeRecording(exchangesOf(stripApicert(written)), { env: {}, profile });
  const activeVerdict = new Map(active.results.map((r) => [r.rule.id, r.verdict]));
  const activeReason = new Map(active.results.map((r) => [r.rule.id, r.reason]));
  return passive.results
    .filter((r) => MCP_JUDGED.includes(r.rule.id) && r.verdict !== activeVerdict.get(r.rule.id))
    // What the recorder hid (a session id shaped like a token becomes one marker) is untestable, never judged.
    .filter((r) => !(r.verdict === 'untestable' && /replaced it with a marker/.test(r.reason ?? '')))
    .map((r) => `${r.rule.id}: active ${activeVerdict.get(r.rule.id)} (${activeReason.get(r.rule.id)?.split('\n')[0]}), recording ${r.verdict}: ${r.reason?.split('\n')[0]}`);
}

function fewerModelRuns(profile: Profile): Profile {
  return { ...profile, safety: { ...profile.safety, modelRuns: 5 } };
}

describe.concurrent('recordings of /mcp runs under legal choices', () => {
  it('covers the /mcp rules converted to one judgement', () => {
    expect(MCP_JUDGED.length).toBeGreaterThanOrEqual(26);
  });

  const mcpVariants = VARIANTS.filter((v) => v.id.startsWith('mcp.')).map((v) => [v.id] as const);
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
