/**
 * Legal choices of a deployment that the model-based rules (v1.runs.lifecycle.model,
 * v8.missions.lifecycle.model) must accept, each taken by a loopback proxy in front of the fake
 * (the fake has no variant for them): a rate limiter refusing some of the model's requests, an
 * asynchronous cancel, slow or held stream headers, a terminal check before a signal's idempotency
 * record, a wrong digest that cancels the run, a lenient cursor parser with the profile's stale
 * cursor, and a profile whose approval event the target never sends.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { refusalWaitMs } from '../../src/checks/stateful/limiter.ts';
import { serialization } from '../../src/checks/v8/missions/lifecycle-model.ts';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { startFake, type RunningFake } from '../../src/fake/server.ts';
import type { Profile } from '../../src/profile/schema.ts';
import type { RuleResult } from '../../src/rule/index.ts';
import { certify } from '../../src/runner/certify.ts';
import { modelProxy, type Hook, type ModelProxy, type Passing } from './model-proxy.ts';

const V8_HEADERS = { 'x-service-contract-version': 'service-integration-gateway-v8.1' };
const TERMINAL = new Set(['succeeded', 'failed', 'cancelled']);

function problem(path: string, status: number, code: string, extra: Record<string, unknown> = {}): { status: number; headers: Record<string, string>; json: unknown } {
  const v1 = path.startsWith('/v1');
  const json = v1
    ? { type: `https://errors.example/${code}`, title: code, status, code, retryable: status === 429, detail: code, ...extra }
    : { type: `https://errors.example/${code}`, title: code, status, code, detail: code, requestId: randomUUID() };
  return { status, headers: v1 ? {} : V8_HEADERS, json };
}

let running: Array<RunningFake | ModelProxy> = [];
afterEach(async () => {
  await Promise.all(running.map((r) => r.close()));
  running = [];
});

interface Run {
  results: RuleResult[];
  proxy: ModelProxy;
}

async function through(hook: Hook, rules: string[], seed: number, adjust: ((p: Profile) => Profile) | Partial<Profile['safety']> = {}): Promise<Run> {
  const fake = await startFake();
  const proxy = await modelProxy(fake.baseUrl, hook);
  running.push(proxy, fake);
  const base: Profile = { ...embeddedProfile(fake), target: proxy.url };
  const profile = typeof adjust === 'function' ? adjust(base) : { ...base, safety: { ...base.safety, ...adjust } };
  const { results } = await certify({ profile, rules, seed });
  return { results, proxy };
}

const models = (runs: number) => (p: Profile): Profile => ({ ...p, safety: { ...p.safety, modelRuns: runs } });

function verdict(run: Run, id: string): [string, string] {
  const r = run.results.find((x) => x.rule.id === id);
  return [r?.verdict ?? 'missing', r?.reason?.split('\n')[0] ?? ''];
}

function observed(run: Run, id: string, subject: string): unknown[] {
  return (run.results.find((r) => r.rule.id === id)?.observations ?? []).filter((o) => o.subject === subject).map((o) => o.value);
}

const modelPath = (p: string): boolean => p.startsWith('/v1/execute') || p.startsWith('/v1/runs') || p.startsWith('/v8/missions');

describe('a rate limiter refusal judges nothing (v1 Errors: 429 rate_limited retryable, 503 fail-closed; v8: "A per-principal rate limit exists (429)")', () => {
  it('the wait before the one resend follows Retry-After, else retryAfterMs, and is bounded', () => {
    expect(refusalWaitMs({ headers: { 'retry-after': '1' } })).toBe(1000);
    expect(refusalWaitMs({ headers: {}, json: { retryAfterMs: 250 } })).toBe(250);
    expect(refusalWaitMs({ headers: { 'retry-after': '120' } })).toBe(2000);
    expect(refusalWaitMs({ headers: {} })).toBe(1000);
  });

  it('every fifth request of the models refused 429 (sent again, it is taken): both models pass', async () => {
    let n = 0;
    const hook: Hook = (req) => {
      if (!modelPath(req.path)) return undefined;
      n += 1;
      if (n % 5 !== 0) return undefined;
      // /v1 names the wait in the body (retryAfterMs), /v8 in Retry-After.
      return { answer: req.path.startsWith('/v1') ? problem(req.path, 429, 'rate_limited', { retryAfterMs: 0 }) : { ...problem(req.path, 429, 'rate_limited'), headers: { ...V8_HEADERS, 'retry-after': '0' } } };
    };
    const run = await through(hook, ['v1.runs.lifecycle.model', 'v8.missions.lifecycle.model'], 1, { modelRuns: 5 });
    expect(run.proxy.answered.get(429)).toBeGreaterThan(10);
    expect(verdict(run, 'v1.runs.lifecycle.model')).toEqual(['pass', '']);
    expect(verdict(run, 'v8.missions.lifecycle.model')).toEqual(['pass', '']);
  }, 120_000);

  it('a limiter refusing every request: both models are inconclusive naming the rate limiter, never a pass or a fail', async () => {
    const hook: Hook = (req) => (modelPath(req.path) ? { answer: { ...problem(req.path, 429, 'rate_limited'), headers: { ...(req.path.startsWith('/v8') ? V8_HEADERS : {}), 'retry-after': '0' } } } : undefined);
    const run = await through(hook, ['v1.runs.lifecycle.model', 'v8.missions.lifecycle.model'], 1, { modelRuns: 3 });
    for (const id of ['v1.runs.lifecycle.model', 'v8.missions.lifecycle.model']) {
      const [v, reason] = verdict(run, id);
      expect([id, v]).toEqual([id, 'inconclusive']);
      expect(reason).toMatch(/rate limiter \(429 or 503\) ended every one of the 3 sequence/);
    }
  }, 120_000);
});

/**
 * "Cancel request body and response body: not shown": this deployment answers a cancel 202 at once
 * and cancels the mission `delayMs` later; while a cancel is pending it refuses another cancel (409)
 * and, with `refuseSignals`, signals (409).
 */
function asyncCancel(delayMs: number, refuseSignals: boolean): Hook {
  const pending = new Set<string>();
  const byKey = new Map<string, string>();
  return async (req: Passing, up) => {
    const signal = /^\/v8\/missions\/([^/]+)\/signals$/.exec(req.path);
    if (refuseSignals && req.method === 'POST' && signal && pending.has(signal[1]!)) return { answer: problem(req.path, 409, 'cancellation_pending') };
    const cancel = /^\/v8\/missions\/([^/]+)\/cancel$/.exec(req.path);
    if (req.method !== 'POST' || !cancel) return undefined;
    const id = cancel[1]!;
    const key = String(req.headers['idempotency-key']);
    const stored = byKey.get(key);
    if (stored) return { answer: { status: 202, headers: { ...V8_HEADERS, 'content-type': 'application/json' }, body: stored } };
    if (pending.has(id)) return { answer: problem(req.path, 409, 'cancellation_pending') };
    // Pending from the first cancel to arrive: of two racing cancels the later one is refused.
    pending.add(id);
    const read = await up('GET', `/v8/missions/${id}`, { authorization: req.headers.authorization, accept: 'application/json' });
    if (read.status !== 200 || TERMINAL.has(JSON.parse(read.body.toString()).status)) {
      pending.delete(id);
      return undefined;
    }
    const body = JSON.stringify({ runId: id, cancellation: 'pending' });
    byKey.set(key, body);
    setTimeout(() => {
      void up('POST', req.path, { authorization: req.headers.authorization, 'idempotency-key': randomUUID().replaceAll('-', '') })
        .catch(() => undefined)
        .finally(() => pending.delete(id));
    }, delayMs);
    return { answer: { status: 202, headers: { ...V8_HEADERS, 'content-type': 'application/json' }, body } };
  };
}

describe('v8: a refusal while a cancel is pending is not proof the mission ended', () => {
  it("a race's answers are judged accepted first, refusals last", () => {
    expect(serialization(['cancel', 'cancel'], [{ status: 409 }, { status: 202 }])).toEqual([1, 0]);
    expect(serialization(['signal', 'cancel', 'replay-create'], [{ status: 409 }, { status: 202 }, { status: 202 }])).toEqual([2, 1, 0]);
    expect(serialization(['cancel', 'signal'], [{ status: 202 }, { status: 200 }])).toEqual([1, 0]);
  });

  it('an asynchronous cancel, refusing a second cancel while pending: the model passes', async () => {
    const run = await through(asyncCancel(4000, false), ['v8.missions.lifecycle.model'], 2);
    expect(run.proxy.answered.get(409)).toBeGreaterThan(0);
    expect(verdict(run, 'v8.missions.lifecycle.model')).toEqual(['pass', '']);
  }, 120_000);

  it('an asynchronous cancel, refusing signals while pending: the model passes', async () => {
    const run = await through(asyncCancel(3000, true), ['v8.missions.lifecycle.model'], 1);
    expect(run.proxy.answered.get(409)).toBeGreaterThan(0);
    expect(verdict(run, 'v8.missions.lifecycle.model')).toEqual(['pass', '']);
  }, 120_000);
});

describe('stream headers: no sentence sets a time to the first byte', () => {
  it('1.2 s before every event stream answers (within safety.requestTimeoutMs): both models pass, as the resume rules do', async () => {
    const hook: Hook = (req) => (req.method === 'GET' && /\/events$/.test(req.path.split('?')[0]!) ? { delayMs: 1200 } : undefined);
    const run = await through(hook, ['v1.runs.lifecycle.model', 'v8.missions.lifecycle.model'], 1, { modelRuns: 2 });
    expect(verdict(run, 'v1.runs.lifecycle.model')).toEqual(['pass', '']);
    expect(verdict(run, 'v8.missions.lifecycle.model')).toEqual(['pass', '']);
  }, 120_000);

  it('a /v1 run stream that holds its headers until its first event: the v1 model passes', async () => {
    const hook: Hook = (req) => (req.method === 'GET' && /^\/v1\/runs\/[^/]+\/events/.test(req.path) ? { deferHeaders: true } : undefined);
    const run = await through(hook, ['v1.runs.lifecycle.model'], 1, { requestTimeoutMs: 1500 });
    // Some reads had nothing to send (a parked run resumed after its last event): their headers never came.
    expect(run.proxy.heldUntilClosed()).toBeGreaterThan(0);
    expect(verdict(run, 'v1.runs.lifecycle.model')).toEqual(['pass', '']);
  }, 120_000);
});

it('v8: a signal replayed to a mission that has since ended may be answered 409 (terminal state checked before the idempotency record)', async () => {
  const hook: Hook = async (req, up) => {
    const signal = /^\/v8\/missions\/([^/]+)\/signals$/.exec(req.path);
    if (req.method !== 'POST' || !signal) return undefined;
    const read = await up('GET', `/v8/missions/${signal[1]}`, { authorization: req.headers.authorization, accept: 'application/json' });
    return read.status === 200 && TERMINAL.has(JSON.parse(read.body.toString()).status) ? { answer: problem(req.path, 409, 'mission_terminal') } : undefined;
  };
  const run = await through(hook, ['v8.missions.lifecycle.model'], 3, { modelRuns: 6 });
  expect(verdict(run, 'v8.missions.lifecycle.model')).toEqual(['pass', '']);
  expect(observed(run, 'v8.missions.lifecycle.model', 'a replayed signal to a mission that may have ended answered')).toContain(409);
}, 120_000);

it('v1: a wrong digest that ends the run with request.cancelled passes the model as it passes v1.runs.approve.digest-binds', async () => {
  const hook: Hook = async (req, up) => {
    const approve = /^\/v1\/runs\/([^/]+)\/approve$/.exec(req.path);
    if (req.method !== 'POST' || !approve) return undefined;
    const a = await up(req.method, req.path, req.headers, req.body);
    // This deployment cancels a run whose approval carried a digest of another action.
    if (a.status === 409 && a.body.toString().includes('does not match')) await up('POST', `/v1/runs/${approve[1]}/cancel`, { authorization: req.headers.authorization });
    return { answer: { status: a.status, headers: { 'content-type': String(a.headers['content-type']) }, body: a.body.toString() } };
  };
  const run = await through(hook, ['v1.runs.lifecycle.model', 'v1.runs.approve.digest-binds'], 1);
  expect(verdict(run, 'v1.runs.approve.digest-binds')).toEqual(['pass', '']);
  expect(verdict(run, 'v1.runs.lifecycle.model')).toEqual(['pass', '']);
}, 120_000);

it("v8: with the profile's stale cursor the model judges that cursor (409), as replay-window-409 does, not a made-up one a lenient parser may resume", async () => {
  const hook: Hook = (req) => {
    const cursor = req.headers['last-event-id'];
    // Cursors are read up to the first character that cannot belong to one.
    if (typeof cursor === 'string' && cursor.includes('-never-issued-')) req.headers['last-event-id'] = cursor.split('-never-issued-')[0];
    return undefined;
  };
  const stale = (p: Profile): Profile => ({ ...models(6)(p), fixtures: { ...p.fixtures, v8: { ...p.fixtures.v8, staleEventCursor: 'c0.00000000' } } });
  const run = await through(hook, ['v8.missions.lifecycle.model', 'v8.missions.events.replay-window-409'], 1, stale);
  expect(verdict(run, 'v8.missions.events.replay-window-409')).toEqual(['pass', '']);
  expect(verdict(run, 'v8.missions.lifecycle.model')).toEqual(['pass', '']);
}, 120_000);

it('v1: a profile whose approval event the target never sends: the model says no approve was judged, naming fixtures.v1.approval', async () => {
  const misnamed = (p: Profile): Profile => models(3)({ ...p, fixtures: { ...p.fixtures, v1: { ...p.fixtures.v1, approval: { ...p.fixtures.v1.approval!, event: 'approval.pending' } } } });
  const run = await through(() => undefined, ['v1.runs.lifecycle.model'], 1, misnamed);
  const result = run.results.find((r) => r.rule.id === 'v1.runs.lifecycle.model');
  const note = result?.observations.find((o) => o.subject === 'never judged: approve');
  expect(note?.note).toMatch(/approval\.pending event .*fixtures\.v1\.approval/);
}, 120_000);
