/**
 * Audit 114 (F1-F4, F9), end to end through judge-client's front with small scripted clients: two
 * requests in flight at once are legal, the other contract version shows in the coverage report
 * too, a client stopped at --max-seconds is no client that chose to stop, and the evidence of a
 * scripted refusal is what was sent.
 */
import { describe, expect, it } from 'vitest';
import { judgeClient } from '../../src/client-judge/judge-client.ts';
import { OTHER_CONTRACT_VERSION } from '../../src/client-judge/scenarios.ts';

const TIME_SCALE = 0.02;
const script = (source: string): string[] => [process.execPath, '--input-type=module', '-e', source];

const PRELUDE = `
const base = process.env.APICERT_BASE_URL;
const scale = Number(process.env.APICERT_TIME_SCALE ?? '1');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const v1 = (key) => ({ authorization: 'Bearer ' + process.env.APICERT_V1_KEY, 'content-type': 'application/json', 'idempotency-key': key });
const task = (key, n) => fetch(base + '/v1/execute', { method: 'POST', headers: v1(key), body: JSON.stringify({ mode: 'task', task: { scenario: 'apicert.completes', instruction: 'task ' + n } }) });
`;

/**
 * Two tasks posted at once, each retried the way the seed says: after a 429 the same request under
 * its key once the hint has passed, after a reset the identical request under its key (a replay).
 */
const PARALLEL = `${PRELUDE}
async function settle(key, n) {
  for (let attempt = 0; attempt < 4; attempt++) {
    let res;
    try { res = await task(key, n); } catch { continue; }
    const hint = res.headers.get('retry-after');
    await res.arrayBuffer();
    if (res.status !== 429 && res.status !== 503) return;
    await sleep(hint !== null ? Number(hint) * 1000 : 60000 * scale);
  }
}
await Promise.all([settle('parallel-key-0000000001', 1), settle('parallel-key-0000000002', 2)]);
`;

describe('judge-client with a client that has two POSTs in flight at once', () => {
  it('never fails it for the POST that was under way when the 429 or the reset came', async () => {
    const { results, sessions } = await judgeClient({ scenarios: ['rate-limited', 'rate-limited-no-hint', 'ambiguous-failure'], timeScale: TIME_SCALE, command: script(PARALLEL), maxSecondsPerScenario: 20, quietMs: 1_000, seed: 7 });
    expect(sessions.every((s) => s.ended === 'exit' && s.exitCode === 0)).toBe(true);
    for (const id of ['client.v1.limits.retry-after', 'client.v1.limits.default-retry-hint', 'client.v1.errors.ambiguous-reconcile', 'client.v1.errors.retry-429-same-key']) {
      const result = results.find((r) => r.rule.id === id);
      // Where the two requests' order cannot be told the rule is not judged; it never fails this client.
      expect(['pass', 'inconclusive'], `${id}: ${result?.reason}`).toContain(result?.verdict);
    }
    // Every request says which connection carried it, so the rules can tell what was already under way.
    for (const ex of sessions.flatMap((s) => s.exchanges)) expect([typeof ex.connection, typeof ex.connectedAt, typeof ex.onConnection]).toEqual(['number', 'number', 'number']);
    // F9: the evidence of the scripted 429 is the problem+json that was sent, not an unread header.
    const refused = sessions.find((s) => s.scenario === 'rate-limited')!.exchanges.find((ex) => ex.status === 429)!;
    expect(refused.responseHeaders).toMatchObject({ 'content-type': 'application/problem+json', 'retry-after': '1' });
    expect(JSON.parse(refused.responseBody ?? '{}')).toMatchObject({ status: 429, code: 'rate_limited', retryAfterMs: 1000 });
  }, 60_000);
});

describe('judge-client contract-version', () => {
  /** Checks the coverage report's contractVersion (the seed names it as the carrier of the identifier), not the header. */
  const checksCoverage = `${PRELUDE}
const v8 = { authorization: 'Bearer ' + process.env.APICERT_V8_TOKEN, 'content-type': 'application/json' };
const coverage = await (await fetch(base + '/v8/coverage', { headers: v8 })).json();
console.log('coverage says', coverage.contractVersion, coverage.gatewayVersion);
if (coverage.contractVersion === 'service-integration-gateway-v8.1') {
  const body = JSON.stringify({ goalSpec: { task: 'summarise' }, resourceBudget: { maximumSteps: 5, maximumToolCalls: 3, maximumElapsedMs: 60000, maximumParallelism: 1 } });
  await (await fetch(base + '/v8/missions', { method: 'POST', headers: { ...v8, 'idempotency-key': 'mission-key-000000000001' }, body })).arrayBuffer();
}
`;

  it('shows the other version in the coverage report too, so a client that checks the field sends no mission', async () => {
    const { results, sessions } = await judgeClient({ scenarios: ['contract-version'], timeScale: TIME_SCALE, command: script(checksCoverage), maxSecondsPerScenario: 20, quietMs: 1_000, seed: 7 });
    const coverage = sessions[0]!.exchanges.find((ex) => ex.path === '/v8/coverage')!;
    expect(JSON.parse(coverage.responseBody ?? '{}')).toMatchObject({ contractVersion: OTHER_CONTRACT_VERSION, gatewayVersion: '9.0.0' });
    const check = results.find((r) => r.rule.id === 'client.v8.versioning.contract-check');
    expect(check?.verdict, check?.reason).toBe('pass');
  }, 60_000);
});

describe('judge-client with a client stopped at --max-seconds', () => {
  /** Honours the 60 s hint unscaled (legal: it only waits longer), so the deadline stops it first. */
  const waitsUnscaled = `${PRELUDE}
const res = await task('unscaled-key-0000000001', 1);
await res.arrayBuffer();
if (res.status === 429) await sleep(60000);
`;

  it('leaves default-retry-hint inconclusive, not not-applicable', async () => {
    const { results, sessions } = await judgeClient({ scenarios: ['rate-limited-no-hint'], timeScale: TIME_SCALE, command: script(waitsUnscaled), maxSecondsPerScenario: 3, quietMs: 1_000, seed: 7 });
    expect(sessions[0]!.ended).toBe('deadline');
    const hint = results.find((r) => r.rule.id === 'client.v1.limits.default-retry-hint');
    expect(hint?.verdict).toBe('inconclusive');
    expect(hint?.reason).toMatch(/stopped at the scenario's deadline/);
  }, 60_000);
});
