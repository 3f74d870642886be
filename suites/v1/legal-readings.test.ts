/**
 * Legal readings audit helper-64 found /v1 rules failing (docs/legal-variation.md), judged on
 * hand-made recordings: date-times in a run resource and usage answer whose fields are "not shown".
 */
import { describe, expect, it } from 'vitest';
import { declaredTimestampFields } from '../../src/fake/v1/runs/engine.ts';
import { judgeRecording } from '../../src/passive/judge.ts';
import { parseProfile } from '../../src/profile/load.ts';
import type { Exchange } from '../../src/rule/index.ts';

const BASE = 'http://127.0.0.1:1';
const RUN = 'run_0123456789abcdef01234567';
const KEY = 'service_sk_test0123456789abcdef';

const profile = (timestampFields?: { run?: string[]; usage?: string[] }) =>
  parseProfile(
    {
      target: BASE,
      credentials: [{ name: 'v1-full', token: KEY, surfaces: ['v1'], scopes: ['runs:read', 'runs:write'], principal: 'alice', tenant: 't' }],
      fixtures: { v1: { tasks: { completes: { mode: 'task', task: { objective: 'x' } } }, ...(timestampFields ? { timestampFields } : {}) } },
    },
    'test profile',
  );

const json = { 'content-type': 'application/json' };
const auth = { authorization: `Bearer ${KEY}` };

function journal(run: Record<string, unknown>, usage: Record<string, unknown>): Exchange[] {
  const parts = [
    { method: 'GET', path: `/v1/runs/${RUN}`, requestHeaders: auth, status: 200, responseHeaders: json, responseBody: JSON.stringify(run) },
    { method: 'GET', path: '/v1/usage', requestHeaders: auth, status: 200, responseHeaders: json, responseBody: JSON.stringify(usage) },
  ];
  return parts.map((e, i) => ({ index: i, startedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(), durationMs: 10, url: `${BASE}${e.path}`, ...e }) as Exchange);
}

async function verdict(exchanges: Exchange[], fields?: { run?: string[]; usage?: string[] }): Promise<string | undefined> {
  const { results } = await judgeRecording(exchanges, { surfaces: ['v1'], patterns: ['v1.runs.timestamp-offset'], profile: profile(fields), env: {} });
  return results.find((r) => r.rule.id === 'v1.runs.timestamp-offset')?.verdict;
}

const Z = '2026-11-27T10:24:53.912Z';
const OFFSET = '2026-11-27T10:24:53.912+00:00';
const run = (createdAt: string) => ({ run_id: RUN, state: 'completed', created_at: createdAt, output: { text: 'The report is due 2026-12-01T09:00:00Z.', due: '2026-12-01T09:00:00Z' } });
const usage = (at: string) => ({ period: { start: at, end: at }, recent_runs: [{ run_id: RUN, created_at: at }] });

describe('v1.runs.timestamp-offset: only members a profile declares Timestamps are judged', () => {
  it('without fixtures.v1.timestampFields, date-times with Z (declared nowhere) are recorded, not judged', async () => {
    expect(await verdict(journal(run(Z), usage(Z)))).toBe('not-applicable');
  });

  it('the run\'s own output is never judged, even where a profile names it', async () => {
    expect(await verdict(journal(run(OFFSET), usage(OFFSET)), { run: ['created_at', 'output.due'], usage: ['period.start'] })).toBe('pass');
  });

  it('declared members: a numeric offset passes, Z fails, array items by `[]`', async () => {
    expect(await verdict(journal(run(OFFSET), usage(OFFSET)), { run: ['created_at'], usage: ['period.start', 'period.end', 'recent_runs[].created_at'] })).toBe('pass');
    expect(await verdict(journal(run(Z), usage(OFFSET)), { run: ['created_at'] })).toBe('fail');
    expect(await verdict(journal(run(OFFSET), { ...usage(OFFSET), recent_runs: [{ created_at: Z }] }), { usage: ['recent_runs[].created_at'] })).toBe('fail');
  });

  it("the fake's embedded profile declares its own Timestamps, and none under v1.runs/z-timestamps", () => {
    const fake = (variants: string[]) => ({ variants: { has: (id: string) => variants.includes(id) } }) as never;
    expect(declaredTimestampFields(fake([]))).toEqual({ run: ['created_at'], usage: ['period.start', 'period.end'] });
    expect(declaredTimestampFields(fake(['v1.runs/z-timestamps']))).toBeUndefined();
  });
});
