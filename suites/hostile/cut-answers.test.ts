/**
 * An answer apicert could not read whole (cut at a body cap, a stream it stopped reading) decides
 * nothing its cut part holds: a rule with such an exchange and no failure is never a pass in an
 * active run (inconclusive: it sent that request to see the answer), except over a shared
 * provocation's hundreds of cases (the generated and catalogue runs), which are a sample as the
 * run's journal is; and in a recording passes only
 * on the exchanges it judged whole, saying which it could not read (untestable when none). What was
 * read (a status) still decides what it alone decides: a 200 to a request that must be refused
 * fails, however long its body.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minimalTurn } from '../../scenarios/v1/turns.ts';
import { turnStream } from '../../src/checks/v1/execute/turn.ts';
import { judgeRecording } from '../../src/passive/judge.ts';
import { parseProfile } from '../../src/profile/load.ts';
import { Inconclusive, judgeOwnExchanges, runJudgement, type Exchange } from '../../src/rule/index.ts';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { startFake, type RunningFake } from '../../src/fake/server.ts';
import { v1Recording } from '../passive/v1-recording.ts';
import { checkContextStub } from '../support/check-context-stub.ts';

const BASE = 'https://fabric.example.com';
const TOKEN = 'service_sk_cutanswers0123456789abcdef01';
const AUTH = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
const { journal, verdicts } = v1Recording(BASE, TOKEN, {});
const TURN_PROFILE = parseProfile({ target: BASE, credentials: [{ name: 'full', token: TOKEN, surfaces: ['v1'], scopes: ['runs:read', 'runs:write'], principal: 'alice', tenant: 't1' }] }, 'test profile');

const turn = { method: 'POST', path: '/v1/execute', credential: 'full', requestHeaders: { ...AUTH, accept: 'text/event-stream' }, requestBody: JSON.stringify({ ...minimalTurn, requestId: 'req1' }) };
const event = (seq: number, type: string) => `id: ${seq}\nevent: ${type}\ndata: ${JSON.stringify({ apiVersion: 'v1', event_id: `evt_${seq}`, run_id: 'run_1', sequence: seq, type, ...(type === 'request.accepted' ? { replayed: false } : {}) })}\n\n`;
const whole = { status: 200, responseHeaders: { 'content-type': 'text/event-stream' }, responseBody: event(1, 'request.accepted') + event(2, 'run.completed') };
// One `data:` line the recorder cut long before it ended: no event at all was read.
const cut = { status: 200, responseHeaders: { 'content-type': 'text/event-stream' }, responseBody: `data: ${'x'.repeat(4096)}`, responseBodyTruncated: true };

describe('v1.execute.turn.stream on a stream cut before any event', () => {
  it('a whole turn stream ending at its terminal event passes (the case the cut one is compared with)', async () => {
    expect((await verdicts(journal([{ ...turn, ...whole }]), ['v1.execute.turn.stream']))['v1.execute.turn.stream']).toBe('pass');
  });

  it('a recording of only the cut stream is untestable, not a pass on its 200 and content type', async () => {
    expect((await verdicts(journal([{ ...turn, ...cut }]), ['v1.execute.turn.stream']))['v1.execute.turn.stream']).toBe('untestable');
  });

  it('a whole stream beside the cut one: a recording passes on the whole one and says the cut one was not judged', async () => {
    const judged = await judgeRecording(journal([{ ...turn, ...whole }, { ...turn, ...cut }]), { surfaces: ['v1'], patterns: ['v1.execute.turn.stream'], profile: TURN_PROFILE, env: {} });
    const result = judged.results.find((r) => r.rule.id === 'v1.execute.turn.stream')!;
    expect(result.verdict, result.reason).toBe('pass');
    expect(result.observations.find((o) => o.subject.startsWith('exchanges not judged'))?.value).toMatch(/^1: .*POST \/v1\/execute/);
  });

  it('a whole stream beside the cut one: an active run, which sent both to see them, is inconclusive', () => {
    const ctx = { check: (held: unknown) => Boolean(held), observe: () => undefined };
    expect(() => runJudgement(ctx as never, turnStream.judgement!, journal([{ ...turn, ...whole }, { ...turn, ...cut }]), { source: 'active', profile: TURN_PROFILE })).toThrow(Inconclusive);
  });

  it('a shared provocation (hundreds of cases, each judged on its own) passes on its whole exchanges and says which it could not read, as judge-traffic of them does', () => {
    // Old code: inconclusive, so a deployment with ~1 MB unpaged listings, whose answers the check's bounded journal let go, left the generated rules inconclusive in certify and passed in judge-traffic.
    const observed: Array<[string, unknown]> = [];
    const ctx = { ...checkContextStub({ observe: (subject, value) => observed.push([subject, value]) }), profile: TURN_PROFILE };
    const shared = journal([{ ...turn, ...whole }, { ...turn, ...cut }]);
    expect(() => judgeOwnExchanges(ctx as never, turnStream.judgement!, shared)).not.toThrow();
    expect(observed.find(([subject]) => subject.startsWith('exchanges not judged: apicert kept or read only a part'))?.[1]).toMatch(/^1: .*POST \/v1\/execute/);
    // Its own exchanges, not a shared run's: still inconclusive.
    expect(() => judgeOwnExchanges({ ...ctx, http: { exchanges: shared, record: () => 0 } } as never, turnStream.judgement!)).toThrow(Inconclusive);
  });

  it('a failure beside a cut stream still fails', async () => {
    const broken = { ...whole, responseBody: event(1, 'request.accepted') };
    expect((await verdicts(journal([{ ...turn, ...broken }, { ...turn, ...cut }]), ['v1.execute.turn.stream']))['v1.execute.turn.stream']).toBe('fail');
  });

  it('in an active run the same judgement is inconclusive, naming the cut exchange', () => {
    const ctx = { check: (held: unknown) => Boolean(held), observe: () => undefined };
    const run = () => runJudgement(ctx as never, turnStream.judgement!, journal([{ ...turn, ...cut }]), { source: 'active', profile: TURN_PROFILE });
    expect(run).toThrow(Inconclusive);
    expect(run).toThrow(/POST \/v1\/execute/);
  });
});

/** A v8 recording with the cancellable fixture: create, cancel, then the mission's stream as the reader stopped it. */
describe('v8.missions.cancel.cancelled on a stream apicert stopped reading', () => {
  const V8 = 'https://gateway.example.com';
  const V8_TOKEN = 'tok-cut-answers-000000001';
  const RUN = '0190a8f0-1c2d-7e3f-8a4b-5c6d7e8f9a0b';
  const body = { goalSpec: { task: 'long' }, resourceBudget: { maximumSteps: 10, maximumToolCalls: 0, maximumElapsedMs: 60_000, maximumParallelism: 1 } };
  const json = { 'content-type': 'application/json', 'x-service-contract-version': 'service-integration-gateway-v8.1' };
  const auth = { authorization: `Bearer ${V8_TOKEN}` };
  const profile = parseProfile(
    {
      target: V8,
      credentials: [{ name: 'all', token: V8_TOKEN, surfaces: ['v8'], scopes: ['missions:write', 'missions:read', 'traces:read'], principal: 'alice' }],
      fixtures: { v8: { missions: { cancellable: body } } },
    },
    'test profile',
  );
  const projection = (status: string) => JSON.stringify({ runId: RUN, status, sequence: 1, steps: [] });
  const mission = (seq: number, type: string) => `id: ${seq}\nevent: ${type}\ndata: ${JSON.stringify({ runId: RUN, sequence: seq, type, traceId: null })}\n\n`;
  const exchanges = (stream: Partial<Exchange>): Exchange[] =>
    [
      { method: 'POST', path: '/v8/missions', requestHeaders: { ...auth, 'content-type': 'application/json', 'idempotency-key': 'apicert-cut-key-000000001' }, requestBody: JSON.stringify(body), status: 202, responseHeaders: json, responseBody: projection('running') },
      { method: 'POST', path: `/v8/missions/${RUN}/cancel`, requestHeaders: { ...auth, 'idempotency-key': 'apicert-cut-key-000000002' }, status: 202, responseHeaders: json, responseBody: '' },
      { method: 'GET', path: `/v8/missions/${RUN}/events`, requestHeaders: auth, status: 200, responseHeaders: { 'content-type': 'text/event-stream' }, ...stream },
    ].map((e, i) => ({ index: i, startedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(), durationMs: 10, url: `${V8}${e.path}`, ...e }) as Exchange);
  const verdict = async (stream: Partial<Exchange>) => {
    const { results } = await judgeRecording(exchanges(stream), { surfaces: ['v8'], patterns: ['v8.missions.cancel.cancelled'], profile, env: {} });
    return results.find((r) => r.rule.id === 'v8.missions.cancel.cancelled')!;
  };

  it('a stream that ends at mission.cancelled passes; one the server ended without a terminal event fails', async () => {
    expect((await verdict({ responseBody: mission(1, 'mission.step.started') + mission(2, 'mission.cancelled'), streamEnd: 'server' })).verdict).toBe('pass');
    expect((await verdict({ responseBody: mission(1, 'mission.step.started'), streamEnd: 'server' })).verdict).toBe('fail');
  });

  it.each(['timeout', 'byte-limit', 'event-limit'] as const)('a stream the reader stopped (%s) before any terminal event is not said to have ended: inconclusive (apicert\'s own bound, as certify), not a failure', async (streamEnd) => {
    const r = await verdict({ responseBody: mission(1, 'mission.step.started'), streamEnd });
    expect(r.verdict, JSON.stringify(r.reason)).toBe('inconclusive');
    expect(r.reason ?? '').not.toMatch(/ended with no terminal event/);
  });
});

/** A target answering 200 with a body past the probe's cap to everything (SSE to /v1/execute): what the status decides, it decides. */
describe('certifying a target that answers 200 with an over-long body to everything', () => {
  let fake: RunningFake;
  let server: Server;
  let dir: string;
  // Just past the probe's 2 MiB cap, built once: the catalogue sends some 150 cases within its check's 120 s.
  const BODY = 2 * 1024 * 1024 + 4096;
  const SSE = Buffer.from(`data: ${'x'.repeat(BODY)}`);
  const JSON_BODY = Buffer.from(`[${'1,'.repeat(BODY / 2)}1]`);

  beforeAll(async () => {
    fake = await startFake({});
    server = createServer((req, res) => {
      req.resume();
      res.on('error', () => undefined);
      const sse = (req.url ?? '').startsWith('/v1/execute');
      res.writeHead(200, { 'content-type': sse ? 'text/event-stream' : 'application/json' });
      // One `data:` line (no event ends) or one JSON array, longer than the probe's 2 MiB cap.
      res.end(sse ? SSE : JSON_BODY);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    dir = mkdtempSync(join(tmpdir(), 'apicert-cut-answers-'));
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await fake.close();
  });

  it('fails the catalogue refusal rules on their 200s and passes no turn stream it could not read to its end', { timeout: 240_000 }, async () => {
    const real = embeddedProfile(fake);
    const profile = { ...real, target: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, safety: { ...real.safety, requestTimeoutMs: 5_000, streamTimeoutMs: 3_000, streamCloseGraceMs: 500 } };
    const profilePath = join(dir, 'profile.json');
    writeFileSync(profilePath, JSON.stringify(profile), { mode: 0o600 });
    // v1.catalogue.error-status is the same judgement (catalogueJudgement) over /v1: one surface keeps the run inside the check's 120 s.
    const rules = ['v1.execute.turn.stream', 'v8.catalogue.error-status'];
    const out = join(dir, 'reports');
    // Not spawnSync: the target answers from this very process.
    const child = spawn(process.execPath, [new URL('../../bin/apicert.js', import.meta.url).pathname, 'certify', '--profile', profilePath, '--out', out, '--rules', rules.join(','), '--seed', '7', '--deadline', '200s', '--quiet'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const killer = setTimeout(() => child.kill('SIGKILL'), 230_000);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    clearTimeout(killer);
    const context = `exit ${code}: ${stderr.slice(-800)}`;
    const report = JSON.parse(readFileSync(join(out, 'latest', 'report.json'), 'utf8')) as { rules: Array<{ id: string; verdict: string; reason?: string }> };
    const byId = Object.fromEntries(report.rules.map((r) => [r.id, r]));
    expect(byId['v1.execute.turn.stream']?.verdict, `${JSON.stringify(byId['v1.execute.turn.stream'])} ${context}`).toBe('inconclusive');
    expect(byId['v1.execute.turn.stream']?.reason ?? '').toMatch(/could not be read whole/);
    for (const id of ['v8.catalogue.error-status']) {
      const r = byId[id];
      expect(r?.verdict, `${JSON.stringify(r)} ${context}`).not.toBe('pass');
      // On a loaded machine the check's own 120 s bound may stop it first (inconclusive, saying so); else the 200s fail it.
      if (r?.verdict === 'inconclusive') expect(r.reason ?? '').toMatch(/did not finish within/);
      else {
        expect(r?.verdict, `${JSON.stringify(r)} ${context}`).toBe('fail');
        expect(r?.reason ?? '').toMatch(/answered 200, not a refusal/);
      }
    }
  });
});
