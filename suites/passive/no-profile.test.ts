/**
 * A proxy or recording judged with no --profile knows no credential: whether a bearer token is valid,
 * and whether an id names a resource made before the recording began, are in no part of the traffic.
 * Silence is open: the generated rules hold such requests to no answer, where they once failed every
 * authenticated request answered 2xx ("must refuse [... header authorization]").
 */
import { describe, expect, it } from 'vitest';
import { missionScenarios } from '../../scenarios/v8/missions.ts';
import { minimalTurn } from '../../scenarios/v1/turns.ts';
import { taskScenarios } from '../../scenarios/v1/runs.ts';
import { expectationOf } from '../../src/checks/generated/expectation.ts';
import { sentOfExchange } from '../../src/checks/generated/traffic.ts';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { startFake } from '../../src/fake/server.ts';
import { judgeRecording } from '../../src/passive/judge.ts';
import { startProxy } from '../../src/passive/proxy.ts';
import type { Exchange } from '../../src/rule/index.ts';
import { runScriptedClient } from './scripted-client.ts';

describe('judging traffic without a profile', () => {
  it('fails no generated rule on a clean client\'s traffic, and still judges what needs no credential', async () => {
    const fake = await startFake();
    const proxy = await startProxy({ upstream: fake.baseUrl, bodyLimit: 256 * 1024, maxExchanges: 1_000 });
    try {
      const profile = embeddedProfile(fake);
      const token = (name: string) => profile.credentials.find((c) => c.name === name)!.token;
      const v8 = profile.credentials.find((c) => c.surfaces.includes('v8') && !c.expired && c.scopes.includes('missions:write') && c.scopes.includes('missions:read'))!;
      await runScriptedClient({
        baseUrl: proxy.url,
        v1Key: token('v1-full'),
        webhookKey: token('webhooks-full'),
        v8Token: v8.token,
        task: taskScenarios.completes.request as Record<string, unknown>,
        turn: { ...minimalTurn },
        mission: missionScenarios.succeeds.request as unknown as Record<string, unknown>,
        mistakes: false,
      });
      const judged = await judgeRecording(proxy.exchanges(), { env: {} });
      const generated = judged.report.rules.filter((r) => r.id.includes('.contract.generated.'));
      expect(generated.filter((r) => r.verdict === 'fail').map((r) => `${r.id}: ${r.reason}`)).toEqual([]);
      expect(generated.some((r) => r.verdict === 'pass'), 'no-5xx and problem-json still judge').toBe(true);
    } finally {
      await proxy.close();
      await fake.close();
    }
  }, 60_000);

  it('holds a request with a bearer token no profile names to no answer, and one without a token to a refusal', () => {
    const ex = (authorization?: string): Exchange => ({ index: 0, method: 'GET', path: '/v1/usage', requestHeaders: authorization ? { authorization } : {}, responseHeaders: {}, evidence: [] }) as unknown as Exchange;
    expect(expectationOf(sentOfExchange(ex('Bearer some-token-of-a-client'), [])).kind).toBe('open');
    expect(expectationOf(sentOfExchange(ex(), []))).toMatchObject({ kind: 'refuse' });
    expect(expectationOf(sentOfExchange(ex('Basic dXNlcjpwYXNz'), [])).kind).toBe('refuse');
  });
});
