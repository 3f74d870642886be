import { afterEach, describe, expect, it } from 'vitest';
import { credentialOf } from '../../src/load/config.ts';
import { otherMissionBody, v1IdempotencyStorm, v8IdempotencyStorm } from '../../src/load/scenarios/idempotency-storm.ts';
import type { FaultId } from '../../src/fake/faults/index.ts';
import { catchRows } from './catches.ts';
import { fakeTarget, newKey, summarise, verdictOf, type Target } from './support.ts';

// The storm scripts' own iteration code, sent through fetch to the fake, with and without the
// fault each rule exists to catch.
let target: Target | undefined;
afterEach(async () => {
  await target?.fake.close();
  target = undefined;
});

async function v8Storm(faults: FaultId[] = []) {
  target = await fakeTarget(faults);
  const t = target;
  return summarise('v8-idempotency-storm', t.config.baseUrl, () => v8IdempotencyStorm(t.transport, { ...t.config, token: credentialOf('v8-idempotency-storm', t.config), storm: 12, key: newKey }), 2);
}

async function v1Storm(faults: FaultId[] = []) {
  target = await fakeTarget(faults);
  const t = target;
  return summarise('v1-idempotency-storm', t.config.baseUrl, () => v1IdempotencyStorm(t.transport, { ...t.config, token: credentialOf('v1-idempotency-storm', t.config), storm: 8, key: newKey }), 2);
}

describe('v8 idempotency storm', () => {
  it('passes on the fake, tagging requests by phase', async () => {
    const summary = await v8Storm();
    expect(verdictOf(summary, 'load.v8.idempotency.storm-one-mission')).toMatchObject({ verdict: 'pass' });
    expect(verdictOf(summary, 'load.v8.idempotency.storm-conflict')).toMatchObject({ verdict: 'pass' });
    expect(summary.rules['load.v8.idempotency.storm-conflict']!.passes).toBe(24);
    expect(Object.fromEntries(target!.transport.sent)).toEqual({ 'storm same-body POST /v8/missions': 24, 'storm other-body POST /v8/missions': 24 });
  });

  it.each(catchRows('v8-idempotency-storm'))('%s fails %s', async (fault, rule, reason) => {
    const summary = await v8Storm([fault]);
    const verdict = verdictOf(summary, rule);
    expect(verdict.verdict).toBe('fail');
    expect(verdict.reason).toMatch(reason);
  });

  it('load.v8.idempotency.storm-one-mission/race fails storm-one-mission alone', async () => {
    const summary = await v8Storm(['load.v8.idempotency.storm-one-mission/race']);
    expect(verdictOf(summary, 'load.v8.idempotency.storm-one-mission').verdict).toBe('fail');
    expect(verdictOf(summary, 'load.v8.idempotency.storm-conflict')).toMatchObject({ verdict: 'pass' });
  });

  it('changes the task of the other bodies, so a strictly validating target still parses them', () => {
    const body = { goalSpec: { task: 't' }, resourceBudget: { maximumSteps: 1 } };
    expect(otherMissionBody(body, 0)).toEqual({ goalSpec: { task: 't (variant 1)' }, resourceBudget: { maximumSteps: 1 } });
    expect(otherMissionBody({ goalSpec: {}, resourceBudget: { maximumSteps: 1 } }, 1)).toEqual({ goalSpec: {}, resourceBudget: { maximumSteps: 3 } });
  });
});

describe('v1 idempotency storm', () => {
  it('passes on the fake', async () => {
    const summary = await v1Storm();
    for (const rule of ['load.v1.idempotency.storm-one-run', 'load.v1.idempotency.storm-replayed', 'load.v1.idempotency.storm-conflict']) {
      expect(verdictOf(summary, rule), rule).toMatchObject({ verdict: 'pass' });
    }
  });

  it.each(catchRows('v1-idempotency-storm'))('%s fails %s', async (fault, rule, reason) => {
    const verdict = verdictOf(await v1Storm([fault]), rule);
    expect(verdict.verdict).toBe('fail');
    expect(verdict.reason).toMatch(reason);
  });

  // A fault breaks exactly its rule: the race is one of task executes, as its description says.
  it('load.v1.idempotency.storm-one-run/race fails storm-one-run alone', async () => {
    const summary = await v1Storm(['load.v1.idempotency.storm-one-run/race']);
    expect(verdictOf(summary, 'load.v1.idempotency.storm-one-run').verdict).toBe('fail');
    for (const rule of ['load.v1.idempotency.storm-replayed', 'load.v1.idempotency.storm-conflict']) expect(verdictOf(summary, rule), rule).toMatchObject({ verdict: 'pass' });
  });

  it('judges nothing, and says so, when the key is refused', async () => {
    target = await fakeTarget();
    const t = target;
    const summary = await summarise('v1-idempotency-storm', t.config.baseUrl, () => v1IdempotencyStorm(t.transport, { ...t.config, token: 'service_sk_not-a-key', storm: 2, key: newKey }));
    expect(summary.iterations).toEqual({ judged: 0, unjudged: 1 });
    expect(verdictOf(summary, 'load.v1.idempotency.storm-one-run')).toMatchObject({ verdict: 'inconclusive', reason: expect.stringMatching(/nothing was judged/) });
  });
});
