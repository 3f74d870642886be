/**
 * A client that floods judge-client: the record of a scenario stays bounded, the requests it could
 * not keep are counted, and no rule passes on the part of the log that was not kept.
 */
import { describe, expect, it } from 'vitest';
import { judgeClient } from '../../src/client-judge/judge-client.ts';
import { CLIENT_RULES } from '../../src/client-judge/rules.ts';
import { RECORDED_BYTES_LIMIT } from '../../src/client-judge/session.ts';

const REQUESTS = 600;
// 600 bodies of 64 KiB are about 38 MiB: more than a scenario's record keeps.
const flood = `const body = 'x'.repeat(65536); let next = 0;
await Promise.all(Array.from({ length: 8 }, async () => {
  while (next < ${REQUESTS}) { next++; const res = await fetch(process.env.APICERT_BASE_URL + '/v8/nothing', { method: 'POST', body }); await res.arrayBuffer(); }
}));`;

describe('judge-client with a client that sends more than the record keeps', () => {
  it('keeps a bounded prefix, counts the rest, and leaves the rule that would rest on it inconclusive', async () => {
    const { results, sessions, report } = await judgeClient({ scenarios: ['contract-version'], timeScale: 0.02, command: [process.execPath, '--input-type=module', '-e', flood], maxSecondsPerScenario: 30, quietMs: 1_000 });
    const session = sessions[0]!;
    expect(session.ended).toBe('exit');
    expect(session.dropped).toBeGreaterThan(0);
    expect(session.exchanges.length + session.dropped!).toBe(REQUESTS);
    expect(session.exchanges.reduce((n, ex) => n + ex.body.length, 0)).toBeLessThanOrEqual(RECORDED_BYTES_LIMIT);
    expect(session.exchanges.map((ex) => ex.index)).toEqual(session.exchanges.map((_, i) => i));
    expect(report.run.requests).toBe(REQUESTS);
    // What a signed client report stands on (verify prints it): the scenarios judged, of every client rule.
    expect(report.run.selection).toEqual({ catalogue: CLIENT_RULES.length, scenarios: ['contract-version'] });
    // The client sent no mission in what was kept; one among the dropped requests cannot be ruled out.
    const check = results.find((r) => r.rule.id === 'client.v8.versioning.contract-check');
    expect(check?.verdict).toBe('inconclusive');
    expect(check?.reason).toMatch(/later request\(s\) were not kept/);
  });
});
