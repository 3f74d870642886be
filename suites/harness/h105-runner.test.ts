/**
 * Audit helper-105's F5, F6 and F7 (an independent /v1 server written from the spec alone).
 *
 * F5: certify's first probe (GET /v8/missions/0000… without a credential, even with --surface v1) was
 * written to --har-out, and judge-traffic then failed five /v8 rules on a deployment without /v8.
 * The first probe now asks a path of a selected surface and is neither recorded nor in the run's
 * journal; judge-traffic takes --surface.
 *
 * F6: v1.catalogue.error-status passed with most of its stated cases answered only by a rate limiter,
 * while judge-traffic of the same recording said untestable. A limited case is now sent again after
 * the wait it asks for, and a case a limiter answered every time leaves its rules inconclusive (a
 * recording: untestable): one verdict in both modes.
 *
 * F7: the generated probe run is shared by its rules and runs under the check of the first to ask;
 * when that check's deadline stopped it, the others said "the check itself failed (a harness defect)".
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { startFake, type RunningFake } from '../../src/fake/server.ts';
import { judgeRecording } from '../../src/passive/judge.ts';
import { HarRecorder, hidingFor } from '../../src/passive/recorder.ts';
import { RequestBudget } from '../../src/probe/budget.ts';
import { createDispatcher } from '../../src/probe/client.ts';
import { Stopped } from '../../src/probe/transport.ts';
import { parseProfile } from '../../src/profile/load.ts';
import type { Profile } from '../../src/profile/schema.ts';
import { RULES } from '../../src/registry.ts';
import { Journal, RUN_JOURNAL, RUN_MEMO, runJudgement, type Exchange, type Rule, type RuleResult } from '../../src/rule/index.ts';
import { httpCases } from '../../src/checks/catalogue/plan.ts';
import { catalogueJudgement } from '../../src/checks/catalogue/traffic.ts';
import type { Case } from '../../src/checks/catalogue/types.ts';
import { certify, HARNESS_VERSION, preflightRequest, probeFor, redactorFor } from '../../src/runner/certify.ts';
import { runRule, runRules } from '../../src/runner/run.ts';
import { exchangesOf, stripApicert } from '../passive/record.ts';

const byId = (results: readonly RuleResult[]) => Object.fromEntries(results.map((r) => [r.rule.id, r]));
const V1 = 'service_sk_h105runner0000000000000001';

describe('F5: the first probe is of a selected surface, and no rule judges it', () => {
  let server: Server;
  const seen: string[] = [];
  let profile: Profile;
  let har: { log: { entries: Array<{ request: { url: string } }> } };
  let dir: string;

  beforeAll(async () => {
    // A /v1-only deployment: anything else is a plain-text 404, as h105's server answered /v8.
    server = createServer((req, res) => {
      seen.push(req.url ?? '');
      req.resume();
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    profile = parseProfile({ target: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, credentials: [{ name: 'v1-full', token: V1, surfaces: ['v1'], scopes: ['runs:read', 'runs:write'] }], safety: { requestTimeoutMs: 3_000, probeDepth: 'quick' } }, 'h105 F5 profile');
    const recorder = new HarRecorder();
    await certify({ profile, surfaces: ['v1'], rules: ['v1.catalogue.no-5xx'], seed: 5, recorder });
    har = JSON.parse(JSON.stringify(recorder.document(HARNESS_VERSION, hidingFor(profile, redactorFor(profile))))) as typeof har;
    dir = await mkdtemp(join(tmpdir(), 'apicert-h105-runner-'));
  }, 60_000);

  afterAll(async () => {
    server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('a --surface v1 run asks /v1 first; a run of every surface asks /v8 as before', () => {
    expect(seen[0]).toMatch(/^\/v1\//);
    expect(preflightRequest(RULES.filter((r) => r.surface === 'v1'), profile).path).toMatch(/^\/v1\/runs\//);
    expect(preflightRequest(RULES, profile).path).toMatch(/^\/v8\/missions\//);
    // An MCP-only run asks the MCP endpoint (a deployment may serve /mcp alone): a POST, which opens no stream.
    expect(preflightRequest(RULES.filter((r) => r.surface === 'mcp'), profile)).toMatchObject({ method: 'POST', path: '/mcp', json: {} });
  });

  it('the recording holds no /v8 exchange, and its judgement fails no /v8 rule', async () => {
    expect(har.log.entries.length).toBeGreaterThan(0);
    expect(har.log.entries.filter((e) => new URL(e.request.url).pathname.startsWith('/v8/'))).toEqual([]);
    // Sent, and the server saw it; not recorded.
    expect(har.log.entries.filter((e) => new URL(e.request.url).pathname === seen[0])).toEqual([]);
    const judged = await judgeRecording(exchangesOf(stripApicert(har)), { env: {}, profile });
    const v8Failures = judged.results.filter((r) => r.rule.surface === 'v8' && r.verdict === 'fail').map((r) => r.rule.id);
    expect(v8Failures).toEqual([]);
  });

  it('judge-traffic --surface v1 judges the /v1 rules only', async () => {
    const file = join(dir, 'run.har');
    await writeFile(file, JSON.stringify(har));
    const out = join(dir, 'reports');
    const run = promisify(execFile);
    const result = await run(process.execPath, ['bin/apicert.js', 'judge-traffic', '--har', file, '--surface', 'v1', '--out', out, '--format', 'json', '--quiet'], { cwd: join(dirname(fileURLToPath(import.meta.url)), '../..'), env: { ...process.env, NO_COLOR: '1' } }).catch((error: { stdout: string; stderr: string; code: number }) => error);
    expect(result.stderr).not.toMatch(/unknown option/);
    const report = JSON.parse(await readFile(join(out, 'latest', 'report.json'), 'utf8')) as { rules: Array<{ id: string; surface: string }> };
    expect(report.rules.length).toBeGreaterThan(0);
    expect(report.rules.filter((r) => r.surface !== 'v1').map((r) => r.id)).toEqual([]);
  }, 60_000);
});

describe('F7: a rule that finds the shared generated run stopped by its sender\'s deadline', () => {
  let fake: RunningFake;
  let results: Record<string, RuleResult>;

  beforeAll(async () => {
    fake = await startFake();
    // One rule at a time: the others start once the sender's check ended, so no deadline of theirs races its stop.
    const embedded = embeddedProfile(fake);
    const profile = { ...embedded, safety: { ...embedded.safety, concurrency: 1 } };
    const redactor = redactorFor(profile);
    const dispatcher = createDispatcher();
    const probe = probeFor(profile, redactor, new RequestBudget(profile.safety.requestBudget), dispatcher);
    const rules = RULES.filter((r) => r.id.startsWith('v1.contract.generated.') && !r.judgesTheRun);
    const services = { redactor, provided: new Map<string, unknown>([[RUN_MEMO.name, new Map()], [RUN_JOURNAL.name, new Journal()]]) };
    // The generated run against the fake takes some 10 s: a 1.5 s deadline stops it in its sender's check.
    results = byId(await runRules({ target: { baseUrl: profile.target, kind: 'embedded-fake' }, profile, rules, seed: 3, probe, services, checkTimeoutMs: 1_500 }));
    await dispatcher.close();
  }, 60_000);

  afterAll(async () => {
    await fake.close();
  });

  it('the sender is inconclusive for its deadline; every other rule is inconclusive naming the shared run and why it stopped, never a harness defect', () => {
    const verdicts = Object.values(results);
    expect(verdicts.length).toBe(4);
    for (const r of verdicts) expect(r.verdict, `${r.rule.id}: ${r.reason}`).toBe('inconclusive');
    for (const r of verdicts) expect(r.reason ?? '', r.rule.id).not.toMatch(/harness defect/);
    const others = verdicts.filter((r) => !/^the check did not finish within 2 s$/.test(r.reason ?? ''));
    expect(others.length).toBe(3);
    for (const r of others) expect(r.reason ?? '', r.rule.id).toMatch(/^the shared generated probe run of \/v1, sent by v1\.contract\.generated\.[a-z0-9-]+'s check, was stopped: the check did not finish within 2 s$/);
  });

  it('a Stopped from work another check stopped is inconclusive, naming it, never a harness defect', async () => {
    const rule = { ...RULES.find((r) => r.id === 'v1.contract.generated.no-5xx')!, check: () => Promise.reject(new Stopped('the check did not finish within 120 s')) } as Rule;
    const profile = embeddedProfile(fake);
    const dispatcher = createDispatcher();
    const result = await runRule(rule, { target: { baseUrl: profile.target, kind: 'embedded-fake' }, profile, seed: 1, probe: probeFor(profile, redactorFor(profile), new RequestBudget(10), dispatcher) });
    await dispatcher.close();
    expect(result.verdict).toBe('inconclusive');
    expect(result.reason).toBe("work this check shares with another rule's check was stopped: the check did not finish within 120 s");
  });
});

/** The catalogue rules of /v1 against the fake with the primary key on `tier`, recorded, and the recording judged. */
async function limitedCatalogue(tier: { requests: number; windowSeconds: number }): Promise<{ active: Record<string, RuleResult>; passive: Record<string, RuleResult> }> {
  const fake = await startFake({ config: { rateLimits: { v1: { credentials: { 'v1-full': tier } } } } });
  try {
    const profile = embeddedProfile(fake);
    const recorder = new HarRecorder();
    const active = byId((await certify({ profile, rules: ['v1.catalogue.*'], seed: 11, recorder })).results);
    const written = JSON.parse(JSON.stringify(recorder.document(HARNESS_VERSION, hidingFor(profile, redactorFor(profile))))) as { log: { entries: unknown[] } };
    const passive = byId((await judgeRecording(exchangesOf(stripApicert(written)), { env: {}, profile, patterns: ['v1.catalogue.*'] })).results);
    return { active, passive };
  } finally {
    await fake.close();
  }
}

const CATALOGUE = ['v1.catalogue.no-5xx', 'v1.catalogue.problem-json', 'v1.catalogue.error-status'];
const observed = (r: RuleResult | undefined, subject: RegExp) => r?.observations.find((o) => subject.test(o.subject))?.value;

describe('F6: catalogue cases a rate limiter answered', () => {
  let short: Awaited<ReturnType<typeof limitedCatalogue>>;
  let long: Awaited<ReturnType<typeof limitedCatalogue>>;

  beforeAll(async () => {
    // A 1 s window: every refusal asks for a wait the run can give. An hour's window: none it can.
    short = await limitedCatalogue({ requests: 25, windowSeconds: 1 });
    long = await limitedCatalogue({ requests: 1, windowSeconds: 3600 });
  }, 240_000);

  it('a short window: each limited case is sent again once its wait is over, and judged; every rule passes, active and recorded alike', () => {
    const first = short.active['v1.catalogue.no-5xx'];
    expect(Number(observed(first, /^sent again after a 429\/503/))).toBeGreaterThan(0);
    expect(observed(first, /429\/503 every time|left unjudged/)).toBeUndefined();
    for (const id of CATALOGUE) expect(short.active[id]?.verdict, `${id}: ${short.active[id]?.reason}`).toBe('pass');
    for (const id of CATALOGUE) expect(short.passive[id]?.verdict, `${id} (recording): ${short.passive[id]?.reason}`).toBe('pass');
  });

  it('an hour\'s window: the cases stay limited, so no catalogue rule passes on the others; inconclusive, and untestable from the recording', () => {
    for (const id of CATALOGUE) {
      expect(long.active[id]?.verdict, `${id}: ${long.active[id]?.reason}`).toBe('inconclusive');
      expect(long.active[id]?.reason ?? '', id).toMatch(/catalogue case\(s\) this rule judges were answered only by a rate limiter \(429\), never by the API/);
    }
    // error-status's limited cases here are raw-socket ones, which --har-out does not record (docs/probe-catalogue.md): the
    // recording's are the forged keys, refused before the per-key limiter. The hand-built journal below judges them limited.
    for (const id of ['v1.catalogue.no-5xx', 'v1.catalogue.problem-json']) {
      expect(long.passive[id]?.verdict, `${id} (recording): ${long.passive[id]?.reason}`).toBe('untestable');
      expect(long.passive[id]?.reason ?? '', id).toMatch(/answered only by a rate limiter \(429\)/);
    }
    expect(long.passive['v1.catalogue.error-status']?.verdict).not.toBe('fail');
  });
});

describe('F6: the catalogue judgement of a limited case, in a run and in a recording alike', () => {
  const profile = parseProfile({ target: 'http://127.0.0.1:9', credentials: [{ name: 'v1-full', token: V1, surfaces: ['v1'], scopes: ['runs:read', 'runs:write'] }] }, 'h105 F6 profile');
  const credential = profile.credentials[0]!;
  // Two stated refusals sent as ordinary requests: a forged key of the primary's shape, to two endpoints (a limiter per address may answer them).
  const forged = httpCases({ surface: 'v1', depth: 'default', credential, fixtures: {}, readOnly: false }).filter((c) => c.stated?.kind === 'refuse' && c.sent.kind === 'http' && c.operator === 'credentials.tampered');
  const ctx = { check: (ok: unknown) => Boolean(ok), observe: () => undefined };

  function exchangeOf(c: Case, status: number, index: number): Exchange {
    if (c.sent.kind !== 'http') throw new Error('an ordinary request');
    const r = c.sent.request;
    const body = r.json !== undefined ? JSON.stringify(r.json) : r.rawBody;
    const headers: Record<string, string> = { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...Object.fromEntries(Object.entries(r.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v])) };
    const problem = { type: 'about:blank', title: status === 429 ? 'Rate limited' : 'Authentication failed', status, code: status === 429 ? 'rate_limited' : 'authentication_failed', requestId: '0190a8f0-1c2d-7e3f-8a4b-5c6d7e8f9a0b', ...(status === 429 ? { retryable: true, retryAfterMs: 3_600_000 } : {}) };
    return { index, method: r.method, url: `http://127.0.0.1:9${r.path}`, path: r.path, requestHeaders: headers, responseHeaders: { 'content-type': 'application/problem+json', ...(status === 429 ? { 'retry-after': '3600' } : {}) }, status, responseBody: JSON.stringify(problem), ...(body !== undefined ? { requestBody: body } : {}) };
  }

  const verdict = (exchanges: readonly Exchange[], source: 'active' | 'recording') => {
    try {
      const run = runJudgement(ctx, catalogueJudgement('v1', 'error-status'), exchanges, { source, profile });
      return `judged ${run.judged.size}`;
    } catch (error) {
      return `${(error as Error).name}: ${(error as Error).message}`;
    }
  };

  it('a case only a limiter answered, beside one refused as stated: inconclusive in a run, untestable in a recording, not a pass on the other', () => {
    expect(forged.length).toBeGreaterThan(1);
    const journal = [exchangeOf(forged[0]!, 429, 0), exchangeOf(forged[1]!, 401, 1)];
    expect(verdict(journal, 'active')).toMatch(/^Inconclusive: 1 catalogue case\(s\) this rule judges were answered only by a rate limiter \(429\), never by the API \(first: /);
    expect(verdict(journal, 'recording')).toMatch(/^Untestable: .*1 catalogue case\(s\) this rule judges were answered only by a rate limiter \(429\)/);
  });

  it('the limited case sent again and answered: its later sending is judged, in both modes', () => {
    const journal = [exchangeOf(forged[0]!, 429, 0), exchangeOf(forged[1]!, 401, 1), exchangeOf(forged[0]!, 401, 2)];
    expect(verdict(journal, 'active')).toBe('judged 2');
    expect(verdict(journal, 'recording')).toBe('judged 2');
  });

  it('the same request sent later by another check and limited (a whole run\'s recording): the case was answered, nothing is left unjudged', () => {
    const journal = [exchangeOf(forged[0]!, 401, 0), exchangeOf(forged[1]!, 401, 1), exchangeOf(forged[0]!, 429, 2)];
    expect(verdict(journal, 'recording')).toBe('judged 2');
  });
});
