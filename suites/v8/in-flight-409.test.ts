/**
 * The fake's variant v8.missions/in-flight-409 (helper 101): a create whose Idempotency-Key belongs to a
 * create still being processed is refused 409 ("in progress" for the same body, the conflict for
 * another), a choice "Replay with the same key and the same body returns the original response without
 * re-executing" leaves open (it speaks of an original that was answered). Certify, the passive judgement
 * of a recording with overlapping duplicates, and the load storm pass it; the replay faults are still
 * caught under it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { missionScenarios } from '../../scenarios/v8/missions.ts';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import type { FaultId } from '../../src/fake/faults/index.ts';
import { startFake, type RunningFake } from '../../src/fake/server.ts';
import { credentialOf, loadConfig } from '../../src/load/config.ts';
import { envFromProfile } from '../../src/load/profile-env.ts';
import { v8IdempotencyStorm } from '../../src/load/scenarios/idempotency-storm.ts';
import { judgeRecording } from '../../src/passive/judge.ts';
import type { Exchange } from '../../src/rule/index.ts';
import { certify } from '../../src/runner/certify.ts';
import { FetchTransport, newKey, summarise, verdictOf } from '../load/support.ts';

const VARIANT = 'v8.missions/in-flight-409' as const;
let fake: RunningFake | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function started(faults: FaultId[] = []) {
  fake = await startFake({ variants: [VARIANT], faults });
  const config = loadConfig(envFromProfile(embeddedProfile(fake)));
  return { fake, config, token: credentialOf('v8-idempotency-storm', config) };
}

/** One create sent with fetch and kept as a recorder keeps it: when it started, how long it took, both bodies. */
async function create(base: string, token: string, key: string, body: unknown, index: number): Promise<Exchange> {
  const requestHeaders = { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key };
  const requestBody = JSON.stringify(body);
  const startedAt = new Date();
  const t0 = performance.now();
  const res = await fetch(`${base}/v8/missions`, { method: 'POST', headers: requestHeaders, body: requestBody });
  const responseBody = await res.text();
  return {
    index,
    startedAt: startedAt.toISOString(),
    durationMs: Math.round(performance.now() - t0),
    method: 'POST',
    url: `${base}/v8/missions`,
    path: '/v8/missions',
    requestHeaders,
    requestBody,
    status: res.status,
    responseHeaders: Object.fromEntries(res.headers),
    responseBody,
  };
}

/** The original, a same-body duplicate and an other-body one sent while it is held, then the same body again once it is answered. */
async function recording(base: string, token: string): Promise<Exchange[]> {
  const key = newKey();
  const body = missionScenarios.succeeds.request;
  const other = { ...body, goalSpec: { ...body.goalSpec, task: `${body.goalSpec.task} (changed)` } };
  const first = create(base, token, key, body, 0);
  await new Promise((resolve) => setTimeout(resolve, 10));
  const [original, duplicate, conflicting] = await Promise.all([first, create(base, token, key, body, 1), create(base, token, key, other, 2)]);
  const after = await create(base, token, key, body, 3);
  // A recorder lists exchanges in the order they were sent.
  return [original, duplicate, conflicting, after];
}

const PATTERNS = ['v8.missions.idempotency.replay', 'v8.missions.idempotency.conflict'];

describe('v8.missions/in-flight-409', () => {
  it('the recording of overlapping duplicates passes the replay and conflict rules passively', async () => {
    const { config, token } = await started();
    const exchanges = await recording(config.baseUrl, token);
    expect(exchanges.map((e) => e.status)).toEqual([202, 409, 409, 202]);
    expect(JSON.parse(exchanges[1]!.responseBody!)).toMatchObject({ status: 409 });
    const { results } = await judgeRecording(exchanges, { surfaces: ['v8'], patterns: PATTERNS, env: {}, profile: embeddedProfile(fake!) });
    expect(Object.fromEntries(results.map((r) => [r.rule.id, `${r.verdict} ${r.reason ?? ''}`.trim()]))).toEqual({ 'v8.missions.idempotency.replay': 'pass', 'v8.missions.idempotency.conflict': 'pass' });
    expect(fake!.context.variants.taken()).toContain(VARIANT);
  });

  it('still fails the recording under the replay fault: the create sent after the answer starts another mission', async () => {
    const { config, token } = await started(['v8.missions.idempotency.replay/re-executes']);
    const { results } = await judgeRecording(await recording(config.baseUrl, token), { surfaces: ['v8'], patterns: [PATTERNS[0]!], env: {}, profile: embeddedProfile(fake!) });
    expect(results[0]).toMatchObject({ verdict: 'fail' });
  });

  it('the load storm passes, judging the create sent after it, and still fails the re-executes fault', async () => {
    const { config, token } = await started();
    const storm = () => summarise('v8-idempotency-storm', config.baseUrl, () => v8IdempotencyStorm(new FetchTransport(), { ...config, token, storm: 8, key: newKey }), 2);
    const summary = await storm();
    expect(verdictOf(summary, 'load.v8.idempotency.storm-one-mission')).toMatchObject({ verdict: 'pass' });
    expect(verdictOf(summary, 'load.v8.idempotency.storm-conflict')).toMatchObject({ verdict: 'pass' });
    expect(summary.figures.v8_storm_refused_in_flight!.count).toBeGreaterThan(0);
    await fake!.close();
    const second = await started(['v8.missions.idempotency.replay/re-executes']);
    const faulty = await summarise('v8-idempotency-storm', second.config.baseUrl, () => v8IdempotencyStorm(new FetchTransport(), { ...second.config, token: second.token, storm: 8, key: newKey }), 2);
    expect(verdictOf(faulty, 'load.v8.idempotency.storm-one-mission')).toMatchObject({ verdict: 'fail' });
  });

  it('certify passes the idempotency rules, and still fails the replay and conflict faults', async () => {
    const clean = await certify({ patterns: ['v8.missions.idempotency.*'], variants: [VARIANT], seed: 7 });
    const wrong = clean.results.filter((r) => r.rule.level !== 'observation' && r.verdict !== 'pass').map((r) => `${r.rule.id}: ${r.verdict}: ${r.reason}`);
    expect(wrong).toEqual([]);
    for (const [fault, rule] of [
      ['v8.missions.idempotency.replay/re-executes', 'v8.missions.idempotency.replay'],
      ['v8.missions.idempotency.replay/current-projection', 'v8.missions.idempotency.replay'],
      ['v8.missions.idempotency.conflict/replays-different-body', 'v8.missions.idempotency.conflict'],
    ] as const) {
      const run = await certify({ patterns: [rule], variants: [VARIANT], faults: [fault], seed: 7 });
      expect(run.results.find((r) => r.rule.id === rule)?.verdict, fault).toBe('fail');
    }
  }, 120_000);
});
