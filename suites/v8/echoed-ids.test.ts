/**
 * Fixer helper-113 (audit helper-104's F1): the generated rules took every string of a 2xx answer for
 * an id the caller holds, whatever its member. A deployment whose memory answer echoes the query's
 * `purpose` ("Entry shape beyond the fields listed: not shown") made the generated "skillId at its
 * longest, naming nothing" case look existing, so the 404 the description names ("a resource outside
 * it gives `404`") failed v8.contract.generated.accepts-valid. Now an id is held only where a member
 * names a resource of the path's kind (runId, missionRunId, traceId, skillId, run_id); a string a
 * request wrote before any answer showed it hands out nothing when an answer repeats it; and a string
 * shown in any other member leaves its lookup open both ways, as an id handed out under an unexpected
 * name may be.
 */
import { describe, expect, it } from 'vitest';
import { HarRecorder, hidingFor } from '../../src/passive/recorder.ts';
import { judgeRecording } from '../../src/passive/judge.ts';
import { generatedAcceptsValid, generatedErrorStatus } from '../../src/checks/v8/contract/generated.ts';
import { parseProfile } from '../../src/profile/load.ts';
import type { Exchange, Judge } from '../../src/rule/index.ts';
import { judgementCases } from '../support/judgement-cases.ts';
import { certify, HARNESS_VERSION, redactorFor } from '../../src/runner/certify.ts';
import { exchangesOf, stripApicert } from '../passive/record.ts';

const T0 = Date.UTC(2025, 0, 1);
const TOKEN = 'tok-helper-113-echoed-ids';
const BASE = 'https://gateway.example.test';
const RUN = '01970000-0000-7000-8000-000000000113';
/** The generated case's skillId and traceId at their longest: 256 characters no answer handed out. */
const LONGEST = `${'a'.repeat(255)}0`;
const VERSION = { 'x-service-contract-version': 'service-integration-gateway-v8.1' };

const profile = parseProfile(
  {
    target: BASE,
    credentials: [{ name: 'full', token: TOKEN, surfaces: ['v8'], scopes: ['missions:read', 'missions:write', 'traces:read', 'memory:read', 'capabilities:read', 'skills:read'], principal: 'alice', tenant: 't1' }],
  },
  'test profile',
);

/** What accepts-valid and error-status fail of the lookups of `path`, judged as an active run judges its own exchanges. */
function failedAt(journal: Array<Omit<Exchange, 'index'>>, path: string, source: Judge['source'] = 'active'): string[] {
  return [generatedAcceptsValid, generatedErrorStatus].flatMap((r) => judgementCases(r.judgement!, journal, profile, source).filter((c) => !c.ok && c.reason.includes(path)).map((c) => `${r.id}: ${c.reason.slice(0, 120)}`));
}

const json = (value: unknown) => ({ type: 'application/json', body: JSON.stringify(value) });
const notFound = { type: 'application/problem+json', body: JSON.stringify({ type: 'about:blank', title: 'Not Found', status: 404, detail: 'no such resource', code: 'not_found', requestId: '0190a3c2-7b1e-7cc0-8b3a-1d2e3f4a5b6d' }) };
const SKILL = (id: string) => ({ skillId: id, name: 'S', description: 'd', version: '1', contractHash: 'a'.repeat(64), kind: 'skill', healthState: 'healthy', requiredScopes: [], inputSchema: {}, evidenceState: { lastVerifiedAt: '2025-01-01T00:00:00Z', evidenceScore: 1, verificationPassed: true } });

function ex(at: number, method: string, path: string, status: number, answer: { type: string; body: string }, body?: unknown): Omit<Exchange, 'index'> {
  const out: Omit<Exchange, 'index'> = {
    startedAt: new Date(T0 + at).toISOString(),
    durationMs: 10,
    method,
    url: `${BASE}${path}`,
    path,
    requestHeaders: { authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    status,
    responseHeaders: { 'content-type': answer.type, ...VERSION },
    responseBody: answer.body,
  };
  if (body !== undefined) out.requestBody = JSON.stringify(body);
  return out;
}

const QUERY = { compartment: 'research', purpose: LONGEST, queryText: 'supplier renewal', classes: ['note'] };
const entry = (extra: Record<string, unknown>) => ({ entryId: 'e-1', class: 'note', content: 'c', score: 0.9, createdAt: '2025-01-01T00:00:00Z', ...extra });
/** A memory query whose answer echoes the purpose it was sent, in the bundle and its entry. */
const echoingQuery = ex(0, 'POST', '/v8/memory/query', 200, json({ entries: [entry({ purposeTag: LONGEST })], totalContextBytes: 1, truncated: false, purposeTag: LONGEST }), QUERY);
const skillRead = (at: number, id: string, status: number) => ex(at, 'GET', `/v8/skills/${id}`, status, status === 200 ? json(SKILL(id)) : notFound);
const traceRead = (at: number, id: string, status: number) => ex(at, 'GET', `/v8/traces/${id}`, status, status === 200 ? json({ traceId: id, missionRunId: RUN, stepId: 's', startedAt: '2025-01-01T00:00:00Z', steps: [] }) : notFound);

describe('v8 generated rules: an echo of the request names nothing', () => {
  it('a skill and a trace named by the echoed purpose only answer 404 and pass: the lookup names nothing', () => {
    const journal = [echoingQuery, skillRead(100, LONGEST, 404), traceRead(200, LONGEST, 404)];
    expect(failedAt(journal, '/v8/skills/')).toEqual([]);
    expect(failedAt(journal, '/v8/traces/')).toEqual([]);
  });

  it('the 404 is still demanded there: a 200 for the echoed string fails', () => {
    expect(failedAt([echoingQuery, skillRead(100, LONGEST, 200)], '/v8/skills/')).toHaveLength(1);
  });

  it('an echo in a later answer of what an earlier request wrote (a signal name in a stream) names nothing either', () => {
    const signal = ex(0, 'POST', `/v8/missions/${RUN}/signals`, 200, { type: 'application/json', body: '' }, { signal: LONGEST, payload: {} });
    const stream = ex(100, 'GET', `/v8/missions/${RUN}/events`, 200, { type: 'text/event-stream', body: `id: 1\nevent: mission.signal.received\ndata: ${JSON.stringify({ runId: RUN, sequence: 1, signal: LONGEST })}\n\n` });
    expect(failedAt([signal, stream, skillRead(200, LONGEST, 404)], '/v8/skills/')).toEqual([]);
  });
});

describe('v8 generated rules: an id under another name is open both ways', () => {
  // A deployment may hand ids out in members no sentence names: neither their 200 nor their 404 is demanded.
  const listing = ex(0, 'POST', '/v8/memory/query', 200, json({ entries: [entry({ relatedSkill: 'sk-related-1' })], totalContextBytes: 1, truncated: false }), { ...QUERY, purpose: 'support' });

  it.each([200, 404])('a skill an entry names in `relatedSkill` answering %i passes', (status) => {
    expect(failedAt([listing, skillRead(100, 'sk-related-1', status)], '/v8/skills/')).toEqual([]);
  });

  it.each([200, 404])('a traceId looked up as a skill answering %i passes: no sentence makes a trace a skill', (status) => {
    const trace = traceRead(0, 'tr-1', 200);
    expect(failedAt([trace, skillRead(100, 'tr-1', status)], '/v8/skills/')).toEqual([]);
  });

  it('a skill its own member named is held: its later 404 fails accepts-valid', () => {
    const failed = failedAt([skillRead(0, 'sk-named', 200), skillRead(100, 'sk-named', 404)], '/v8/skills/sk-named');
    expect(failed.filter((f) => f.startsWith('v8.contract.generated.accepts-valid: ') && f.includes('answered 404'))).toHaveLength(1);
  });

  it('a mission the create answer named is still held: its 404 fails', () => {
    const create = ex(0, 'POST', '/v8/missions', 202, json({ runId: RUN, status: 'running', sequence: 1, steps: [] }), { goalSpec: { task: 't' }, resourceBudget: { maximumSteps: 1, maximumToolCalls: 0, maximumElapsedMs: 1000, maximumParallelism: 1 } });
    expect(failedAt([create, ex(100, 'GET', `/v8/missions/${RUN}`, 404, notFound)], `/v8/missions/${RUN}`)).toHaveLength(1);
  });
});

describe('v8.memory/purpose-echoed: certify and judge-traffic of its recording', () => {
  it('pass the generated rules', async () => {
    const recorder = new HarRecorder();
    const active = await certify({ patterns: ['v8.contract.generated.*'], variants: ['v8.memory/purpose-echoed'], seed: 13, recorder });
    expect(active.variantsTaken).toEqual(['v8.memory/purpose-echoed']);
    const verdicts = (results: ReadonlyArray<{ rule: { id: string }; verdict: string; reason?: string }>) => results.filter((r) => r.verdict !== 'pass').map((r) => `${r.rule.id}: ${r.verdict}: ${r.reason?.slice(0, 200)}`);
    expect(verdicts(active.results)).toEqual([]);
    const written = JSON.parse(JSON.stringify(recorder.document(HARNESS_VERSION, hidingFor(active.profile!, redactorFor(active.profile!))))) as { log: { entries: unknown[] } };
    const exchanges = exchangesOf(stripApicert(written));
    // The case the audit found: a 200 memory answer that echoes a purpose of 256 characters, then the lookup of that string.
    expect(exchanges.some((e) => e.path === '/v8/memory/query' && e.status === 200 && (e.responseBody ?? '').includes(LONGEST))).toBe(true);
    expect(exchanges.some((e) => e.path === `/v8/skills/${LONGEST}` && e.status === 404)).toBe(true);
    const passive = await judgeRecording(exchanges, { env: {}, profile: active.profile!, patterns: ['v8.contract.generated.*'] });
    expect(verdicts(passive.results)).toEqual([]);
  }, 120_000);
});
