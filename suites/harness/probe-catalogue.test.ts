import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { HTTP_OPERATORS, MCP_OPERATORS, RAW_OPERATORS } from '../../src/checks/catalogue/index.ts';
import { baseRequest, depthTable, httpCases, mcpCases } from '../../src/checks/catalogue/plan.ts';
import { ENDPOINTS } from '../../src/contract/endpoints.ts';
import { expectationFor } from '../../src/checks/catalogue/run.ts';
import { hasDuplicateKey } from '../../src/checks/generated/expectation.ts';
import { parseAnswer, rawBytes, sendRawBytes } from '../../src/probe/raw.ts';
import { certify } from '../../src/runner/certify.ts';

const credential = { name: 'primary', token: 'service_sk_0123456789abcdef' } as never;

describe('probe catalogue', () => {
  it('names every operator once, and docs/probe-catalogue.md lists each', () => {
    const ids = [...HTTP_OPERATORS, ...MCP_OPERATORS].map((o) => o.id);
    expect(new Set(ids).size).toBe(ids.length);
    const doc = readFileSync(new URL('../../docs/probe-catalogue.md', import.meta.url), 'utf8');
    for (const id of ids) expect(doc, id).toContain(`\`${id}\``);
    for (const id of RAW_OPERATORS) expect(doc).toMatch(new RegExp(`\`${id.replace('.', '\\.')}\`[^\\n]*raw socket`));
  });

  it('runs each operator at least once on every endpoint it fits at default depth, once per surface at quick', () => {
    for (const surface of ['v8', 'v1'] as const) {
      const fixed = { surface, credential, fixtures: {}, readOnly: false };
      const quick = httpCases({ ...fixed, depth: 'quick' });
      const byDefault = httpCases({ ...fixed, depth: 'default' });
      const applying = new Set(byDefault.map((c) => c.operator));
      expect(new Set(quick.map((c) => c.operator))).toEqual(applying);
      expect(quick.length).toBe(applying.size);
      for (const c of byDefault) expect(byDefault.filter((d) => d.operator === c.operator && d.endpoint === c.endpoint)).toHaveLength(1);
      // What the HTTP layer reads in front of every route goes once per method at default, on every endpoint at deep.
      const message = HTTP_OPERATORS.filter((o) => o.scope === 'message').map((o) => o.id);
      for (const id of message) expect(new Set(byDefault.filter((c) => c.operator === id).map((c) => c.endpoint.split(' ')[0])).size).toBe(byDefault.filter((c) => c.operator === id).length);
      const deep = httpCases({ ...fixed, depth: 'deep' });
      for (const id of message) expect(new Set(deep.filter((c) => c.operator === id).map((c) => c.endpoint)).size).toBeGreaterThan(2);
      expect(byDefault.length).toBeGreaterThan(quick.length);
    }
    expect(mcpCases('default', undefined)).toHaveLength(MCP_OPERATORS.length);
  });

  it('sends for each JSON-text case the JSON its operator says: the same value written another way, another body, a member repeated', () => {
    // Fixture values holding ':' and '"': the whitespace case once spaced every ':' of the text, strings too (a receiver URL became another).
    const fixtures = { 'v1.webhooks': { url: 'https://hooks.example:8443/in?x="a:b"' }, 'v8.missions.succeeds': { goalSpec: { task: 'succeeds: summarise "three" documents' }, resourceBudget: { maximumSteps: 5, maximumToolCalls: 2, maximumElapsedMs: 60000, maximumParallelism: 1 } } };
    for (const surface of ['v8', 'v1'] as const) {
      const deep = httpCases({ surface, credential, fixtures, readOnly: false, depth: 'deep' });
      const bases = new Map(ENDPOINTS.filter((e) => e.surface === surface && e.bodies.length > 0).map((e) => [`${e.method} ${e.path}`, baseRequest(e, credential, fixtures).json]));
      let checked = 0;
      for (const c of deep.filter((x) => x.operator.startsWith('json-text.') && x.sent.kind === 'http')) {
        const body = (c.sent.request as { rawBody?: string }).rawBody!;
        const base = bases.get(c.endpoint);
        const what = `${c.operator} on ${c.endpoint}: ${body.slice(0, 80)}`;
        if (c.same) expect(JSON.parse(body.replace(/^\uFEFF/, '')), what).toEqual(base);
        else expect(body, what).not.toBe(JSON.stringify(base));
        // An object-led body (a mission's goalSpec) was sent unchanged by the pattern this replaced, as if it were the duplicate.
        if (c.operator === 'json-text.duplicate-key') expect(hasDuplicateKey(body), what).toBe(true);
        checked += 1;
      }
      expect(checked).toBeGreaterThan(10);
      // Whatever the family, a case sends something its base does not (fresh idempotency keys aside).
      const wire = (r: { method: string; path: string; headers?: Record<string, string>; json?: unknown; rawBody?: string; credential?: { token: string } | null }) =>
        JSON.stringify([r.method, r.path, Object.entries(r.headers ?? {}).filter(([k]) => k.toLowerCase() !== 'idempotency-key').map(([k, v]) => [k.toLowerCase(), v]).sort(), r.json !== undefined ? JSON.stringify(r.json) : r.rawBody, r.credential?.token]);
      const baseWire = new Map(ENDPOINTS.filter((e) => e.surface === surface).map((e) => [`${e.method} ${e.path}`, wire(baseRequest(e, credential, fixtures) as never)]));
      for (const c of deep.filter((x) => x.sent.kind === 'http')) expect(wire(c.sent.request as never), `${c.operator} (${c.label}) on ${c.endpoint}`).not.toBe(baseWire.get(c.endpoint));
      expect(deep.some((c) => c.operator === 'json-text.whitespace' && (c.sent.request as { rawBody?: string }).rawBody!.includes(surface === 'v8' ? 'succeeds: summarise' : 'hooks.example:8443'))).toBe(true);
    }
  });

  it('gives every case its own idempotency key, so the cases of one operator on one endpoint never replay one another', () => {
    for (const surface of ['v8', 'v1'] as const) {
      const deep = httpCases({ surface, credential, fixtures: {}, readOnly: false, depth: 'deep' });
      const keyOf = (c: (typeof deep)[number]) => (c.sent.kind === 'http' ? c.sent.request.headers?.['idempotency-key'] : c.sent.request.headers.find(([n]) => n.toLowerCase() === 'idempotency-key')?.[1]);
      const keyed = deep.map(keyOf).filter((k): k is string => k !== undefined);
      // Four injection bodies on one create once went under one key: three were a 409 and never reached the handler.
      if (surface === 'v8') expect(deep.filter((c) => c.operator === 'field.string.injection' && keyOf(c) !== undefined).length).toBeGreaterThan(3);
      expect(new Set(keyed).size, surface).toBe(keyed.length);
    }
  });

  it('prices each depth: quick below default below deep', () => {
    const [quick, byDefault, deep] = depthTable(false);
    expect(quick!.requests).toBeLessThan(byDefault!.requests);
    expect(byDefault!.requests).toBeLessThan(deep!.requests);
  });

  it('states an expectation only with its sentence, derives the rest and opens what the operator changed', () => {
    const sent = { method: 'GET', path: '/v8/context-twin/goals?apicert=1', headers: {}, credential: 'primary' };
    const open = expectationFor({ endpoint: 'GET /v8/context-twin/goals', operator: 'query.unknown', why: 'not stated' }, sent, undefined, { existing: [], parked: [], bases: {} });
    expect(open).toMatchObject({ kind: 'open', why: 'not stated' });
    const refused = expectationFor({ endpoint: 'GET /v8/context-twin/goals', operator: 'framing.missing-host', stated: { kind: 'refuse', because: { kind: 'standard', standard: 'RFC 9112', section: '§3.2' }, status: 400 } }, sent, undefined, { existing: [], parked: [], bases: {} });
    expect(refused).toMatchObject({ kind: 'refuse', status: 400, because: { standard: 'RFC 9112' } });
  });
});

describe('raw-socket requests', () => {
  it('writes the head as given (duplicates, order, line ending) and adds Host, Content-Length and Connection: close', () => {
    const text = rawBytes({ method: 'post', target: '/v8/./x', headers: [['X-A', '1'], ['X-A', '2']], body: '{}', credential: null }, 'h:1', { Authorization: 'Bearer t' }).toString('latin1');
    expect(text).toBe('post /v8/./x HTTP/1.1\r\nHost: h:1\r\nAuthorization: Bearer t\r\nX-A: 1\r\nX-A: 2\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}');
    expect(rawBytes({ method: 'GET', target: '/', headers: [['Transfer-Encoding', 'chunked']], body: '0\r\n\r\n', credential: null, omitHost: true, lineEnd: '\n' }, 'h', {}).toString()).toBe('GET / HTTP/1.1\nTransfer-Encoding: chunked\nConnection: close\n\n0\r\n\r\n');
  });

  it('reads the final answer after a 100 Continue, chunked or by Content-Length', () => {
    const chunked = parseAnswer(Buffer.from('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 400 Bad Request\r\nTransfer-Encoding: chunked\r\nContent-Type: a\r\n\r\n2\r\n{}\r\n0\r\n\r\n'), false);
    expect(chunked).toMatchObject({ status: 400, headers: { 'content-type': 'a' } });
    expect(chunked!.body.toString()).toBe('{}');
    expect(parseAnswer(Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nab'), false)!.body.toString()).toBe('a');
    expect(parseAnswer(Buffer.from('not http'), false)).toBeUndefined();
  });

  it('is bounded in time against a server that never answers', async () => {
    const server = createServer(() => undefined);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      await expect(sendRawBytes({ url: new URL(`http://127.0.0.1:${port}/`), timeoutMs: 200, maxBytes: 1024 }, Buffer.from('GET / HTTP/1.1\r\n\r\n'))).rejects.toThrow(/no complete answer/);
    } finally {
      server.close();
    }
  });
});

describe('the catalogue against the fake', () => {
  it('passes the clean fake at quick depth and reports what each operator found', async () => {
    const { results, report } = await certify({ patterns: ['v8.catalogue.*', 'v1.catalogue.*', 'mcp.catalogue.*'], seed: 3, adjustEmbeddedProfile: (p) => ({ ...p, safety: { ...p.safety, probeDepth: 'quick' } }) });
    expect(results.map((r) => `${r.rule.id}: ${r.verdict} ${r.reason ?? ''}`).filter((l) => !/: (pass|not-applicable) /.test(`${l} `))).toEqual([]);
    expect(report.observations.some((o) => o.subject.startsWith('operators '))).toBe(true);
    expect(report.run.requestsByFamily?.['v8.catalogue']).toBeGreaterThan(0);
  });
});
