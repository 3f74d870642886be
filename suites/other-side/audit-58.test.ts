/**
 * What audit 58 found judged wrongly on the other side, each pinned: a new request right after a
 * 429 under a new key and requestId, a 409 followed by nothing, a receiver that parses before it
 * verifies, one whose answer body passes the cap, a tolerance a little over 300 s, and an
 * interrupt during the receiver preflight.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recorded, sessionJudge } from './client-sessions.ts';
import type { RuleResult } from '../../src/rule/index.ts';
import { clientRules } from '../../src/client-judge/rules.ts';
import { receiverRules } from '../../src/receiver-cert/rules.ts';
import { ALL_PASS, certifyAgainst, verdicts } from './legal-receivers.ts';

const ex = recorded;
const judge = sessionJudge();

const verdict = (results: Map<string, RuleResult>, id: string) => results.get(id)?.verdict;
const reason = (results: Map<string, RuleResult>, id: string) => results.get(id)?.reason ?? '';
const keyed = (key: string) => ({ 'content-type': 'application/json', 'idempotency-key': key });
const turn = (requestId: string) => JSON.stringify({ apiVersion: 'v1', requestId, client: { kind: 'cli', name: 'c', version: '1' }, messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'hi' }] }] });
const task = (n: number) => JSON.stringify({ mode: 'task', task: { n } });
const refused = (status: 429 | 503, body: string, key: string, retryAfter?: string) =>
  ex({ index: 0, at: 0, method: 'POST', path: '/v1/execute', headers: keyed(key), body, status, respondedAt: 5, adversity: `answered ${status}`, ...(retryAfter ? { responseHeaders: { 'retry-after': retryAfter } } : {}) });

describe('after a 429 or 503: the next request and the same work under a new key', () => {
  it('a turn re-posted at once under a new key and a new requestId fails retry-after and retry-429-same-key', async () => {
    const results = await judge({
      scenario: 'rate-limited',
      exchanges: [refused(429, turn('req-1'), 'key-aaaaaaaaaaaaaaaa', '30'), ex({ index: 1, at: 20, method: 'POST', path: '/v1/execute', headers: keyed('key-bbbbbbbbbbbbbbbb'), body: turn('req-2'), status: 200 })],
    });
    expect(verdict(results, 'client.v1.limits.retry-after'), reason(results, 'client.v1.limits.retry-after')).toBe('fail');
    expect(reason(results, 'client.v1.limits.retry-after')).toMatch(/retried \(#1 POST \/v1\/execute\) 15 ms after the 429, sooner than the 30000 ms Retry-After: 30/);
    expect(verdict(results, 'client.v1.errors.retry-429-same-key'), reason(results, 'client.v1.errors.retry-429-same-key')).toBe('fail');
    expect(reason(results, 'client.v1.errors.retry-429-same-key')).toMatch(/used another Idempotency-Key instead of the refused request's key/);
  });

  it('other work posted at once after a 429 fails retry-after (a "new request", RFC 6585 §4); the same-key rule has no retry to judge', async () => {
    const results = await judge({
      scenario: 'rate-limited',
      exchanges: [refused(429, task(1), 'key-aaaaaaaaaaaaaaaa', '30'), ex({ index: 1, at: 100, method: 'POST', path: '/v1/execute', headers: keyed('key-bbbbbbbbbbbbbbbb'), body: task(2), status: 200 })],
    });
    expect(verdict(results, 'client.v1.limits.retry-after')).toBe('fail');
    expect(reason(results, 'client.v1.limits.retry-after')).toMatch(/posted other work \(#1 POST \/v1\/execute\) 95 ms after the 429/);
    expect(verdict(results, 'client.v1.errors.retry-429-same-key')).toBe('not-applicable');
  });

  it('without Retry-After, the same turn under a new key and requestId at once fails the default hint', async () => {
    const results = await judge({
      scenario: 'rate-limited-no-hint',
      exchanges: [refused(429, turn('req-1'), 'key-aaaaaaaaaaaaaaaa'), ex({ index: 1, at: 200, method: 'POST', path: '/v1/execute', headers: keyed('key-bbbbbbbbbbbbbbbb'), body: turn('req-2'), status: 200 })],
    });
    expect(verdict(results, 'client.v1.limits.default-retry-hint'), reason(results, 'client.v1.limits.default-retry-hint')).toBe('fail');
  });

  it('after a 503, the same turn under a new key with a new requestId fails retry-503-same-key', async () => {
    const results = await judge({
      scenario: 'limiter-unavailable',
      exchanges: [refused(503, turn('req-1'), 'key-aaaaaaaaaaaaaaaa'), ex({ index: 1, at: 61_000, method: 'POST', path: '/v1/execute', headers: keyed('key-bbbbbbbbbbbbbbbb'), body: turn('req-2'), status: 200 })],
    });
    expect(verdict(results, 'client.v1.errors.retry-503-same-key')).toBe('fail');
    expect(reason(results, 'client.v1.errors.retry-503-same-key')).toMatch(/used another Idempotency-Key instead of the refused request's key/);
  });

  it('legal: a POST already under way when the 429 was sent does not count, and the identical retry after Retry-After passes both rules', async () => {
    const results = await judge({
      scenario: 'rate-limited',
      exchanges: [
        refused(429, turn('req-1'), 'key-aaaaaaaaaaaaaaaa', '30'),
        ex({ index: 1, at: 2, method: 'POST', path: '/v1/execute', headers: keyed('key-cccccccccccccccc'), body: task(9), status: 200 }),
        ex({ index: 2, at: 30_010, method: 'POST', path: '/v1/execute', headers: keyed('key-aaaaaaaaaaaaaaaa'), body: turn('req-1'), status: 200 }),
      ],
    });
    expect(verdict(results, 'client.v1.limits.retry-after'), reason(results, 'client.v1.limits.retry-after')).toBe('pass');
    expect(verdict(results, 'client.v1.errors.retry-429-same-key'), reason(results, 'client.v1.errors.retry-429-same-key')).toBe('pass');
  });

  it('a task body keeps every field: other work under another key is not a retry of it', async () => {
    const results = await judge({
      scenario: 'limiter-unavailable',
      exchanges: [refused(503, JSON.stringify({ mode: 'task', requestId: 'r-1', task: { n: 1 } }), 'key-aaaaaaaaaaaaaaaa'), ex({ index: 1, at: 61_000, method: 'POST', path: '/v1/execute', headers: keyed('key-bbbbbbbbbbbbbbbb'), body: JSON.stringify({ mode: 'task', requestId: 'r-2', task: { n: 1 } }), status: 200 })],
    });
    expect(verdict(results, 'client.v1.errors.retry-503-same-key')).toBe('not-applicable');
  });
});

describe('after a 409 conflict, nothing more', () => {
  const conflict = ex({ index: 0, method: 'POST', path: '/v1/execute', headers: keyed('key-aaaaaaaaaaaaaaaa'), body: task(1), status: 409, adversity: 'answered 409 conflict' });

  it('is not-applicable when the client ended well, like the retry rules; never a pass', async () => {
    const results = await judge({ scenario: 'idempotency-conflict', exchanges: [conflict, ex({ index: 1, method: 'GET', path: '/v1/usage', status: 200 })] });
    expect(verdict(results, 'client.v1.errors.conflict-new-key')).toBe('not-applicable');
    expect(reason(results, 'client.v1.errors.conflict-new-key')).toMatch(/sent no POST \/v1\/execute after the 409/);
  });

  it('is inconclusive when the client exited non-zero, with its failure in the reason', async () => {
    const results = await judge({ scenario: 'idempotency-conflict', exchanges: [conflict], ended: 'exit', exitCode: 1, output: 'Error: client crashed at status 409' });
    expect(verdict(results, 'client.v1.errors.conflict-new-key')).toBe('inconclusive');
    expect(reason(results, 'client.v1.errors.conflict-new-key')).toMatch(/exited with code 1.*\n.*client crashed at status 409/s);
  });

  it('new work under a new key still passes', async () => {
    const results = await judge({ scenario: 'idempotency-conflict', exchanges: [conflict, ex({ index: 1, method: 'POST', path: '/v1/execute', headers: keyed('key-bbbbbbbbbbbbbbbb'), body: task(1), status: 200 })] });
    expect(verdict(results, 'client.v1.errors.conflict-new-key')).toBe('pass');
  });
});

describe('citations', () => {
  it('dropped-readback quotes Endpoints rule 5, which binds a streamed POST', () => {
    const rule = clientRules.find((c) => c.rule.id === 'client.v1.endpoints.dropped-readback')!.rule;
    expect(rule.spec.quote).toContain('A streamed POST is not retried automatically.');
    expect(rule.spec.quote).not.toContain('task-mode');
  });
});


describe.concurrent('receivers', () => {
  it('one that parses the body before verifying fails bad-signature (401 is due whatever a badly signed body holds), and nothing else', async () => {
    const { results } = await certifyAgainst({ parseFirst: true });
    expect(verdicts(results)).toEqual({ ...ALL_PASS, 'receiver.v1.webhooks.bad-signature': 'fail' });
    const why = results.find((r) => r.rule.id === 'receiver.v1.webhooks.bad-signature')!.cases.map((c) => c.reason).join('\n');
    expect(why).toMatch(/whose body is not JSON got 400, not 401/);
    expect(why).toMatch(/with apiVersion "v2" got 400, not 401/);
  });

  it('one that answers 400 to an unsigned delivery, verifying first, still passes (the seed names no status for a missing signature)', async () => {
    const { results } = await certifyAgainst({ unsignedStatus: 400 });
    expect(verdicts(results)).toEqual(ALL_PASS);
  });

  it('one whose answers carry a body over the 2 MiB cap passes every rule: only statuses are judged', async () => {
    const { report, results } = await certifyAgainst({ bigBodyBytes: 3 * 1024 * 1024 });
    expect(verdicts(results), results.map((r) => r.reason).join('; ')).toEqual(ALL_PASS);
    expect(report.observations.find((o) => o.ruleId === 'receiver.v1.webhooks.accepts-valid' && o.subject === 'answer body')?.value).toMatch(/cut at the body cap/);
  });

  it('a tolerance of 320 s fails both timestamp rules', async () => {
    const { results } = await certifyAgainst({ toleranceSeconds: 320 });
    expect(verdicts(results)).toEqual({ ...ALL_PASS, 'receiver.v1.webhooks.timestamp-past': 'fail', 'receiver.v1.webhooks.timestamp-future': 'fail' });
  });

  it('a receiver 200 s ahead with the 300 s tolerance still passes at the smaller margin', async () => {
    const { results } = await certifyAgainst({ clockOffsetSeconds: 200 });
    expect(verdicts(results)).toEqual(ALL_PASS);
  });
});

describe('an interrupt during the receiver preflight', () => {
  const BIN = new URL('../../bin/apicert.js', import.meta.url).pathname;

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('%s while the GET hangs: exit %i with the partial report, not "did not answer"', async (signal, code) => {
    const held = new Set<ServerResponse>();
    let asked!: () => void;
    const preflight = new Promise<void>((r) => (asked = r));
    // Holds every GET open: the preflight is under way when the signal comes.
    const server: Server = createServer((req, res) => {
      held.add(res);
      if (req.method === 'GET') asked();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const dir = mkdtempSync(join(tmpdir(), 'apicert-h61-preflight-'));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      const child = spawn(process.execPath, [BIN, 'certify-receiver', '--url', url, '--out', join(dir, 'out'), '--format', 'json'], { env: { ...process.env, APICERT_WEBHOOK_SECRET: 'whsec_preflight-test-0123456789' }, stdio: ['ignore', 'pipe', 'pipe'] });
      let err = '';
      child.stderr.on('data', (c: Buffer) => (err += c.toString()));
      child.stdout.on('data', (c: Buffer) => (err += c.toString()));
      void preflight.then(() => setTimeout(() => child.kill(signal), 300));
      const limit = setTimeout(() => child.kill('SIGKILL'), 40_000);
      const exit = await new Promise<number | null>((resolve) => child.once('close', (c) => (clearTimeout(limit), resolve(c))));
      expect(exit, err).toBe(code);
      expect(err).not.toMatch(/did not answer/);
      const report = JSON.parse(readFileSync(join(dir, 'out', 'latest', 'report.json'), 'utf8')) as { run: { stopped?: string }; rules: Array<{ verdict: string }> };
      expect(report.run.stopped).toMatch(new RegExp(signal));
      expect(report.rules.length).toBe(receiverRules.length);
      expect(report.rules.some((r) => r.verdict === 'pass')).toBe(false);
    } finally {
      for (const res of held) res.destroy();
      server.close();
    }
  }, 60_000);
});
