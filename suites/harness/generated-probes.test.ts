import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ENDPOINTS, endpointOf } from '../../src/contract/endpoints.ts';
import { arbitraryOf, casesOf } from '../../src/contract/schema-cases.ts';
import { memoryQueryRequest } from '../../src/contract/v8/memory.ts';
import { createMissionRequest } from '../../src/contract/v8/missions.ts';
import { deterministicPlan, isRead } from '../../src/checks/generated/requests.ts';
import { certify } from '../../src/runner/certify.ts';
import { marksOf } from '../../src/contract/marks.ts';
import { expectationOf, hasDuplicateKey, nodesAt, openness, sentOf, type Known } from '../../src/checks/generated/expectation.ts';
import { judgeAnswer, type Answer } from '../../src/checks/generated/judgement.ts';
import { constraintsMarkdown, plannedConstraints } from '../../src/coverage/constraints.ts';

describe('cases derived from the contract schemas', () => {
  const memory = casesOf(memoryQueryRequest, { compartment: 'c', purpose: 'p', queryText: 'q', classes: ['note'] });
  const labelled = (label: string) => memory.cases.find((c) => c.label === label);

  it('puts every bound at its limit (valid) and one past it (invalid), with type confusion and non-integers', () => {
    expect(labelled('limit: 50')?.valid).toBe(true);
    expect(labelled('limit: 1')?.valid).toBe(true);
    expect(labelled('limit: 51')?.valid).toBe(false);
    expect(labelled('limit: 0')?.valid).toBe(false);
    expect(labelled('limit: 1.5')?.valid).toBe(false);
    expect(labelled('limit: "1" (a string)')?.valid).toBe(false);
    expect(labelled('classes: 64 items')?.valid).toBe(true);
    expect(labelled('classes: 65 items')?.valid).toBe(false);
    expect(labelled('classes: a repeated item')?.valid).toBe(false);
    expect(labelled('queryText: length 32768')?.valid).toBe(true);
    expect(labelled('queryText: length 32769')?.valid).toBe(false);
    expect(labelled('compartment: missing')?.valid).toBe(false);
    expect(labelled('compartment: emoji')?.valid).toBe(true);
  });

  it('judges each case by the schema itself, never by what the generator meant', () => {
    for (const c of memory.cases) expect(memoryQueryRequest.safeParse(c.value).success, c.label).toBe(c.valid);
  });

  it('adds an extra property only where the schema closes the object (the expectation says whether a sentence does)', () => {
    expect(memory.constraints.some((c) => c.kind === 'closed')).toBe(false);
    const create = casesOf(createMissionRequest);
    expect(create.constraints.map((c) => c.id)).toContain('resourceBudget closed');
    expect(create.constraints.map((c) => c.id)).not.toContain('(body) closed');
    expect(create.cases.find((c) => c.label === 'resourceBudget: an extra property')?.valid).toBe(false);
  });

  it('generates only valid bodies for the random phase, for every body of every endpoint', () => {
    for (const e of ENDPOINTS) {
      for (const spec of e.bodies) {
        for (const value of fc.sample(arbitraryOf(spec.schema), { seed: 42, numRuns: 25 })) {
          expect(spec.schema.safeParse(value).success, `${e.method} ${e.path} ${spec.name}: ${JSON.stringify(value).slice(0, 200)}`).toBe(true);
        }
      }
    }
  });
});

describe('the endpoint catalogue and the plan', () => {
  it('finds the endpoint of a request path, and none for an unknown one', () => {
    expect(endpointOf('GET', '/v8/missions/0190a8f0-1c2d-7e3f-8a4b-5c6d7e8f9a0b')?.path).toBe('/v8/missions/{runId}');
    expect(endpointOf('POST', '/v1/runs/run_1/approve?x=1')?.path).toBe('/v1/runs/{id}/approve');
    expect(endpointOf('GET', '/v8/apicert-no-such-endpoint')).toBeUndefined();
  });

  it('sends only reads in a read-only run and says what it left out', () => {
    const credential = { name: 'k', token: 'service_sk_test', surfaces: ['v8'], scopes: [], principal: 'p', tenant: 't' } as never;
    const plan = deterministicPlan({ surface: 'v8', credential, fixtures: {}, existing: {}, readOnly: true });
    expect(plan.requests.length).toBeGreaterThan(50);
    for (const g of plan.requests) expect(isRead(g.request, g.endpoint), `${g.request.method} ${g.request.path}`).toBe(true);
    expect(plan.skipped.map((s) => s.endpoint)).toContain('POST /v8/missions');
  });
});

describe('a run', () => {
  const digest = async (seed: number) => {
    const { results, report } = await certify({ patterns: ['v8.contract.generated.no-5xx'], seed });
    expect(results[0]!.verdict, results[0]!.reason).toBe('pass');
    return report.observations.find((o) => o.subject === 'requests digest')?.value;
  };

  it('sends the same requests for the same --seed, and other random bodies for another', async () => {
    const [a, b, c] = await Promise.all([digest(21), digest(21), digest(22)]);
    expect(typeof a).toBe('string');
    expect(a).toBe(b);
    expect(c).not.toBe(a);
  });
});

describe('the expectation of a request, from the request as sent', () => {
  const credential = { name: 'k', token: 'service_sk_test', surfaces: ['v8', 'v1'], scopes: [], principal: 'p', tenant: 't' } as never;
  const send = (method: string, path: string, json?: unknown, headers: Record<string, string> = {}) => sentOf({ method: method as 'GET', path, credential, headers, ...(json === undefined ? {} : { json }) });
  const key = { 'idempotency-key': 'apicert-0123456789abcdef' };
  const mission = (budget: Record<string, unknown>, task = 'summarize') => ({ goalSpec: { task }, resourceBudget: { maximumSteps: 1, maximumToolCalls: 0, maximumElapsedMs: 1000, maximumParallelism: 1, ...budget } });

  it('refuses what a sentence states, with the status its error table names and the sentence itself', () => {
    const e = expectationOf(send('POST', '/v8/missions', mission({ maximumParallelism: 65 }), key));
    expect(e).toMatchObject({ kind: 'refuse', status: 400, constraint: 'POST /v8/missions resourceBudget.maximumParallelism range' });
    expect(e.kind === 'refuse' && e.because.kind === 'document' && e.because.quote).toBe('| resourceBudget.maximumParallelism | integer | yes | 1-64 |');
    expect(expectationOf(sentOf({ method: 'POST', path: '/v8/missions', credential: null, headers: key, json: mission({}) }))).toMatchObject({ kind: 'refuse', status: 401 });
  });

  it('leaves open every class the descriptions do not state (issue 31)', () => {
    const open = (s: ReturnType<typeof send>, known?: Known) => expect(expectationOf(s, known).kind, JSON.stringify(s).slice(0, 200)).toBe('open');
    open(send('POST', '/v8/missions', mission({ apicertExtra: 1 }), key)); // resourceBudget is not said to be closed
    open(send('GET', '/v1/webhooks')); // methods the description does not list
    open(send('POST', '/v8/missions', mission({}, ''), key)); // free text without a stated bound: empty
    open(send('POST', '/v8/missions', mission({}, 'a'.repeat(70_000)), key)); // and very long
    open(send('POST', '/v8/missions', mission({}, 'a\u0000b'), key)); // NUL
    open(send('POST', '/v8/missions', mission({}, 'a\ud800b'), key)); // a lone surrogate
    open(send('POST', '/v1/runs/run_1/approve', { action_digest: 'd', decision: 'a0' }), { existing: [], parked: ['run_1'], bases: { 'v1.approve': { action_digest: 'd', decision: 'approved' } } });
    open(send('GET', `/v1/runs/${'a'.repeat(256)}`)); // the run id format is not shown
    open(send('POST', '/v8/missions/0190a8f0-1c2d-7e3f-8a4b-5c6d7e8f9a0b/signals', { signal: 's', payload: null }, key), { existing: ['0190a8f0-1c2d-7e3f-8a4b-5c6d7e8f9a0b'], parked: [], bases: {} }); // "any JSON value" and null
    open(send('POST', '/v1/execute', { apiVersion: 'v1', requestId: 'r', client: { kind: 'cli', name: 'a', version: '1' }, messages: [{ id: 'm', role: 'user', parts: [{ type: 'text', text: 'x' }] }], modelPreference: 'gpt' }));
    open(send('POST', '/v1/webhooks', { url: 'https://example.com/h', description: 'a'.repeat(2000) }));
  });

  it('accepts only what is within every stated constraint, and names the sentence', () => {
    const base = { compartment: 'c', purpose: 'p', queryText: 'q', classes: ['note'] };
    const e = expectationOf(send('POST', '/v8/memory/query', base), { existing: [], parked: [], bases: { 'v8.memory': base } });
    expect(e).toMatchObject({ kind: 'accept', constraint: 'POST /v8/memory/query (body) valid' });
    expect(expectationOf(send('POST', '/v8/memory/query', { ...base, purpose: 'other' }), { existing: [], parked: [], bases: { 'v8.memory': base } }).kind).toBe('open');
  });

  it('reads JSON wire forms a parser may take either way as open', () => {
    expect(hasDuplicateKey('{"a":1,"b":{"a":2},"a":3}')).toBe(true);
    expect(hasDuplicateKey('{"a":1,"b":{"a":2},"c":"a"}')).toBe(false);
    expect(hasDuplicateKey('{"a\\\\":1,"a\\"":2,"a":3}')).toBe(false);
    // Any JSON text JSON.stringify writes names each member once; repeating an object's first member is a duplicate.
    fc.assert(fc.property(fc.dictionary(fc.string(), fc.jsonValue(), { minKeys: 1 }), (object) => {
      const text = JSON.stringify(object);
      const [name, value] = Object.entries(object)[0]!;
      expect(hasDuplicateKey(text)).toBe(false);
      expect(hasDuplicateKey(`${text.slice(0, -1)},${JSON.stringify(name)}:${JSON.stringify(value) ?? 'null'}}`)).toBe(true);
    }));
    const raw = (rawBody: string) => expectationOf(sentOf({ method: 'POST', path: '/v8/capabilities/search', credential, rawBody }));
    expect(raw('\ufeff{"actionFamily":"a","purpose":"p","targetType":"t"}').kind).toBe('open');
    expect(raw('{"actionFamily":')).toMatchObject({ kind: 'refuse', status: 400 });
  });
});

describe('what the expectation keeps between requests', () => {
  const credential = { name: 'k', token: 'service_sk_test', surfaces: ['v8', 'v1'], scopes: [], principal: 'p', tenant: 't' } as never;
  const raw = (rawBody: string) => sentOf({ method: 'POST', path: '/v8/capabilities/search', credential, rawBody });

  it('reads nesting past 64 levels before a duplicate name, wherever each is in the text', () => {
    const deep = `${'['.repeat(70)}${']'.repeat(70)}`;
    expect(expectationOf(raw(`{"actionFamily":"a","actionFamily":"b","purpose":${deep}}`))).toMatchObject({ kind: 'open', why: expect.stringContaining('nested deeper than 64 levels') });
    expect(expectationOf(raw('{"actionFamily":"a","actionFamily":"b","purpose":"p","targetType":"t"}'))).toMatchObject({ kind: 'open', why: expect.stringContaining('duplicate name') });
  });

  it('reads a journal\'s parse of the body only for the very text it parsed', () => {
    const sent = raw('{"actionFamily":"a","purpose":"p","targetType":"t"}');
    const alone = expectationOf(sent);
    expect(expectationOf({ ...sent, parsed: { text: '{"actionFamily":1}', value: { actionFamily: 1 } } })).toEqual(alone);
    expect(expectationOf({ ...sent, parsed: { text: sent.body!, value: JSON.parse(sent.body!) as unknown } })).toEqual(alone);
    // A journal that could not parse a text nested past its limit says nothing of it: JSON.parse still reads it on /mcp.
    const deep = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":${'['.repeat(300)}${']'.repeat(300)}}}`;
    const mcp = sentOf({ method: 'POST', path: '/mcp', credential, rawBody: deep });
    expect(expectationOf({ ...mcp, parsed: { text: deep, value: undefined } })).toEqual(expectationOf(mcp));
    expect(expectationOf(mcp).kind).not.toBe('refuse');
  });

  it('gives a body\'s openness per base, however often the same body is asked', () => {
    const body = { compartment: 'c', purpose: 'p', queryText: 'q' };
    const given = { compartment: 'c', purpose: 'p', queryText: 'other' };
    const other = { compartment: 'd', purpose: 'p', queryText: 'q' };
    for (let i = 0; i < 2; i += 1) {
      expect(openness(memoryQueryRequest, body, [], given)).toBeUndefined();
      expect(openness(memoryQueryRequest, body, [], other)).toBe('compartment: a compartment the deployment does not hold for the principal may be refused');
      expect(openness(memoryQueryRequest, body, [], undefined)).toBe('compartment: a compartment the deployment does not hold for the principal may be refused');
    }
  });
});

describe('the judgement of an answer', () => {
  const credential = { name: 'k', token: 't' } as never;
  const sent = sentOf({ method: 'GET', path: '/v8/coverage', credential });
  const accept = expectationOf(sent);
  const answer = (status: number, text: string, contentType = 'application/json', extra: Partial<Answer> = {}): Answer => ({ status, headers: {}, contentType, text, json: (() => { try { return JSON.parse(text) as unknown; } catch { return undefined; } })(), ...extra });

  it('never takes an undocumented, broken, cut or redirected answer for an acceptance', () => {
    expect(accept.kind).toBe('accept');
    expect(judgeAnswer(sent, accept, answer(200, '-----BEGIN CERTIFICATE-----', 'text/plain')).findings['accepts-valid']?.ok).toBe(false);
    expect(judgeAnswer(sent, accept, answer(200, '{}')).findings['accepts-valid']?.ok).toBe(false);
    expect(judgeAnswer(sent, accept, answer(302, '', 'text/plain', { headers: { location: '/v8/coverage' } })).unjudged).toMatch(/redirect/);
    expect(judgeAnswer(sent, accept, answer(200, '{"a":', 'application/json', { cut: true })).unjudged).toMatch(/cut/);
    const broken = judgeAnswer(sent, accept, answer(200, '{}', 'application/json', { malformed: 'is application/json but not valid UTF-8' }));
    expect(Object.values(broken.findings).every((f) => !f.ok)).toBe(true);
  });

  it('judges a refusal for its format and a must-refuse case for its status', () => {
    const missing = sentOf({ method: 'GET', path: '/v8/coverage', credential: null });
    const refuse = expectationOf(missing);
    const problem = JSON.stringify({ type: 'https://e.example/x', title: 't', status: 400, detail: 'd', code: 'c', requestId: '0190a8f0-1c2d-7e3f-8a4b-5c6d7e8f9a0b' });
    const j = judgeAnswer(missing, refuse, answer(400, problem, 'application/problem+json'));
    expect(j.findings['problem-json']?.ok).toBe(true);
    expect(j.findings['error-status']).toMatchObject({ ok: false });
    expect(j.findings['error-status']?.reason).toContain('A missing or expired token gives `401`.');
    expect(judgeAnswer(missing, refuse, answer(401, '{"error":"x"}')).findings['problem-json']?.ok).toBe(false);
    expect(judgeAnswer(missing, refuse, answer(502, '')).findings['no-5xx']?.ok).toBe(false);
  });
});

describe('the contract marks', () => {
  it('marks every bound of the /v8 and /v1 request tables as stated, with a sentence', () => {
    for (const [schema, body] of [
      [createMissionRequest, { goalSpec: { task: 't' }, resourceBudget: { maximumSteps: 0, maximumToolCalls: -1, maximumElapsedMs: 0, maximumParallelism: 65 } }],
      [memoryQueryRequest, { compartment: '', purpose: '', queryText: '', classes: [], limit: 51 }],
    ] as const) {
      const issues = schema.safeParse(body).error!.issues;
      for (const issue of issues) {
        const chain = nodesAt(schema, body, issue.path as (string | number)[]);
        expect(chain.some((n) => (marksOf(n)?.stated.length ?? 0) > 0), `${issue.path.join('.')} ${issue.code}`).toBe(true);
      }
    }
  });
});

describe('apicert coverage --constraints', () => {
  it('says per endpoint which constraints are stated (with their sentence) and which are open', () => {
    const rows = plannedConstraints();
    const row = (endpoint: string, constraint: string) => rows.find((r) => r.endpoint === endpoint && r.constraint === constraint);
    expect(row('POST /v8/missions', 'resourceBudget.maximumParallelism range')?.stated).toContain('| resourceBudget.maximumParallelism | integer | yes | 1-64 |');
    expect(row('POST /v8/missions', 'resourceBudget closed')?.open).toMatch(/fake's own choice/);
    expect(row('POST /v1/webhooks', 'url length')?.open).toMatch(/fake's own choice/);
    expect(row('POST /v1/execute', 'turn: (body) closed')?.stated).toContain('no extra properties');
    expect(constraintsMarkdown()).toContain('| `resourceBudget closed` |');
  });
});
