/**
 * Helper-103: the stream that first named a trace is one journal fact (src/traffic/trace-naming.ts),
 * read by the /v8 trace rules (`withSeenTraces`) and the generated rules' expectation of a trace read;
 * which stream counts stays each caller's. The generated expectation counts any 2xx stream whose step
 * event `dataOf` reads, keyed by the principal of the Authorization header; v8.traces.get.ok counts a
 * 200 stream that ended before the read, keyed by the profile's principal. The last two tests pin
 * those differences: they held before the fact was shared, and must hold after.
 */
import { describe, expect, it } from 'vitest';
import { generatedAcceptsValid } from '../../src/checks/v8/contract/generated.ts';
import { traceOk } from '../../src/checks/v8/traces/get.ts';
import { parseProfile } from '../../src/profile/load.ts';
import { runJudgement, type Exchange, type Judgement } from '../../src/rule/index.ts';
import { firstNaming } from '../../src/traffic/trace-naming.ts';

const T0 = Date.UTC(2025, 0, 1);
const TOKEN = 'tok-trace-naming-103';
const BASE = 'https://gateway.example.test';
const RUN = '01970000-0000-7000-8000-000000000103';
const TRACE = 'trc_naming_103';
const profile = parseProfile(
  { target: BASE, credentials: [{ name: 'full', token: TOKEN, surfaces: ['v8'], scopes: ['missions:read', 'missions:write', 'traces:read'], principal: 'alice', tenant: 't1' }] },
  'test profile',
);

function get(at: number, path: string, status: number, type: string, body: string, durationMs = 10): Omit<Exchange, 'index'> {
  return {
    startedAt: new Date(T0 + at).toISOString(),
    durationMs,
    method: 'GET',
    url: `${BASE}${path}`,
    path,
    requestHeaders: { authorization: `Bearer ${TOKEN}` },
    status,
    responseHeaders: { 'content-type': type, 'x-service-contract-version': 'service-integration-gateway-v8.1' },
    responseBody: body,
  };
}

/** A mission stream whose step event names TRACE; `stepData` replaces that event's data. */
function stream(at: number, status: number, stepData = JSON.stringify({ runId: RUN, sequence: 1, stepId: 'step-1', traceId: TRACE })): Omit<Exchange, 'index'> {
  const events = [`event: mission.step.started\ndata: ${stepData}\n\n`, `event: mission.completed\ndata: ${JSON.stringify({ runId: RUN, sequence: 2 })}\n\n`];
  return get(at, `/v8/missions/${RUN}/events`, status, 'text/event-stream', events.join(''), 100);
}

const read404 = (at: number) =>
  get(at, `/v8/traces/${TRACE}`, 404, 'application/problem+json', JSON.stringify({ type: 'about:blank', title: 'Not Found', status: 404, detail: 'no such trace', code: 'not_found', requestId: '0190a3c2-7b1e-7cc0-8b3a-1d2e3f4a5b6d' }));

const journalOf = (exchanges: Array<Omit<Exchange, 'index'>>): Exchange[] => exchanges.map((ex, index) => ({ ...ex, index }) as Exchange);

/** The failures and lacks of `judgement` over the journal, as a recording is judged. */
function verdicts(judgement: Judgement, journal: readonly Exchange[]): { failed: string[]; lacking: number } {
  const failed: string[] = [];
  const run = runJudgement({ check: () => true, observe: () => undefined }, judgement, journal, {
    source: 'recording',
    profile,
    record: (ok, reason) => {
      if (!ok) failed.push(reason);
      return ok;
    },
  });
  return { failed, lacking: run.lacking.length };
}

describe('the first stream naming a trace: one fact, each caller its own tests', () => {
  it('gives the first stream before the read that the caller counts, never one at or after it', () => {
    const journal = journalOf([stream(0, 500), stream(1000, 200), read404(2000), stream(3000, 200)]);
    expect(firstNaming(journal, TRACE, 2, () => true)?.position).toBe(0);
    expect(firstNaming(journal, TRACE, 2, (n) => n.stream.status === 200)?.position).toBe(1);
    expect(firstNaming(journal, TRACE, 1, (n) => n.stream.status === 200)).toBeUndefined();
    expect(firstNaming(journal, 'trc_other', 4, () => true)).toBeUndefined();
    const naming = firstNaming(journal, TRACE, 4, (n) => n.position > 1)!;
    expect([naming.position, naming.runId, naming.stepId, naming.event, naming.completed, naming.ended]).toEqual([3, RUN, 'step-1', 'mission.step.started', false, true]);
  });

  it('a 2xx stream other than 200 counts for the generated expectation, not for v8.traces.get.ok', () => {
    // The 206 stream named the trace 20 s before the read; the 200 stream, 1 s before.
    const journal = journalOf([stream(0, 206), stream(19_000, 200), read404(20_000)]);
    // Generated: past the bound of the 206 stream, so the 404 is judged and fails.
    expect(verdicts(generatedAcceptsValid.judgement!, journal).failed.filter((r) => r.includes('/v8/traces/'))).toHaveLength(1);
    // v8.traces.get.ok: within the bound of the 200 stream, so the 404 is not judged yet.
    expect(verdicts(traceOk.judgement!, journal)).toEqual({ failed: [], lacking: 1 });
  });

  it('a step event nested past the shared parse depth names the trace for v8.traces.get.ok only', () => {
    const deep = `{"runId":"${RUN}","stepId":"step-1","traceId":"${TRACE}","x":${'['.repeat(300)}${']'.repeat(300)}}`;
    // The deep event named the trace 20 s before the read; a plain one, 1 s before.
    const journal = journalOf([stream(0, 200, deep), stream(19_000, 200), read404(20_000)]);
    // v8.traces.get.ok: past the bound of the first stream, so the 404 fails.
    expect(verdicts(traceOk.judgement!, journal).failed).toHaveLength(1);
    // Generated: within the bound of the second, so the 404 is open.
    expect(verdicts(generatedAcceptsValid.judgement!, journal).failed.filter((r) => r.includes('/v8/traces/'))).toEqual([]);
  });
});
