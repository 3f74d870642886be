/**
 * Two kinds of answer that say nothing of most rules that meet them (audit 140 F3, F4):
 * - a 429 of the per-principal rate limit (Limits: "A per-principal rate limit exists (`429`). Its
 *   numeric values: not shown."), which any request may meet: no verdict, sent again once after the
 *   wait it asks for, and inconclusive naming the limiter when it refuses again;
 * - an event whose data is not JSON (Events: "`data` | JSON payload specific to the type"): the
 *   failure of v8.missions.events.shape alone, not of every rule that read the stream.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { startFake, type RunningFake } from '../../src/fake/server.ts';
import type { RuleResult } from '../../src/rule/index.ts';
import { certify } from '../../src/runner/certify.ts';
import { eventsTraceId } from '../../src/checks/v8/missions/events.ts';
import { judgementCases } from '../support/judgement-cases.ts';
import { modelProxy, type Hook, type ModelProxy } from '../harness/model-proxy.ts';

let running: Array<RunningFake | ModelProxy> = [];
afterEach(async () => {
  await Promise.all(running.map((r) => r.close()));
  running = [];
});

const LIMITED = {
  status: 429,
  headers: { 'retry-after': '0', 'x-service-contract-version': 'service-integration-gateway-v8.1' },
  json: { type: 'https://errors.example/rate-limited', title: 'rate limited', status: 429, detail: 'slow down', requestId: randomUUID() },
};

async function through(hook: Hook, patterns: string[]): Promise<{ results: RuleResult[]; proxy: ModelProxy }> {
  const fake = await startFake();
  const proxy = await modelProxy(fake.baseUrl, hook);
  running.push(proxy, fake);
  const { results } = await certify({ profile: { ...embeddedProfile(fake), target: proxy.url }, patterns, seed: 7 });
  return { results, proxy };
}

const verdicts = (results: RuleResult[]) => Object.fromEntries(results.map((r) => [r.rule.id, r.verdict]));

describe('a 429 of the per-principal rate limit is no verdict', () => {
  const probes = ['v8.traces.get.unknown-404', 'v8.skills.get.unknown-404', 'v8.missions.get.unknown-404', 'v8.missions.events.unknown-404'];

  it('leaves the unknown-id probes inconclusive, naming the limiter, when it refuses them again after the wait', async () => {
    // These probes send nothing else: every read of a trace, a skill, a mission or its events is refused.
    const { results, proxy } = await through((req) => (/^\/v8\/(traces|skills|missions)\//.test(req.path) ? { answer: LIMITED } : undefined), probes);
    for (const r of results) {
      expect([r.rule.id, r.verdict]).toEqual([r.rule.id, 'inconclusive']);
      expect(r.reason).toMatch(/answered 429 twice, the second time after the wait it asked for: the per-principal rate limit refused it .*lower --max-rps/);
    }
    // Each probe was sent again once, after the wait the 429 asked for (the run may read a fixture too).
    expect(proxy.answered.get(429)).toBeGreaterThanOrEqual(2 * probes.length);
  });

  it('judges the answer sent after the wait when the limiter admits it then', async () => {
    const refused = new Set<string>();
    const { results } = await through((req) => {
      const kind = /^\/v8\/(traces|skills|missions)\//.exec(req.path)?.[1];
      if (req.method !== 'GET' || kind === undefined || refused.has(kind)) return undefined;
      refused.add(kind);
      return { answer: LIMITED };
    }, ['v8.traces.get.unknown-404', 'v8.skills.get.unknown-404', 'v8.missions.get.unknown-404']);
    expect(verdicts(results)).toEqual({ 'v8.traces.get.unknown-404': 'pass', 'v8.skills.get.unknown-404': 'pass', 'v8.missions.get.unknown-404': 'pass' });
  });

  it('holds resumes and the replay-window probe refused 429 to no answer', async () => {
    const { results } = await through((req) => (req.headers['last-event-id'] !== undefined ? { answer: LIMITED } : undefined), ['v8.missions.events.resume', 'v8.missions.events.replay-window-409']);
    expect(verdicts(results)).toEqual({ 'v8.missions.events.resume': 'inconclusive', 'v8.missions.events.replay-window-409': 'inconclusive' });
    for (const r of results) expect(r.reason).toMatch(/the per-principal rate limit refused it \(429.*lower --max-rps/);
  });

  it('judges the resumes the limiter admitted and lacks only those it refused', async () => {
    let resumes = 0;
    const { results } = await through((req) => (req.headers['last-event-id'] !== undefined && (resumes += 1) === 2 ? { answer: LIMITED } : undefined), ['v8.missions.events.resume']);
    expect(results.map((r) => [r.verdict, r.reason ?? ''])).toEqual([['pass', '']]);
  });

  it('names the limiter, not a failed setup, when it refuses a setup request again after the wait', async () => {
    // Memory queries whose entries the rule reads, the original of a signal replay pair, the canary mission's create.
    const rules = ['v8.memory.query.order', 'v8.memory.query.limits', 'v8.missions.signals.idempotency-conflict', 'v8.missions.signals.replay', 'v8.redaction.canaries'];
    const { results } = await through((req) => (req.method === 'POST' && (req.path === '/v8/memory/query' || req.path.endsWith('/signals') || (req.path === '/v8/missions' && req.body.toString().includes('"apiKey"'))) ? { answer: LIMITED } : undefined), rules);
    for (const r of results) {
      expect([r.rule.id, r.verdict]).toEqual([r.rule.id, 'inconclusive']);
      expect(r.reason).toMatch(/answered 429 twice, the second time after the wait it asked for: the per-principal rate limit refused it/);
      expect(r.reason).not.toMatch(/setup failed/);
    }
  });

  it('says the limiter refused the reads a skill and trace rule is owed, not that it judged nothing', async () => {
    const rules = ['v8.skills.get.ok', 'v8.traces.get.ok', 'v8.traces.get.resolves'];
    const { results } = await through((req) => (req.method === 'GET' && /^\/v8\/(skills|traces)\//.test(req.path) ? { answer: LIMITED } : undefined), rules);
    for (const r of results) {
      expect([r.rule.id, r.verdict]).toEqual([r.rule.id, 'inconclusive']);
      expect(r.reason).toMatch(/the per-principal rate limit refused it \(429/);
    }
  });

  it('holds a signal to a terminal mission refused 429 to no answer', async () => {
    const { results } = await through((req) => (req.method === 'POST' && req.path.endsWith('/signals') ? { answer: LIMITED } : undefined), ['v8.missions.signals.terminal-409']);
    expect(results.map((r) => r.verdict)).toEqual(['inconclusive']);
    expect(results[0]!.reason).toMatch(/rate limit refused it \(429/);
  });
});

describe('a limiter that refuses before the scope or the lookup is no failure of theirs', () => {
  it('scope-403 and other-principal-404 lack what the limiter refused', async () => {
    // The limiter answers where the API would have refused: no sentence orders it before or after the scope check or the lookup.
    const { results, proxy } = await through(async (req, up) => {
      if (!req.path.startsWith('/v8/missions') || req.path.endsWith('/events')) return undefined;
      const answer = await up(req.method, req.path, req.headers, req.body);
      if (answer.status === 403 || (answer.status === 404 && req.method === 'GET')) return { answer: LIMITED };
      return { answer: { status: answer.status, headers: Object.fromEntries(Object.entries(answer.headers).filter((e): e is [string, string] => typeof e[1] === 'string')), body: answer.body.toString() } };
    }, ['v8.missions.auth.scope-403', 'v8.missions.get.other-principal-404']);
    expect(proxy.answered.get(429)).toBeGreaterThan(0);
    // Their event streams (passed through) are judged; the refused reads and writes are lacked, not failed.
    expect(verdicts(results)).toEqual({ 'v8.missions.auth.scope-403': 'pass', 'v8.missions.get.other-principal-404': 'pass' });
  });
});

describe('an event whose data is not JSON fails v8.missions.events.shape alone', () => {
  // Every /v8 rule an active run has read a mission's stream for (audit 140 F4 listed them failing).
  const readers = ['v8.missions.events.*', 'v8.missions.budget.*', 'v8.missions.idempotency.replay', 'v8.missions.signals.terminal-409', 'v8.missions.states.*', 'v8.missions.time-limit.terminal', 'v8.traces.get.ok', 'v8.traces.get.resolves', 'v8.traces.get.completed-at', 'v8.redaction.canaries'];

  it('the others read what they need of the stream and pass', async () => {
    const { results } = await certify({ faults: ['v8.missions.events.shape/data-not-json'], patterns: readers, seed: 7 });
    expect(results.length).toBeGreaterThan(15);
    const shape = results.find((r) => r.rule.id === 'v8.missions.events.shape')!;
    expect(shape.verdict).toBe('fail');
    expect(shape.reason).toMatch(/event #\d+ \(mission\.started\) has data that is not JSON: under way/);
    const others = results.filter((r) => r !== shape && r.verdict !== 'pass').map((r) => [r.rule.id, r.verdict, r.reason]);
    expect(others).toEqual([]);
  }, 120_000);
});

describe('a step event whose data is not JSON is what v8.missions.events.trace-id lacks, not fails', () => {
  it('judges the step events it can read and names events.shape for the other', () => {
    const runId = '01890a5d-ac96-774b-bcce-b302099a8057';
    const stream = {
      method: 'GET',
      url: `http://gw.test/v8/missions/${runId}/events`,
      path: `/v8/missions/${runId}/events`,
      requestHeaders: { accept: 'text/event-stream' },
      status: 200,
      responseHeaders: { 'content-type': 'text/event-stream' },
      events: [
        { id: '1', event: 'mission.step.started', data: 'step one under way', atMs: 0 },
        { id: '2', event: 'mission.step.started', data: '{"traceId":"t-2","stepId":"s-2"}', atMs: 1 },
        { id: '3', event: 'mission.completed', data: '{}', atMs: 2 },
      ],
      streamEnd: 'server' as const,
    };
    expect(judgementCases(eventsTraceId.judgement!, [stream], undefined, 'recording')).toEqual([{ ok: true, reason: expect.any(String) }]);
  });
});
