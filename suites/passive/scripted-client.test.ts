/**
 * A client that is not apicert (suites/passive/scripted-client.ts: plain fetch), recorded by the
 * proxy in front of the fake and judged: its clean recordings pass, under the fake's variants too,
 * and each fault whose effect shows in that client's traffic is caught from it.
 */
import { describe, expect, it } from 'vitest';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import type { FaultId } from '../../src/fake/faults/index.ts';
import { startFake } from '../../src/fake/server.ts';
import type { VariantId } from '../../src/fake/variants/index.ts';
import { judgeRecording, type PassiveJudgement } from '../../src/passive/judge.ts';
import { startProxy } from '../../src/passive/proxy.ts';
import { runClientOfFake } from './scripted-client-run.ts';

async function recordClient(options: { faults?: FaultId[]; variants?: VariantId[] } = {}): Promise<PassiveJudgement> {
  const fake = await startFake({ faults: options.faults ?? [], variants: options.variants ?? [] });
  const proxy = await startProxy({ upstream: fake.baseUrl, bodyLimit: 256 * 1024, maxExchanges: 1_000 });
  try {
    const profile = embeddedProfile(fake);
    await runClientOfFake(proxy.url, profile, true);
    // The profile gives what traffic cannot show (which credential holds which scopes), as `judge-traffic --profile` does.
    return await judgeRecording(proxy.exchanges(), { env: {}, profile });
  } finally {
    await proxy.close();
    await fake.close();
  }
}

const failing = (j: PassiveJudgement) => j.results.filter((r) => r.verdict === 'fail').map((r) => `${r.rule.id}: ${r.reason?.split('\n')[0]}`);
const judgedIds = (j: PassiveJudgement) => j.report.rules.filter((r) => (r.exchanges ?? 0) > 0).map((r) => r.id);

describe('a scripted integration that is not apicert, recorded by the proxy', () => {
  it('passes on the clean fake, and many /v1 rules judge its traffic', async () => {
    const judged = await recordClient();
    expect(failing(judged)).toEqual([]);
    expect(judged.results.filter((r) => r.verdict === 'untestable' || r.verdict === 'inconclusive').map((r) => `${r.rule.id}: ${r.reason}`)).toEqual([]);
    expect(judged.report.summary.gate).toBe('pass');
    console.log(judgedIds(judged).join('\n'));
  }, 60_000);
});

/** Legal choices of the fake that change what this client sees on /v1. */
const VARIANTS: readonly VariantId[] = ['v1.runs/kind-in-data-only', 'v1.runs/sse-framing', 'v1.runs/sparse-sequences', 'v1.errors/authentication-403', 'v1.errors/invalid-request-422', 'v1.execute/extra-properties', 'v1.webhooks/id-format'];

describe.concurrent('the scripted integration under the fake\'s variants', () => {
  it.each(VARIANTS.map((v) => [v] as const))('%s: the recording passes', async (variant) => {
    const judged = await recordClient({ variants: [variant] });
    expect(failing(judged)).toEqual([]);
    expect(judged.report.summary.gate).toBe('pass');
  }, 60_000);
});

/**
 * The faults of the matrix whose effect shows in this client's own traffic: each is caught from its
 * recording, with the profile's facts given. (Faults on requests it never makes, a burst, a
 * receiver, a parked run, are not among them.)
 */
const VISIBLE: readonly FaultId[] = [
  'v1.execute.turn.stream/json-response',
  'v1.execute.turn.accepted-event/replayed-missing',
  'v1.execute.task.run-id/text-plain',
  'v1.execute.task.task-object/any-task',
  'v1.execute.idempotency.replay/re-executes',
  'v1.execute.idempotency.conflict/replays-different-body',
  'v1.execute.idempotency.key-format/any-key',
  'v1.runs.get/html',
  'v1.runs.timestamp-offset/zulu',
  'v1.runs.events.stream/json-stream',
  'v1.runs.events.identity/progress-without-id',
  'v1.runs.events.resume/no-sse-ids',
  'v1.usage.readback/text-plain',
  'v1.auth.unauthenticated/serves-without-key',
  'v1.auth.key-prefix/ignored',
  'v1.errors.problem-shape/extra-member',
  'v1.versioning.header/rejected',
  'v1.webhooks.register.created/no-secret',
  'v1.webhooks.register.created/answers-200',
  'v1.webhooks.register.secret-once/shown-twice',
  'v1.webhooks.url.https-only/http-accepted',
  'v1.webhooks.url.loopback-names/accepted',
  'v1.webhooks.url.default-port/other-port-accepted',
];

describe.concurrent('faults visible in the scripted integration\'s traffic', () => {
  it.each(VISIBLE.map((f) => [f] as const))('%s is caught from its recording', async (fault) => {
    const judged = await recordClient({ faults: [fault] });
    const rule = fault.split('/')[0]!;
    const result = judged.results.find((r) => r.rule.id === rule)!;
    expect(result.verdict, result.reason).toBe('fail');
  }, 60_000);
});

