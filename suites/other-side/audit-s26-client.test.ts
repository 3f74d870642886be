/**
 * Audit s26 (library-built client) findings on the client judge. F3: a client that crashes on a
 * 429/503 or on a cut stream did not choose to stop, so the rules that wait on its next request are
 * inconclusive, never not-applicable, and the gate never passes on them. F1: the seed's default
 * is a "retry hint", so other work after a 429 without Retry-After is observed, not judged. F2, F4,
 * F5, F6: reasons that say which request started new work, the exit code where the client sent
 * nothing, a first line that is whole on the console, and an empty-body re-send called a broken replay.
 */
import { describe, expect, it } from 'vitest';
import { recorded, sessionJudge } from './client-sessions.ts';
import type { RuleResult } from '../../src/rule/index.ts';
import { judgeClient } from '../../src/client-judge/judge-client.ts';

const judge = sessionJudge();
const verdict = (results: Map<string, RuleResult>, id: string) => [results.get(id)?.verdict, results.get(id)?.reason];

/** A client script run through judge-client's front, as a library-built client would be. */
const script = (source: string): string[] => [process.execPath, '--input-type=module', '-e', source];
/**
 * A client that posts one streamed turn and handles a 409 with a new key, but ends with exit 1 on
 * a 429 or 503 (the unhandled rejection of a client without retry logic) or on a cut stream.
 */
const CRASHING_CLIENT = `
const base = process.env.APICERT_BASE_URL;
const body = JSON.stringify({ apiVersion: 'v1', requestId: 'req-crash-1', client: { kind: 'cli', name: 'crash', version: '1' }, messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'hi' }] }] });
const post = (key) => fetch(base + '/v1/execute', { method: 'POST', headers: { authorization: 'Bearer ' + process.env.APICERT_V1_KEY, 'content-type': 'application/json', accept: 'text/event-stream', 'idempotency-key': key }, body });
let res = await post('crash-key-0000000000000001');
if (res.status === 409) { await res.arrayBuffer(); res = await post('crash-key-0000000000000002'); }
if (res.status === 429 || res.status === 503) { console.error('unhandled: HTTP ' + res.status); process.exit(1); }
try { for await (const chunk of res.body) void chunk; } catch (error) { console.error('stream cut: unhandled ' + error.message); process.exit(1); }
`;
const crashed = (scenarios: Parameters<typeof judgeClient>[0]['scenarios']) =>
  judgeClient({ scenarios, timeScale: 0.02, command: script(CRASHING_CLIENT), maxSecondsPerScenario: 20, quietMs: 1_000, seed: 7 });

describe('F3: a client that crashes on the adversity', () => {
  it('on a 429 or 503: the retry rules are inconclusive with the exit code, and the gate does not pass', async () => {
    const { results, report, sessions } = await crashed(['rate-limited', 'rate-limited-no-hint', 'limiter-unavailable', 'idempotency-conflict']);
    expect(sessions.map((s) => s.exitCode)).toEqual([1, 1, 1, 0]);
    const byId = new Map(results.map((r) => [r.rule.id, r]));
    for (const id of ['client.v1.errors.retry-429-same-key', 'client.v1.limits.retry-after', 'client.v1.limits.default-retry-hint', 'client.v1.errors.retry-503-same-key']) {
      expect(byId.get(id)?.verdict, `${id}: ${byId.get(id)?.reason}`).toBe('inconclusive');
      expect(byId.get(id)?.reason).toMatch(/the client failed: scenario [\w-]+: the client exited with code 1\n\nIts last output:\nunhandled: HTTP (429|503)/);
    }
    // The one rule the client passes does not carry the run: before, the crash was not-applicable and the gate passed.
    expect(byId.get('client.v1.errors.conflict-new-key')?.verdict).toBe('pass');
    expect(report.summary.gate).not.toBe('pass');
  }, 60_000);

  it('on a cut turn stream: dropped-readback, streamed-retry and cursor are inconclusive, not not-applicable', async () => {
    const { results, sessions } = await crashed(['dropped-stream']);
    expect(sessions[0]!.exitCode, sessions[0]!.output).toBe(1);
    for (const id of ['client.v1.endpoints.dropped-readback', 'client.v1.endpoints.streamed-retry', 'client.v1.events.cursor']) {
      const result = results.find((r) => r.rule.id === id);
      expect(result?.verdict, `${id}: ${result?.reason}`).toBe('inconclusive');
      expect(result?.reason).toMatch(/scenario dropped-stream: the client exited with code 1\n\nIts last output:\nstream cut: unhandled/);
    }
  }, 60_000);

  it('the same absence from a client that exited 0 is still its choice: not-applicable', async () => {
    const refused = recorded({ index: 0, at: 0, method: 'POST', path: '/v1/execute', headers: { 'idempotency-key': 'key-a-0123456789abcdef' }, body: '{"mode":"task","task":{}}', status: 503, respondedAt: 2, adversity: 'answered 503' });
    expect((await judge({ scenario: 'limiter-unavailable', exchanges: [refused] })).get('client.v1.errors.retry-503-same-key')?.verdict).toBe('not-applicable');
    const failed = await judge({ scenario: 'limiter-unavailable', exchanges: [refused], ended: 'exit', exitCode: 2, output: 'Error: 503' });
    expect(verdict(failed, 'client.v1.errors.retry-503-same-key')[0]).toBe('inconclusive');
  });
});

const keyed = (key: string) => ({ 'content-type': 'application/json', 'idempotency-key': key });
const task = (n: number) => JSON.stringify({ mode: 'task', task: { n } });
/** A POST /v1/execute of task `n` under `key` on a connection of its own, opened just before it. */
const post = (index: number, at: number, key: string, n: number, extra: Partial<Parameters<typeof recorded>[0]> = {}) =>
  recorded({ index, at, method: 'POST', path: '/v1/execute', headers: keyed(key), body: task(n), status: 200, connection: 10 + index, connectedAt: at - 2, onConnection: 1, ...extra });

describe('F1: the default retry hint holds the retry of the refused request back, not other work', () => {
  const ID = 'client.v1.limits.default-retry-hint';
  // Time scale 0.02: the 60 s hint is 1200 ms. The 429 went out at 2 ms.
  const refused = post(0, 0, 'key-a-0123456789abcdef', 1, { status: 429, respondedAt: 2, adversity: 'answered 429 rate_limited without Retry-After', connection: 1, connectedAt: -5 });
  const run = (...later: ReturnType<typeof recorded>[]) => judge({ scenario: 'rate-limited-no-hint', timeScale: 0.02, exchanges: [refused, ...later] });

  it('another worker posting its own work 90 ms after the 429, while the refused task waits the hint, passes', async () => {
    const results = await run(post(1, 92, 'key-b-0123456789abcdef', 2), post(2, 1_260, 'key-a-0123456789abcdef', 1));
    expect(verdict(results, ID)).toEqual(['pass', undefined]);
    const observed = results.get(ID)?.observations.find((o) => o.subject.startsWith('other work posted sooner than'));
    expect(observed?.value).toEqual(['#1 POST /v1/execute 90 ms after the 429']);
  });

  it('the retry of the refused work too soon still fails, under any key (the same work)', async () => {
    const results = await run(post(1, 92, 'key-b-0123456789abcdef', 2), post(2, 300, 'key-c-0123456789abcdef', 1));
    expect(results.get(ID)?.verdict).toBe('fail');
    expect(results.get(ID)?.reason).toMatch(/the client retried \(#2 POST \/v1\/execute\) 298 ms after the 429, sooner than the 1200 ms default hint of 60 s × 0.02/);
  });

  it('other work and no retry is not-applicable; with a crash, inconclusive', async () => {
    expect((await run(post(1, 92, 'key-b-0123456789abcdef', 2))).get(ID)?.verdict).toBe('not-applicable');
    const failed = await judge({ scenario: 'rate-limited-no-hint', timeScale: 0.02, exchanges: [refused, post(1, 92, 'key-b-0123456789abcdef', 2)], ended: 'exit', exitCode: 1 });
    expect(failed.get(ID)?.verdict).toBe('inconclusive');
  });

  it('with Retry-After, other work too soon still warns on retry-after (SHOULD): the header is "how long to wait before making a new request"', async () => {
    const withHeader = { ...refused, responseHeaders: { 'retry-after': '1' } };
    const results = await judge({ scenario: 'rate-limited', timeScale: 0.02, exchanges: [withHeader, post(1, 92, 'key-b-0123456789abcdef', 2), post(2, 1_100, 'key-a-0123456789abcdef', 1)] });
    expect(results.get('client.v1.limits.retry-after')?.verdict).toBe('fail');
    expect(results.get('client.v1.limits.retry-after')?.reason).toMatch(/posted other work \(#1 POST \/v1\/execute\) 90 ms after the 429/);
  });
});

describe('ambiguous-failure reasons (F2, F6)', () => {
  const ID = 'client.v1.errors.ambiguous-reconcile';
  const reset = post(0, 0, 'key-r-0123456789abcdef', 1, { respondedAt: 80, runId: 'run_reset', adversity: 'connection reset after the request was accepted upstream (HTTP 200)', connection: 1, connectedAt: -5 });

  it('new work from another request fails, naming it and the later reconciliation', async () => {
    const results = await judge({ scenario: 'ambiguous-failure', exchanges: [reset, post(1, 180, 'key-b-0123456789abcdef', 2), post(2, 1_080, 'key-r-0123456789abcdef', 1)] });
    expect(results.get(ID)?.verdict).toBe('fail');
    expect(results.get(ID)?.reason).toMatch(
      /^after the reset, #1 POST \/v1\/execute started new work \(another Idempotency-Key\) 100 ms after the reset, before the client reconciled the reset request #0 POST \/v1\/execute by readback \(it reconciled it only later, by #2 POST \/v1\/execute\): "Do not start new work" holds for every request of the client/,
    );
  });

  it('an empty body re-sent under the reset request’s key is a broken replay, not new work', async () => {
    const results = await judge({ scenario: 'ambiguous-failure', exchanges: [reset, recorded({ index: 1, at: 300, method: 'POST', path: '/v1/execute', headers: keyed('key-r-0123456789abcdef'), body: '', status: 409, connection: 11, connectedAt: 298, onConnection: 1 })] });
    expect(results.get(ID)?.verdict).toBe('fail');
    expect(results.get(ID)?.reason).toMatch(/#1 POST \/v1\/execute, 220 ms after the reset, was a broken replay \(an empty body under the reset request's key\)/);
    expect(results.get(ID)?.reason).not.toMatch(/started new work/);
  });
});

describe('a failed client in the reasons (F4, F5)', () => {
  it('contract-check names the exit code when the client sent no /v8 request', async () => {
    const results = await judge({ scenario: 'contract-version', exchanges: [], ended: 'exit', exitCode: 1, output: 'Error: boom' });
    expect(verdict(results, 'client.v8.versioning.contract-check')).toEqual(['inconclusive', 'the client sent no /v8 request; scenario contract-version: the client exited with code 1\n\nIts last output:\nError: boom']);
  });

  it('the first line of the reason, all the console prints, ends with the exit code, not a dangling "its last output:"', async () => {
    const refused = post(0, 0, 'key-a-0123456789abcdef', 1, { status: 429, respondedAt: 2, adversity: 'answered 429', responseHeaders: { 'retry-after': '1' } });
    const results = await judge({ scenario: 'rate-limited', exchanges: [refused], ended: 'exit', exitCode: 1, output: 'first line\nunhandled: HTTP 429' });
    const reason = results.get('client.v1.errors.retry-429-same-key')?.reason ?? '';
    expect(reason.split('\n')[0]).toBe('the client did not send the refused request again after the 429, and the client failed: scenario rate-limited: the client exited with code 1');
    // The report keeps the output (redacted on the way in) below it.
    expect(reason).toContain('\n\nIts last output:\nfirst line\nunhandled: HTTP 429');
  });
});
