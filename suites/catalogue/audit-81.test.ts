/**
 * audit-81: (1) a redirect is no final answer: a target that redirects every catalogue and generated
 * case leaves those rules nothing judged, so they are inconclusive (active) or untestable (a
 * recording), naming the redirect, never a pass or a not-applicable; a run with some cases judged
 * passes on those. (2) RFC 9110 §5.5: whitespace around a header value is not part of it, so a request
 * whose documented header values carry it gets the plain request's answer.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpCases, mcpCases } from '../../src/checks/catalogue/plan.ts';
import { catalogueJudgement } from '../../src/checks/catalogue/traffic.ts';
import { sentenceText } from '../../src/contract/sentence.ts';
import { judgeRecording } from '../../src/passive/judge.ts';
import { HarRecorder, hidingFor } from '../../src/passive/recorder.ts';
import { parseProfile } from '../../src/profile/load.ts';
import { certify, HARNESS_VERSION, redactorFor } from '../../src/runner/certify.ts';
import { runJudgement, type Exchange, type RawRequest, type RuleResult } from '../../src/rule/index.ts';
import { exchangesOf, stripApicert } from '../passive/record.ts';

const TOKEN = 'tok-audit81-redirect-000000001';
const RULES = ['v8.catalogue.no-5xx', 'v8.catalogue.error-status', 'v8.contract.generated.error-status'];
const REDIRECT = /a redirect \(307 to http:\/\/127\.0\.0\.1:1\/elsewhere\/v8\/[^ ?]*\): apicert does not follow redirects, the final answer is unknown/;

/**
 * `redirect(req)`: whether to answer 307 (with a Location carrying a query the report must not show);
 * else a /v8 problem refusing it with the status the error table names for its likely cause (401
 * without the token, 404 for a resource by id, else 400).
 */
function startTarget(redirect: (req: Pick<IncomingMessage, 'method' | 'url'>) => boolean): Promise<Server> {
  const location = (url: string) => `http://127.0.0.1:1/elsewhere${url.split('?', 1)[0]}?state=audit81-location-query`;
  // Node's own parser refuses a message without Host, or with a malformed head, before a handler sees it: this target redirects those too.
  const server = createServer({ requireHostHeader: false, insecureHTTPParser: true }, (req, res) => {
    req.resume();
    req.on('end', () => {
      if (redirect(req)) {
        res.writeHead(307, { location: location(req.url ?? '/') });
        res.end();
        return;
      }
      const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
      const status = !/^bearer +tok-audit81-redirect-000000001\s*$/i.test(req.headers.authorization ?? '') ? 401 : req.method === 'GET' && /^\/v8\/[^/]+\/[^/]+/.test(path) ? 404 : 400;
      res.writeHead(status, { 'content-type': 'application/problem+json' });
      res.end(JSON.stringify({ type: 'about:blank', title: 'Refused', status, detail: 'refused', code: 'refused', requestId: '0190a8f0-1c2d-7e3f-8a4b-5c6d7e8f9a0b' }));
    });
  });
  server.on('clientError', (_error, socket) => {
    if (socket.writable) socket.end(`HTTP/1.1 307 Temporary Redirect\r\nLocation: ${location('/v8/framing')}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function profileFor(server: Server) {
  const { port } = server.address() as AddressInfo;
  return parseProfile({ target: `http://127.0.0.1:${port}`, credentials: [{ name: 'primary', token: TOKEN, surfaces: ['v8'], scopes: ['missions:read', 'missions:write'] }], safety: { allowMutations: true, requestBudget: 20_000, requestTimeoutMs: 3_000 } }, 'audit-81 profile');
}

const byId = (results: readonly RuleResult[]) => Object.fromEntries(results.map((r) => [r.rule.id, r]));

describe('audit-81 #1: a target that redirects every case', () => {
  let server: Server;
  let active: Record<string, RuleResult>;
  let passive: Record<string, RuleResult>;

  beforeAll(async () => {
    server = await startTarget(() => true);
    const profile = profileFor(server);
    const recorder = new HarRecorder();
    active = byId((await certify({ profile, rules: RULES, seed: 7, recorder })).results);
    const written = JSON.parse(JSON.stringify(recorder.document(HARNESS_VERSION, hidingFor(profile, redactorFor(profile))))) as { log: { entries: unknown[] } };
    // Without the few requests whose body the recording keeps only in part (those lack their request, redirected or not): what it lacks is the redirected answers.
    const whole = exchangesOf(stripApicert(written)).filter((ex) => !ex.requestBodyTruncated && ex.requestBodyMissing === undefined);
    passive = byId((await judgeRecording(whole, { env: {}, profile, patterns: RULES })).results);
  }, 180_000);
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('active: the catalogue and generated rules are inconclusive, naming the redirect (origin and path of its Location, no query)', () => {
    for (const id of RULES) {
      expect(active[id]?.verdict, `${id}: ${active[id]?.reason}`).toBe('inconclusive');
      expect(active[id]?.reason ?? '', id).toMatch(REDIRECT);
      expect(active[id]?.reason ?? '', id).not.toContain('audit81-location-query');
    }
  });

  it('a recording of the same run: untestable, naming the redirect, not "nothing to judge"', () => {
    for (const id of RULES) {
      expect(passive[id]?.verdict, `${id}: ${passive[id]?.reason}`).toBe('untestable');
      expect(passive[id]?.reason ?? '', id).toMatch(REDIRECT);
    }
  });
});

describe('audit-81 #1: a target that redirects only the cases on a mission id', () => {
  let server: Server;
  let active: Record<string, RuleResult>;

  beforeAll(async () => {
    // By the path as the target reads it (an absolute-form target too).
    server = await startTarget((req) => /^\/v8\/missions\/[^/]+/.test(new URL(req.url ?? '/', 'http://127.0.0.1').pathname));
    active = byId((await certify({ profile: profileFor(server), rules: ['v8.catalogue.error-status', 'v8.contract.generated.error-status'], seed: 7 })).results);
  }, 180_000);
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('passes on the cases it judged (each refused with a /v8 problem 400), the redirected ones left unjudged', () => {
    for (const id of ['v8.catalogue.error-status', 'v8.contract.generated.error-status']) expect(active[id]?.verdict, `${id}: ${active[id]?.reason}`).toBe('pass');
  });
});

describe('audit-81 #2: whitespace around header values (RFC 9110 §5.5)', () => {
  const v8Cases = httpCases({ surface: 'v8', credential: { name: 'primary', token: TOKEN } as never, fixtures: {}, readOnly: false, depth: 'deep' }).filter((c) => c.operator === 'header.value-whitespace');

  it('pads every header line of the base and the Authorization line, on a raw socket, with the plain request\'s expectation and §5.5\'s sentence', () => {
    expect(v8Cases.map((c) => c.label)).toEqual(expect.arrayContaining(['SP and HTAB around every header value', 'trailing SP and HTAB after every header value']));
    const post = v8Cases.find((c) => c.endpoint === 'POST /v8/missions' && c.label === 'SP and HTAB around every header value')!;
    expect(post.sent.kind).toBe('raw');
    const request = post.sent.request as RawRequest;
    expect(request.headers.find(([n]) => n.toLowerCase() === 'content-type')?.[1]).toBe(' \tapplication/json \t');
    expect(request.headers.find(([n]) => n.toLowerCase() === 'idempotency-key')?.[1]).toMatch(/^ \t\S{16,128} \t$/);
    expect(request.place).toEqual({ header: 'Authorization', before: ' \tBearer ', after: ' \t' });
    expect(sentenceText(post.same!)).toContain('a field parsing implementation MUST exclude such whitespace prior to evaluating the field value.');
    expect(post.stated).toBeUndefined();
  });

  it('the clean fake and the fault: a fake that refuses a padded value 400 fails v8.catalogue.error-status, naming the case', async () => {
    const clean = await certify({ rules: ['v8.catalogue.error-status'], seed: 7 });
    expect(clean.results.map((r) => `${r.rule.id}: ${r.verdict}`)).toEqual(['v8.catalogue.error-status: pass']);
    const broken = await certify({ rules: ['v8.catalogue.error-status'], faults: ['v8.catalogue.error-status/padded-value-400'], seed: 7 });
    expect(broken.results[0]?.verdict).toBe('fail');
    expect(broken.results[0]?.reason).toMatch(/header\.value-whitespace \(SP and HTAB around every header value\)/);
  }, 180_000);

  it('/mcp: a padded ping in the session is the plain ping (must be answered), judged from the journal', () => {
    const SESSION = 'apicert-audit81-session';
    const profile = parseProfile({ target: 'http://127.0.0.1:1', credentials: [{ name: 'primary', token: TOKEN, surfaces: ['mcp'] }] }, 'audit-81 mcp profile');
    const ping = mcpCases('deep', undefined).find((c) => c.operator === 'mcp-params.value-whitespace')!;
    expect(sentenceText(ping.same!)).toContain('A field value does not include leading or trailing whitespace.');
    const journal = (status: number, body: string, contentType: string): Exchange[] => [
      { index: 0, method: 'POST', url: 'http://127.0.0.1:1/mcp', path: '/mcp', requestHeaders: { authorization: `Bearer ${TOKEN}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json' }, requestBody: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }), status: 200, responseHeaders: { 'content-type': 'application/json', 'mcp-session-id': SESSION }, responseBody: '{"jsonrpc":"2.0","id":1,"result":{}}' },
      { index: 1, method: 'POST', url: 'http://127.0.0.1:1/mcp', path: '/mcp', requestHeaders: { authorization: `Bearer ${TOKEN}`, ...ping.headers, 'mcp-session-id': SESSION }, requestBody: JSON.stringify((ping.body as { json: unknown }).json), status, responseHeaders: { 'content-type': contentType }, responseBody: body },
    ];
    const verdicts = (exchanges: Exchange[]) => {
      const cases: boolean[] = [];
      runJudgement({ check: (held: unknown) => (cases.push(Boolean(held)), Boolean(held)), observe: () => undefined } as never, catalogueJudgement('mcp', 'accepts-valid'), exchanges, { source: 'active', profile, partial: true });
      return cases;
    };
    expect(verdicts(journal(200, '{"jsonrpc":"2.0","id":"apicert-padded-values","result":{}}', 'application/json'))).toEqual([true]);
    expect(verdicts(journal(400, '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"bad header"}}', 'application/json'))).toEqual([false]);
  });
});

describe('a 304 is a final answer, not a redirect (audit-84 D3)', () => {
  it('RFC 9110 15.4.5: a 304 to a conditional request is judged as an answer, never lacked as a redirect', async () => {
    const { isRedirect, judgeAnswer } = await import('../../src/checks/generated/judgement.ts');
    expect(isRedirect(304)).toBe(false);
    expect(isRedirect(307)).toBe(true);
    const sent = { method: 'GET', path: '/v8/missions/x', headers: { 'if-none-match': '*' }, credential: null } as Parameters<typeof judgeAnswer>[0];
    const judged = judgeAnswer(sent, { kind: 'open', why: 'a condition' } as Parameters<typeof judgeAnswer>[1], { status: 304, headers: {}, contentType: '', json: undefined, text: '' });
    expect(judged.unjudged).toBeUndefined();
  });
});
