/**
 * audit-93 N4: a target that goes away mid-run (answers the preflight, then refuses every connection)
 * leaves every catalogue case sent but unanswered. The catalogue rules judged nothing because of
 * transport trouble: inconclusive (active) or untestable (a recording), naming the missing answer;
 * never "no catalogue case sent carries a stated refusal" (not-applicable, which `--rerun` skips).
 * Not-applicable stays for a journal holding no catalogue case at all, and a run with some cases
 * answered passes on those.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpCases } from '../../src/checks/catalogue/plan.ts';
import { catalogueJudgement } from '../../src/checks/catalogue/traffic.ts';
import { judgeRecording } from '../../src/passive/judge.ts';
import { HarRecorder, hidingFor } from '../../src/passive/recorder.ts';
import { parseProfile } from '../../src/profile/load.ts';
import type { Profile } from '../../src/profile/schema.ts';
import { certify, HARNESS_VERSION, redactorFor } from '../../src/runner/certify.ts';
import { runJudgement, type Exchange, type RuleResult } from '../../src/rule/index.ts';
import { exchangesOf, stripApicert } from '../passive/record.ts';

const V8 = 'tok-audit93-v8-gone-0000000001';
const V1 = 'tok-audit93-v1-gone-0000000001';
const MCP = 'tok-audit93-mcp-gone-000000001';
const ASPECTS = ['no-5xx', 'problem-json', 'error-status'] as const;
const RULES = ['v8', 'v1'].flatMap((s) => ASPECTS.map((a) => `${s}.catalogue.${a}`));
const MCP_RULES = [...ASPECTS, 'accepts-valid'].map((a) => `mcp.catalogue.${a}`);
const NO_ANSWER = /no answer \(/;

function problem(status: number): string {
  return JSON.stringify({ type: 'about:blank', title: 'Refused', status, detail: 'refused', code: 'refused', requestId: '0190a8f0-1c2d-7e3f-8a4b-5c6d7e8f9a0b' });
}

/** Answers the first request (the preflight) with a problem 404, then closes its listener and every connection, as a pod killed mid-run. */
function dyingTarget(): Promise<Server> {
  let served = 0;
  const server = createServer((req, res) => {
    served += 1;
    req.resume();
    res.writeHead(404, { 'content-type': 'application/problem+json' });
    res.end(problem(404));
    if (served === 1) {
      server.close();
      server.closeAllConnections();
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** Answers the preflight and the MCP handshake (initialize, then the initialized notification), then goes away. */
function mcpDyingTarget(): Promise<Server> {
  let handshake = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      if (!(req.url ?? '').startsWith('/mcp')) {
        res.writeHead(404, { 'content-type': 'application/problem+json' });
        res.end(problem(404));
        return;
      }
      const message = JSON.parse(body || '{}') as { id?: unknown; method?: string };
      // The first probe of an MCP-only run (a POST of `{}`) is no part of the handshake.
      if (message.method === undefined) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } }));
        return;
      }
      handshake += 1;
      if (message.method === 'initialize') {
        res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'sess-audit93-00000001' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: '2025-03-26', capabilities: { tools: {} }, serverInfo: { name: 'audit-93', version: '1' } } }));
      } else {
        res.writeHead(202);
        res.end();
      }
      if (handshake === 2) {
        server.close();
        server.closeAllConnections();
      }
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function profileAt(origin: string, allowMutations = true): Profile {
  return parseProfile(
    {
      target: origin,
      credentials: [
        { name: 'primary', token: V8, surfaces: ['v8'], scopes: ['missions:read', 'missions:write'] },
        { name: 'v1-primary', token: V1, surfaces: ['v1'], scopes: ['runs:read', 'runs:write'] },
        { name: 'mcp-primary', token: MCP, surfaces: ['mcp'] },
      ],
      safety: { allowMutations, requestBudget: 20_000, requestTimeoutMs: 3_000, probeDepth: 'quick' },
    },
    'audit-93 profile',
  );
}

const byId = (results: readonly RuleResult[]) => Object.fromEntries(results.map((r) => [r.rule.id, r]));

describe('audit-93 N4: a target that goes away after the preflight', () => {
  let active: Record<string, RuleResult>;
  let passive: Record<string, RuleResult>;
  let readOnly: Record<string, RuleResult>;
  let mcp: Record<string, RuleResult>;

  beforeAll(async () => {
    const gone = await dyingTarget();
    readOnly = byId((await certify({ profile: profileAt(`http://127.0.0.1:${(gone.address() as AddressInfo).port}`, false), rules: RULES, seed: 7 })).results);
    const handshaken = await mcpDyingTarget();
    mcp = byId((await certify({ profile: profileAt(`http://127.0.0.1:${(handshaken.address() as AddressInfo).port}`), rules: MCP_RULES, seed: 7 })).results);
    const server = await dyingTarget();
    const profile = profileAt(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    const recorder = new HarRecorder();
    active = byId((await certify({ profile, rules: RULES, seed: 7, recorder })).results);
    const written = JSON.parse(JSON.stringify(recorder.document(HARNESS_VERSION, hidingFor(profile, redactorFor(profile))))) as { log: { entries: unknown[] } };
    passive = byId((await judgeRecording(exchangesOf(stripApicert(written)), { env: {}, profile, patterns: RULES })).results);
  }, 180_000);

  it('active: every catalogue rule of /v8 and /v1 is inconclusive, naming the missing answer, none not-applicable', () => {
    for (const id of RULES) expect(active[id]?.verdict, `${id}: ${active[id]?.reason}`).toBe('inconclusive');
    for (const id of RULES) expect(active[id]?.reason ?? '', id).toMatch(NO_ANSWER);
  });

  it('read-only: the cases on reads were sent, so still inconclusive, not "no catalogue case of this kind is a read"', () => {
    for (const id of RULES) expect(readOnly[id]?.verdict, `${id}: ${readOnly[id]?.reason}`).toBe('inconclusive');
    for (const id of RULES) expect(readOnly[id]?.reason ?? '', id).toMatch(NO_ANSWER);
  });

  it('/mcp, gone after the handshake: every catalogue rule (accepts-valid too) is inconclusive, naming the missing answer', () => {
    for (const id of MCP_RULES) expect(mcp[id]?.verdict, `${id}: ${mcp[id]?.reason}`).toBe('inconclusive');
    for (const id of MCP_RULES) expect(mcp[id]?.reason ?? '', id).toMatch(NO_ANSWER);
  });

  it('a recording of the same run: untestable, naming the missing answer, not "nothing to judge"', () => {
    for (const id of RULES) expect(passive[id]?.verdict, `${id}: ${passive[id]?.reason}`).toBe('untestable');
    for (const id of RULES) expect(passive[id]?.reason ?? '', id).toMatch(NO_ANSWER);
  });
});

describe('audit-93 N4: a hand-built journal', () => {
  const profile = profileAt('http://127.0.0.1:9');
  const credential = profile.credentials.find((c) => c.name === 'primary')!;
  // A stated refusal the client sends as an ordinary request: the journal holds it as the catalogue builds it.
  const stated = httpCases({ surface: 'v8', depth: 'quick', credential, fixtures: {}, readOnly: false }).find((c) => c.stated?.kind === 'refuse' && c.sent.kind === 'http' && c.sent.request.credential !== null);
  const ctx = { check: (ok: unknown) => Boolean(ok), observe: () => undefined };

  function exchangeOf(answer: { status: number } | { error: string }, index = 0): Exchange {
    if (!stated || stated.sent.kind !== 'http') throw new Error('no stated refusal sent as an ordinary request');
    const r = stated.sent.request;
    const body = r.json !== undefined ? JSON.stringify(r.json) : r.rawBody;
    const headers: Record<string, string> = { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...Object.fromEntries(Object.entries(r.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v])), authorization: `Bearer ${credential.token}` };
    const ex: Exchange = { index, method: r.method, url: `http://127.0.0.1:9${r.path}`, path: r.path, requestHeaders: headers, credential: 'primary', responseHeaders: {}, ...(body !== undefined ? { requestBody: body } : {}) };
    if ('status' in answer) {
      ex.status = answer.status;
      ex.responseHeaders = { 'content-type': 'application/problem+json' };
      ex.responseBody = problem(answer.status);
    } else ex.error = answer.error;
    return ex;
  }

  const run = (exchanges: readonly Exchange[], source: 'active' | 'recording') => runJudgement(ctx, catalogueJudgement('v8', 'error-status'), exchanges, { source, profile });

  it('the exchange is a catalogue case: answered with the refusal its error table names, error-status judges it', () => {
    const status = stated?.stated?.kind === 'refuse' ? (stated.stated.status ?? 400) : 400;
    expect(run([exchangeOf({ status })], 'active').judged.size).toBe(1);
  });

  it('sent and unanswered: error-status lacks its answer (the kernel makes that inconclusive or untestable), judging nothing', () => {
    for (const source of ['active', 'recording'] as const) {
      const result = run([exchangeOf({ error: 'connect ECONNREFUSED 127.0.0.1:9' })], source);
      expect(result.judged.size, source).toBe(0);
      expect(result.lacking.map((l) => l.missing), source).toEqual([expect.stringMatching(/^no answer \(connect ECONNREFUSED/)]);
    }
  });

  it('no catalogue case in the journal: nothing judged, nothing lacked (not-applicable stays)', () => {
    const preflight: Exchange = { index: 0, method: 'GET', url: 'http://127.0.0.1:9/v8/missions/00000000-0000-7000-8000-000000000000', path: '/v8/missions/00000000-0000-7000-8000-000000000000', requestHeaders: {}, error: 'connect ECONNREFUSED 127.0.0.1:9', responseHeaders: {} };
    const result = run([preflight], 'active');
    expect(result.judged.size).toBe(0);
    expect(result.lacking).toEqual([]);
  });
});

describe('audit-93 N4: a target that answers some cases and resets the others', () => {
  let server: Server;
  let active: Record<string, RuleResult>;

  beforeAll(async () => {
    let seen = 0;
    // Every other request on a mission id has its connection reset; the rest are refused with a /v8 problem.
    server = createServer((req, res) => {
      req.resume();
      if (/^\/v8\/missions\/[^/?]+/.test(req.url ?? '') && (seen += 1) % 2 === 0) {
        req.socket.destroy();
        return;
      }
      const status = !/^bearer +tok-audit93-v8-gone-0000000001\s*$/i.test(req.headers.authorization ?? '') ? 401 : req.method === 'GET' && /^\/v8\/[^/]+\/[^/]+/.test(req.url ?? '') ? 404 : 400;
      res.writeHead(status, { 'content-type': 'application/problem+json' });
      res.end(problem(status));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    active = byId((await certify({ profile: profileAt(`http://127.0.0.1:${(server.address() as AddressInfo).port}`), rules: ['v8.catalogue.error-status'], seed: 7 })).results);
  }, 180_000);
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('passes on the cases it judged: the unanswered ones do not make it inconclusive', () => {
    expect(active['v8.catalogue.error-status']?.verdict, active['v8.catalogue.error-status']?.reason).toBe('pass');
  });
});
