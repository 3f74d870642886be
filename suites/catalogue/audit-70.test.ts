/**
 * audit-70: catalogue cases that stated more than their sentences (a named 401 beside an open
 * query parameter, an acceptance of a 10,000-character id, a -32700 for text a parser's extension
 * reads), a stated framing case the catalogue lacked (a Content-Length that is not a number), and
 * mcp.session.never-issued, whose refusal no sentence states.
 */
import { describe, expect, it } from 'vitest';
import { httpCases, mcpCases } from '../../src/checks/catalogue/plan.ts';
import { expectationFor, judged } from '../../src/checks/catalogue/run.ts';
import { expectationOf, NOTHING_KNOWN, type SentRequest } from '../../src/checks/generated/expectation.ts';
import type { Answer } from '../../src/checks/generated/judgement.ts';
import { sentenceText } from '../../src/contract/sentence.ts';
import { rawBytes } from '../../src/probe/raw.ts';
import { RULES } from '../../src/registry.ts';
import { certify } from '../../src/runner/certify.ts';
import type { RuleResult } from '../../src/rule/index.ts';

const credential = { name: 'primary', token: 'service_sk_0123456789abcdef' } as never;
const answer = (status: number, text = '', contentType = ''): Answer => ({ status, headers: {}, contentType, json: undefined, text, cut: false });
const notPassing = (results: readonly RuleResult[]) => results.filter((r) => r.verdict !== 'pass' && r.verdict !== 'not-applicable').map((r) => `${r.rule.id}: ${r.verdict}: ${r.reason?.split('\n')[0]}`);
const SESSION = 'apicert-session-1';
const mcpPost = (body: string): SentRequest => ({ method: 'POST', path: '/mcp', headers: { 'content-type': 'application/json', 'mcp-session-id': SESSION }, credential: 'primary', body });

describe('audit-70 #1, S1: a /v8 token outside the Authorization header is refused, no status named', () => {
  const cases = httpCases({ surface: 'v8', credential, fixtures: {}, readOnly: false, depth: 'deep' }).filter((c) => c.operator === 'credentials.elsewhere');

  it('states the refusal on the header sentence, without the 401 an open cause (the query parameter, the cookie) may come before', () => {
    expect(cases.map((c) => c.label).sort()).toEqual(expect.arrayContaining(['token only in a cookie', 'token only in the query']));
    for (const c of cases) {
      expect(c.stated?.kind, `${c.endpoint} ${c.label}`).toBe('refuse');
      expect(c.stated?.status, `${c.endpoint} ${c.label}`).toBeUndefined();
      expect(sentenceText(c.stated!.because)).toContain('is required on every `/v8` call');
    }
  });

  it('a 400 problem+json passes error-status, a served request still fails it', () => {
    const c = cases.find((x) => x.label === 'token only in the query' && x.endpoint === 'POST /v8/missions')!;
    const sent: SentRequest = { method: 'POST', path: '/v8/missions?access_token=x', headers: { 'content-type': 'application/json' }, credential: null, body: '{}' };
    const e = expectationFor(c, sent, undefined, NOTHING_KNOWN);
    expect(judged(sent, e, answer(400, '{"type":"about:blank","title":"unknown query parameter","status":400}', 'application/problem+json'), c.permits, true).findings['error-status']?.ok).toBe(true);
    expect(judged(sent, e, answer(202, '{"runId":"r"}', 'application/json'), c.permits, true).findings['error-status']?.ok).toBe(false);
  });

  it('a gateway that refuses unknown query parameters 400 before reading the token passes v8.catalogue.error-status', async () => {
    const { results, variantsTaken } = await certify({ variants: ['v8.contract/unknown-query-400'], patterns: ['v8.catalogue.*'], seed: 7 });
    expect(variantsTaken).toEqual(['v8.contract/unknown-query-400']);
    expect(notPassing(results)).toEqual([]);
  }, 180_000);
});

describe('audit-70 #2: a 10,000-character id may get an error; a negative id rests on ping\'s sentence', () => {
  const ids = mcpCases('deep', undefined).filter((c) => c.operator === 'jsonrpc.id-forms');

  it('opens the long id (no sentence bounds an id, none forbids a server to), and states the negative id by MCP ping', () => {
    const long = ids.find((c) => c.label === 'a 10,000-character id')!;
    expect(long.stated).toBeUndefined();
    expect(long.why).toMatch(/length/);
    const negative = ids.find((c) => c.label === 'a negative id')!;
    expect(negative.stated?.kind).toBe('accept');
    expect(sentenceText(negative.stated!.because)).toContain('The receiver MUST respond promptly with an empty response');
  });

  it('a server that refuses an id over 1,024 characters with an error echoing it passes the catalogue and the id echo', async () => {
    const { results, variantsTaken } = await certify({ variants: ['mcp.jsonrpc/long-id-refused'], patterns: ['mcp.catalogue.*', 'mcp.jsonrpc.id-echoed'], depth: 'deep', seed: 7 });
    expect(variantsTaken).toEqual(['mcp.jsonrpc/long-id-refused']);
    expect(notPassing(results)).toEqual([]);
  }, 180_000);
});

describe('audit-70 #3: near-JSON on /mcp is open (RFC 8259 §9), as on /v1 and /v8', () => {
  it('the catalogue opens the trailing comma', () => {
    const comma = mcpCases('deep', undefined).find((c) => c.label === 'a trailing comma')!;
    expect(comma.stated).toBeUndefined();
    expect(comma.why).toMatch(/RFC 8259 §9/);
  });

  it('the expectation of a recording opens text an extension reads, and refuses text cut short with -32700', () => {
    const known = { ...NOTHING_KNOWN, mcpSession: SESSION };
    expect(expectationOf(mcpPost('{"jsonrpc":"2.0","id":"apicert-comma","method":"ping",}'), known)).toMatchObject({ kind: 'open', why: expect.stringContaining('RFC 8259 §9') });
    expect(expectationOf(mcpPost('{"jsonrpc":"2.0","id":"a","method":"ping"} {"x":1}'), known).kind).toBe('open');
    expect(expectationOf(mcpPost('{"jsonrpc":"2.0",'), known)).toMatchObject({ kind: 'refuse', codes: [-32700] });
    expect(expectationOf(mcpPost('{"jsonrpc": "2.0", "id": "apicert-1", "method": "ping"'), known)).toMatchObject({ kind: 'refuse', codes: [-32700] });
    expect(expectationOf(mcpPost('this is not json'), known)).toMatchObject({ kind: 'refuse', codes: [-32700] });
  });

  it('a server whose parser drops a trailing comma passes the /mcp catalogue and the JSON-RPC rules', async () => {
    const { results, variantsTaken } = await certify({ variants: ['mcp.jsonrpc/lenient-json'], patterns: ['mcp.catalogue.*', 'mcp.jsonrpc.*'], depth: 'deep', seed: 7 });
    expect(variantsTaken).toEqual(['mcp.jsonrpc/lenient-json']);
    expect(notPassing(results)).toEqual([]);
  }, 180_000);
});

describe('audit-70 missing probe: a single Content-Length that is not a number', () => {
  it('is a stated 400 (RFC 9112 §6.3), sent raw with one Content-Length: 1a, once per method at default and on every body endpoint at deep', () => {
    for (const surface of ['v8', 'v1'] as const) {
      const fixed = { surface, credential, fixtures: {}, readOnly: false };
      const deep = httpCases({ ...fixed, depth: 'deep' }).filter((c) => c.operator === 'framing.invalid-content-length');
      const byDefault = httpCases({ ...fixed, depth: 'default' }).filter((c) => c.operator === 'framing.invalid-content-length');
      expect(deep.length, surface).toBeGreaterThan(2);
      expect(byDefault.map((c) => c.endpoint.split(' ')[0])).toEqual(['POST']);
      for (const c of deep) {
        expect(c.stated).toMatchObject({ kind: 'refuse', status: 400 });
        expect(sentenceText(c.stated!.because)).toContain('the server MUST respond with a 400 (Bad Request) status code and then close the connection');
        expect(c.sent.kind).toBe('raw');
        if (c.sent.kind !== 'raw') continue;
        const head = rawBytes(c.sent.request, 'h:1', {}).toString('latin1').split('\r\n\r\n', 1)[0]!;
        expect(head.match(/^content-length:.*$/gim)).toEqual(['Content-Length: 1a']);
      }
    }
  });

  it('the HTTP layer\'s bodiless 400 passes; an answer served, or another refusal, fails error-status', () => {
    const c = httpCases({ surface: 'v8', credential, fixtures: {}, readOnly: false, depth: 'default' }).find((x) => x.operator === 'framing.invalid-content-length')!;
    const sent: SentRequest = { method: 'POST', path: '/v8/missions', headers: { 'content-length': '1a' }, credential: 'primary', body: '{}' };
    const e = expectationFor(c, sent, undefined, NOTHING_KNOWN);
    const layer = judged(sent, e, answer(400), c.permits, true);
    expect(layer.findings['error-status']?.ok).toBe(true);
    expect(layer.findings['problem-json']).toBeUndefined();
    expect(judged(sent, e, answer(202, '{"runId":"r"}', 'application/json'), c.permits, true).findings['error-status']?.ok).toBe(false);
    expect(judged(sent, e, answer(413, '{"status":413}', 'application/problem+json'), c.permits, true).findings['error-status']?.ok).toBe(false);
  });

  it('the fake (Node\'s HTTP parser) passes it on /v8 and /v1', async () => {
    const { results, report } = await certify({ patterns: ['v8.catalogue.error-status', 'v1.catalogue.error-status', 'v8.catalogue.no-5xx', 'v1.catalogue.no-5xx'], seed: 7 });
    expect(notPassing(results)).toEqual([]);
    const operators = report.observations.filter((o) => o.subject.startsWith('operators ')).map((o) => JSON.stringify(o.value));
    expect(operators.some((v) => v.includes('"framing.invalid-content-length":"1 ran, 1 stated'))).toBe(true);
  }, 180_000);
});

describe('audit-70 S: mcp.session.never-issued', () => {
  it('is a SHOULD: no MCP 2025-03-26 sentence states that an id the server never issued is refused', () => {
    const rule = RULES.find((r) => r.id === 'mcp.session.never-issued')!;
    expect(rule.level).toBe('should');
    expect(rule.spec.quote).toContain('SHOULD respond to requests without an Mcp-Session-Id header');
    expect(rule.spec.quote).not.toContain('MUST');
  });
});
