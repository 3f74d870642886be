/**
 * Certify as conclusive as judge-traffic of its own recording under a per-principal rate limit
 * (Fastify audit s26 F3, F4; Limits: "A per-principal rate limit exists (`429`). Its numeric values:
 * not shown."):
 * - a rule of the whole run (v8.contract.version-header) whose own setup the limiter stopped is judged
 *   over the run's exchanges, as judge-traffic judges them; only when that judges nothing does the stop stand;
 * - the single reads (coverage, certificates, goals, the principal-from-token create) wait out one 429 and
 *   send again, as the other /v8 checks do;
 * - "setup failed" names the limiter when some of the check's requests were answered 429;
 * - v8.missions.events.after-terminal's look at a resume past the end is an observation: a resume whose
 *   headers never come leaves the reads it judged standing.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { startFake, type RunningFake } from '../../src/fake/server.ts';
import { TIGHT_TIER } from '../../src/fake/v8/rate-limit.ts';
import { defineRule, Inconclusive, judgeOwnExchanges, type Exchange, type Judgement, type RuleResult } from '../../src/rule/index.ts';
import { certify } from '../../src/runner/certify.ts';
import { modelProxy, type Hook, type ModelProxy } from '../harness/model-proxy.ts';
import { checkContextStub } from '../support/check-context-stub.ts';

let running: Array<RunningFake | ModelProxy> = [];
afterEach(async () => {
  await Promise.all(running.map((r) => r.close()));
  running = [];
});

const CONTRACT = { 'x-service-contract-version': 'service-integration-gateway-v8.1' };
const LIMITED = {
  status: 429,
  headers: { 'retry-after': '0', ...CONTRACT },
  json: { type: 'https://errors.example/rate-limited', title: 'rate limited', status: 429, detail: 'slow down', requestId: randomUUID() },
};

async function through(hook: Hook, patterns: string[], safety: Record<string, number> = {}): Promise<Record<string, RuleResult>> {
  const fake = await startFake();
  const proxy = await modelProxy(fake.baseUrl, hook);
  running.push(proxy, fake);
  const profile = embeddedProfile(fake);
  const { results } = await certify({ profile: { ...profile, target: proxy.url, safety: { ...profile.safety, ...safety } }, patterns, seed: 7 });
  return Object.fromEntries(results.map((r) => [r.rule.id, r]));
}

const creates = (req: { method: string; path: string }) => req.method === 'POST' && req.path === '/v8/missions';

describe('a rule of the whole run whose own setup the limiter stopped', () => {
  it('is judged over the run’s exchanges: v8.contract.version-header passes when every create is refused', async () => {
    // Old code: inconclusive ("creating the "succeeds" fixture mission was answered 429 twice"), though every answer of the run carried the header.
    const by = await through((req) => (creates(req) ? { answer: LIMITED } : undefined), ['v8.coverage.shape', 'v8.contract.version-header']);
    const header = by['v8.contract.version-header']!;
    expect(header.verdict, header.reason).toBe('pass');
    expect(header.observations.find((o) => o.subject.startsWith('its own requests were stopped short'))?.value).toMatch(/answered 429 twice/);
  });

  it('fails over the run’s exchanges when another check’s answer lacks the header', async () => {
    const by = await through(async (req, up) => {
      if (creates(req)) return { answer: LIMITED };
      if (req.path !== '/v8/coverage') return undefined;
      const answer = await up(req.method, req.path, req.headers, req.body);
      const headers = Object.fromEntries(Object.entries(answer.headers).filter(([k]) => k !== 'x-service-contract-version' && k !== 'content-length' && k !== 'transfer-encoding')) as Record<string, string>;
      return { answer: { status: answer.status, headers, body: answer.body.toString() } };
    }, ['v8.coverage.shape', 'v8.contract.version-header']);
    const header = by['v8.contract.version-header']!;
    expect(header.verdict, header.reason).toBe('fail');
    expect(header.reason).toMatch(/GET \/v8\/coverage: x-service-contract-version is missing/);
  });

  it('keeps the stop when its judgement over the run judged nothing, and a rule not of the whole run keeps it too', async () => {
    const nothing: Judgement = { record: 'nothing', judge: () => undefined };
    const stop = new Inconclusive('the limiter stopped the setup');
    const base = { surface: 'v8' as const, title: 't', level: 'required' as const, destructive: 'read' as const, spec: { document: 'v8-integration-gateway.md' as const, section: 'Limits', quote: 'q' } };
    const provoke = () => Promise.reject(stop);
    const ctx = (judgesTheRun: boolean) => checkContextStub({ judgesTheRun, runJournal: { exchanges: [] } });
    const whole = defineRule({ ...base, id: 'v8.test.whole-run', judgesTheRun: true, judgement: nothing, provoke });
    await expect(whole.check(ctx(true) as never)).rejects.toBe(stop);
    const own = defineRule({ ...base, id: 'v8.test.own', judgement: nothing, provoke });
    await expect(own.check(ctx(false) as never)).rejects.toBe(stop);
  });
});

describe('a single read the limiter refuses once', () => {
  it('is sent again after the wait the 429 asks for, and judged: coverage, certificates, goals, principal-from-token, capability search', async () => {
    // Old code: each check whose one request met the 429 was inconclusive ("the rate limiter refused every request this check sent (1, answered 429)").
    const refused = new Set<string>();
    const firstOfEach: Hook = (req) => {
      const key = `${req.method} ${req.path.split('?')[0]}`;
      if (!['GET /v8/coverage', 'GET /v8/world-model/certificates', 'GET /v8/context-twin/goals', 'POST /v8/missions', 'POST /v8/capabilities/search'].includes(key) || refused.has(key)) return undefined;
      refused.add(key);
      return { answer: LIMITED };
    };
    const rules = ['v8.coverage.shape', 'v8.coverage.contract-version', 'v8.certificates.shape', 'v8.certificates.health', 'v8.goals.shape', 'v8.goals.compartment-boundary', 'v8.principal.from-token', 'v8.capabilities.search.ok'];
    const by = await through(firstOfEach, rules);
    expect(refused.size).toBe(5);
    for (const id of rules) expect([id, by[id]?.verdict, by[id]?.reason]).toEqual([id, 'pass', undefined]);
  });
});

describe('the fake under v8.rate-limit/tight-limit (150 requests per 5 s per principal, Retry-After), its window used up', () => {
  it('the single reads and the version header pass, each past a 429', async () => {
    // Old code: the single reads were inconclusive ("the rate limiter refused every request this check sent (1, answered 429)"),
    // as certify of a Fastify build limiting each principal so was where judge-traffic of its recording passed.
    const fake = await startFake({ variants: ['v8.rate-limit/tight-limit'] });
    running.push(fake);
    const profile = embeddedProfile(fake);
    const principals = new Set(profile.credentials.filter((c) => c.surfaces.includes('v8') && c.principal !== undefined).map((c) => c.principal!));
    // Every principal's window used up just before the run: each check's first request meets the limit.
    for (const principal of principals) for (let i = 0; i < TIGHT_TIER.requests; i += 1) fake.context.rateLimiter.v8(principal, Date.now(), TIGHT_TIER);
    const rules = ['v8.coverage.shape', 'v8.coverage.contract-version', 'v8.certificates.shape', 'v8.goals.shape', 'v8.principal.from-token', 'v8.contract.version-header', 'v8.memory.query.principal-403'];
    const { results } = await certify({ profile, patterns: rules, seed: 7 });
    for (const r of results) expect([r.rule.id, r.verdict, r.reason]).toEqual([r.rule.id, 'pass', undefined]);
    const refusals = results.flatMap((r) => r.evidence.filter((e) => e.response?.status === 429));
    expect(refusals.length).toBeGreaterThan(0);
  });
});

describe('"setup failed" when the limiter refused some of the check’s requests', () => {
  it('names the limiter', () => {
    const answered = (index: number, status: number): Exchange => ({ index, method: 'GET', path: '/v8/coverage', url: 'http://x/v8/coverage', requestHeaders: {}, status, responseHeaders: {} }) as Exchange;
    const own = [answered(0, 200), answered(1, 429)];
    const ctx = checkContextStub({ exchanges: own });
    // Old code: "setup failed: the check's requests produced no exchange this rule judges (a read)", nothing of the 429.
    expect(() => judgeOwnExchanges(ctx as never, { record: 'a read', judge: () => undefined })).toThrow(/^setup failed: .*\(a read\); the rate limiter refused 1 of the 2 requests it sent \(answered 429\)/);
  });
});

describe('v8.missions.events.after-terminal and a resume past the end whose headers never come', () => {
  it('passes on the reads it judged, observing the resume that was not answered', async () => {
    // Old code: inconclusive ("UND_ERR_HEADERS_TIMEOUT: no response headers within ..."), as the Fastify build whose resumed stream past the end flushes no headers.
    const by = await through((req) => (req.path.endsWith('/events') && req.headers['last-event-id'] !== undefined ? new Promise<never>(() => undefined) : undefined), ['v8.missions.events.after-terminal'], { requestTimeoutMs: 1_000 });
    const rule = by['v8.missions.events.after-terminal']!;
    expect(rule.verdict, rule.reason).toBe('pass');
    expect(rule.observations.find((o) => o.subject === 'a resume after the terminal event was not answered')?.value).toMatch(/GET \/v8\/missions\/.*\/events/);
  });
});
