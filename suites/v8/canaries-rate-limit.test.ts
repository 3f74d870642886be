/**
 * v8.redaction.canaries under a per-principal rate limit (Hono audit s27-v8 F2; Limits: "A
 * per-principal rate limit exists (`429`). Its numeric values: not shown."): a read of the canary
 * mission's events or traces the limiter refuses is waited out once, as the other /v8 checks' reads
 * are; refused again, the rule is inconclusive naming the limit, never failed for "no trace was read
 * back". A canary already seen coming back stays a failure whatever the limiter stops afterwards.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { startFake, type FakeOptions, type RunningFake } from '../../src/fake/server.ts';
import type { RuleResult } from '../../src/rule/index.ts';
import { certify } from '../../src/runner/certify.ts';
import { modelProxy, type Hook, type ModelProxy } from '../harness/model-proxy.ts';

let running: Array<RunningFake | ModelProxy> = [];
afterEach(async () => {
  await Promise.all(running.map((r) => r.close()));
  running = [];
});

const RULE = 'v8.redaction.canaries';
const LIMITED = {
  status: 429,
  headers: { 'retry-after': '0', 'x-service-contract-version': 'service-integration-gateway-v8.1' },
  json: { type: 'https://errors.example/rate-limited', title: 'Too Many Requests', status: 429, detail: 'rate limit for the principal', requestId: randomUUID() },
};

async function canaries(hook: Hook, fake: FakeOptions = {}, withWaits = true): Promise<{ result: RuleResult; proxy: ModelProxy }> {
  const target = await startFake(fake);
  const proxy = await modelProxy(target.baseUrl, hook);
  running.push(proxy, target);
  const profile = { ...embeddedProfile(target), target: proxy.url };
  if (!withWaits) {
    const { waits: _, ...missions } = profile.fixtures.v8.missions;
    profile.fixtures = { ...profile.fixtures, v8: { ...profile.fixtures.v8, missions } };
  }
  const { results } = await certify({ profile, patterns: [RULE], seed: 7 });
  expect(results.map((r) => r.rule.id)).toEqual([RULE]);
  return { result: results[0]!, proxy };
}

const eventStream = (req: { method: string; path: string }) => req.method === 'GET' && /^\/v8\/missions\/[^/]+\/events$/.test(req.path);
const traceRead = (req: { method: string; path: string }) => req.method === 'GET' && req.path.startsWith('/v8/traces/');

describe('v8.redaction.canaries and the per-principal rate limit', () => {
  it('is inconclusive naming the limit when every event stream it reads is refused again after the wait', async () => {
    // Old code: FAIL "no trace was read back, so the most likely echo of a goal was not examined" (the audit's rate-all run).
    const { result, proxy } = await canaries((req) => (eventStream(req) ? { answer: LIMITED } : undefined));
    expect(result.verdict, result.reason).toBe('inconclusive');
    expect(result.reason).toMatch(/^no trace was read back, .*: GET \/v8\/missions\/\{runId\}\/events .*answered 429 twice, the second time after the wait it asked for: the per-principal rate limit refused it \(429; "Its numeric values: not shown"\)/);
    expect(result.cases).toEqual([]);
    // Each stream was sent again once after the wait the 429 asked for.
    const streams = result.evidence.filter((e) => e.request.method === 'GET' && /\/events$/.test(e.request.url));
    expect(streams.length).toBeGreaterThanOrEqual(2);
    expect(streams.every((e) => e.response?.status === 429)).toBe(true);
    expect(proxy.answered.get(429)).toBe(streams.length);
    expect(result.observations.find((o) => o.subject === 'reads the rate limit refused')?.value).toEqual(expect.arrayContaining(['GET /v8/missions/{runId}/events']));
  });

  it('waits out one 429 on the stream and on each trace read, then judges what it read', async () => {
    // Old code: FAIL "no trace was read back" (the stream refused once was never sent again). Without the
    // "waits" fixture the goal mission's stream is the only one, so its traces are the only ones read.
    const refusedOnce = new Set<string>();
    const { result, proxy } = await canaries(
      (req) => {
        if ((!eventStream(req) && !traceRead(req)) || refusedOnce.has(req.path)) return undefined;
        refusedOnce.add(req.path);
        return { answer: LIMITED };
      },
      {},
      false,
    );
    expect([result.verdict, result.reason]).toEqual(['pass', undefined]);
    expect(proxy.answered.get(429)).toBe(refusedOnce.size);
    expect([...refusedOnce].filter((k) => k.startsWith('/v8/traces/')).length).toBeGreaterThan(0);
    const read = result.observations.find((o) => o.subject === 'read back')?.value as { traces: number };
    expect(read.traces).toBeGreaterThan(0);
  });

  it('fails on a canary that came back before the limiter stopped the check', async () => {
    // The fake echoes a secret-named goal field; the limiter then refuses the "waits" fixture's create twice.
    // Old code: inconclusive ("creating the "waits" fixture mission was answered 429 twice"), the echo already read not judged.
    const { result } = await canaries(
      (req) => (req.method === 'POST' && req.path === '/v8/missions' && !req.body.toString().includes('"apiKey"') ? { answer: LIMITED } : undefined),
      { faults: ['v8.redaction.canaries/secret-named-field'] },
    );
    expect(result.verdict, result.reason).toBe('fail');
    expect(result.reason).toMatch(/canary from goalSpec\.(apiKey|credentials\.password) came back in/);
    expect(result.reason).toMatch(/the check then stopped: creating the "waits" fixture mission was answered 429 twice/);
  });
});
