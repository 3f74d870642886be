/**
 * Fixer helper-82, part 2: "An `unavailable` one is not to be included in goal specifications."
 * binds the client and had no rule. client.v8.capabilities.unavailable-in-goal judges a client's
 * log: a POST /v8/missions whose goalSpec names a capability the latest search answer it had
 * received showed `unavailable` fails; everything else is open. Judged over hand-made logs and
 * over the sample client with and without its fault.
 */
import { describe, expect, it } from 'vitest';
import { judgeClient } from '../../src/client-judge/judge-client.ts';
import { namesId } from '../../src/client-judge/capability-health.ts';
import type { ScenarioName } from '../../src/client-judge/scenarios.ts';
import { recorded, sessionJudge } from './client-sessions.ts';
import { sampleClient } from './support.ts';

const RULE = 'client.v8.capabilities.unavailable-in-goal';
const SCENARIO = 'capability-health' as ScenarioName;
const hash = 'a'.repeat(64);
const manifest = (capabilityId: string, healthState: string) => ({ capabilityId, kind: 'api', version: '1.0.0', contractHash: hash, healthState });
const search = (index: number, manifests: unknown[], respondedAt = index * 1000 + 10) =>
  recorded({ index, method: 'POST', path: '/v8/capabilities/search', body: JSON.stringify({ actionFamily: 'read', purpose: 'p', targetType: 't' }), status: 200, respondedAt, responseBody: JSON.stringify(manifests) });
const create = (index: number, goalSpec: unknown) =>
  recorded({ index, method: 'POST', path: '/v8/missions', headers: { 'idempotency-key': `key-${index}-000000000000` }, body: JSON.stringify({ goalSpec, resourceBudget: { maximumSteps: 5, maximumToolCalls: 5, maximumElapsedMs: 60_000, maximumParallelism: 1 } }), status: 202, respondedAt: index * 1000 + 10 });

const UNAVAILABLE = [manifest('cap.docs.search', 'healthy'), manifest('cap.portal.browser', 'unavailable')];

describe('client.v8.capabilities.unavailable-in-goal over hand-made logs', () => {
  const judge = sessionJudge();
  const verdictOf = async (exchanges: ReturnType<typeof recorded>[]) => {
    const result = (await judge({ scenario: SCENARIO, exchanges })).get(RULE);
    expect(result, 'the rule judges the capability-health scenario').toBeDefined();
    return result!;
  };

  it('a goalSpec including by id (a value or a key) a capability an earlier search answer showed unavailable fails, wherever in the goalSpec', async () => {
    for (const goalSpec of [{ task: 'read the portal', capabilities: ['cap.docs.search', 'cap.portal.browser'] }, { task: 't', tools: { 'cap.portal.browser': { mode: 'read' } } }, { task: 't', plan: [{ use: ' cap.portal.browser ' }] }]) {
      const result = await verdictOf([search(0, UNAVAILABLE), create(1, goalSpec)]);
      expect(result.verdict, result.reason).toBe('fail');
      expect(result.reason).toMatch(/names cap\.portal\.browser in its goalSpec, shown `unavailable` by the search answer #0/);
    }
  });

  it('an id only mentioned in the goal\'s words, or listed as what to leave out, is recorded, not failed (audit-84 D2: "capabilityId | string | stable unique id" sets no format, so `email` may be one)', async () => {
    const words = [{ capabilityId: 'email', healthState: 'unavailable' }];
    for (const [shown, goalSpec] of [
      [UNAVAILABLE, { task: 'read the portal with cap.portal.browser.' }],
      [UNAVAILABLE, { task: 't', avoidCapabilities: ['cap.portal.browser'] }],
      [words, { task: 'Send the weekly report by email to the team' }],
    ] as const) {
      const result = await verdictOf([search(0, shown), create(1, goalSpec)]);
      expect(result.verdict, result.reason).toBe('pass');
      expect(JSON.stringify(result.observations)).toMatch(/mentions, without including by id/);
    }
  });

  it('a goalSpec naming only available capabilities passes', async () => {
    const result = await verdictOf([search(0, UNAVAILABLE), create(1, { task: 'read the docs', capabilities: ['cap.docs.search'] })]);
    expect(result.verdict, result.reason).toBe('pass');
  });

  it('a longer id that merely starts with the unavailable one names another capability: pass', async () => {
    const result = await verdictOf([search(0, UNAVAILABLE), create(1, { task: 't', capabilities: ['cap.portal.browser.v2', 'x-cap.portal.browser'] })]);
    expect(result.verdict, result.reason).toBe('pass');
    expect(namesId('use cap.portal.browser, then stop', 'cap.portal.browser')).toBe(true);
    expect(namesId('cap.portal.browser/v2', 'cap.portal.browser')).toBe(false);
  });

  it('silence is open: no search before the mission, an answer that arrived after it, or a later answer showing it healthy again', async () => {
    const named = { task: 't', capabilities: ['cap.portal.browser'] };
    const cases = [
      [create(0, named)],
      // The answer was sent after the create arrived: the client could not have known.
      [search(0, UNAVAILABLE, 1500), create(1, named)],
      [search(0, UNAVAILABLE), search(1, [manifest('cap.portal.browser', 'healthy')]), create(2, named)],
      // Shown unavailable only after the mission.
      [create(0, named), search(1, UNAVAILABLE)],
    ];
    for (const exchanges of cases) {
      const result = await verdictOf(exchanges);
      expect(result.verdict, result.reason).toBe('not-applicable');
    }
    const none = await verdictOf([search(0, UNAVAILABLE)]);
    expect(none.verdict, none.reason).toBe('not-applicable');
    expect(none.reason).toMatch(/sent no mission/);
  });

  it('a search answer cut by the record still shows the manifests it holds whole', async () => {
    const cut = search(0, UNAVAILABLE);
    cut.responseBody = cut.responseBody!.slice(0, cut.responseBody!.indexOf('"unavailable"') + 20);
    const result = await verdictOf([cut, create(1, { task: 't', capabilities: ['cap.portal.browser'] })]);
    expect(result.verdict, result.reason).toBe('fail');
  });
});

describe.concurrent('client.v8.capabilities.unavailable-in-goal on the sample client', () => {
  const run = async (fault?: string) => {
    const { results, sessions } = await judgeClient({ scenarios: [SCENARIO], timeScale: 0.02, command: sampleClient(fault), maxSecondsPerScenario: 30, quietMs: 1_000, seed: 7 });
    return { byId: new Map(results.map((r) => [r.rule.id, r])), sessions };
  };

  it('the well-behaved client searches, leaves the unavailable capability out of its goal, and passes', async () => {
    const { byId, sessions } = await run();
    expect(byId.get(RULE)?.verdict, byId.get(RULE)?.reason).toBe('pass');
    // It did meet one: the search answer it got showed cap.portal.browser unavailable.
    expect(sessions[0]!.exchanges.some((ex) => ex.path === '/v8/capabilities/search' && ex.responseBody?.includes('"unavailable"'))).toBe(true);
  }, 60_000);

  it('the faulty client (use-unavailable-capability) is caught, and no other client rule fails', async () => {
    const { byId } = await run('use-unavailable-capability');
    expect(byId.get(RULE)?.verdict, byId.get(RULE)?.reason).toBe('fail');
    expect(byId.get(RULE)?.reason).toMatch(/cap\.portal\.browser/);
    expect([...byId.values()].filter((r) => r.rule.id !== RULE && r.verdict === 'fail').map((r) => r.rule.id)).toEqual([]);
  }, 60_000);
});
