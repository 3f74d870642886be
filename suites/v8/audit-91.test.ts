/**
 * Fixer helper-95 (audit-91 D2, S3): without a profile, /v8's `Callers` took a caller to hold a
 * scope when any 2xx of the journal showed it, the judged exchange's own answer and later ones
 * included. So a valid create answered 202 was judged (pass) while the same create answered 400 was
 * not-applicable: the answer decided whether the rule judged. Now only an EARLIER accepted exchange
 * of the same caller and scope admits it (as /v1's `admittedIn` and docs/judgement.md say).
 * Hand-built recordings, judged without a profile (the judgement an active run and the proxy share).
 */
import { describe, expect, it } from 'vitest';
import { judgeRecording } from '../../src/passive/judge.ts';
import type { Exchange } from '../../src/rule/index.ts';

const BASE = 'https://gateway.example.test';
const TOKEN = 'tok-audit-91-writer';
const OTHER_TOKEN = 'tok-audit-91-other';
const RUN = '01970000-0000-7000-8000-000000000091';
const budget = { maximumSteps: 5, maximumToolCalls: 5, maximumElapsedMs: 60_000, maximumParallelism: 1 };
const VALID = { goalSpec: { task: 'a91 audit' }, resourceBudget: budget };
const NO_TASK = { goalSpec: {}, resourceBudget: budget };
const PROBLEM = { type: 'about:blank', title: 'Bad Request', status: 400, detail: 'missing field', code: 'invalid_request', requestId: '0190a3c2-7b1e-7cc0-8b3a-1d2e3f4a5b6d' };

let clock = Date.UTC(2026, 0, 1);
let keys = 0;
/** A create with a fresh Idempotency-Key, 10 ms long and starting 100 ms after the one before. */
function create(status: number, body: unknown, token = TOKEN): Exchange {
  clock += 100;
  keys += 1;
  const accepted = status === 202;
  return {
    index: 0,
    startedAt: new Date(clock).toISOString(),
    durationMs: 10,
    method: 'POST',
    url: `${BASE}/v8/missions`,
    path: '/v8/missions',
    requestHeaders: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': `a91-key-${String(keys).padStart(12, '0')}` },
    requestBody: JSON.stringify(body),
    status,
    responseHeaders: { 'content-type': accepted ? 'application/json' : 'application/problem+json', 'x-service-contract-version': 'service-integration-gateway-v8.1' },
    responseBody: JSON.stringify(accepted ? { runId: RUN, status: 'running', sequence: 1, steps: [] } : PROBLEM),
  } as Exchange;
}

async function judged(rule: string, exchanges: Exchange[]) {
  const indexed = exchanges.map((e, index) => ({ ...e, index }));
  const { results } = await judgeRecording(indexed, { surfaces: ['v8'], patterns: [rule], env: {} });
  expect(results).toHaveLength(1);
  return results[0]!;
}

const UNJUDGED = ['not-applicable', 'untestable'];
const ACCEPTED = 'v8.missions.create.accepted';

describe('without a profile, a /v8 request is never admitted by its own answer (audit-91 D2)', () => {
  it("a valid create answered 400 as its caller's first request is not judged, exactly as the same create answered 202", async () => {
    const refused = await judged(ACCEPTED, [create(400, VALID)]);
    const accepted = await judged(ACCEPTED, [create(202, VALID)]);
    expect(UNJUDGED, refused.reason).toContain(refused.verdict);
    // Old code: the 202 admitted its own caller and passed.
    expect(accepted.verdict, accepted.reason).toBe(refused.verdict);
  });

  it('the 202 alone is no longer judged by its own answer', async () => {
    const result = await judged(ACCEPTED, [create(202, VALID)]);
    expect(UNJUDGED, result.reason).toContain(result.verdict);
  });

  it("a second valid create by a caller an earlier create accepted, answered 400, fails", async () => {
    const result = await judged(ACCEPTED, [create(202, VALID), create(400, VALID)]);
    expect(result.verdict, result.reason).toBe('fail');
    expect(result.reason).toMatch(/a valid create answered 400, expected 202/);
  });

  it('a later acceptance admits no earlier request: a 400 followed by a 202 of the same caller is not judged', async () => {
    // Old code: the later 202 admitted the caller for the 400 before it, which failed.
    const result = await judged(ACCEPTED, [create(400, VALID), create(202, VALID)]);
    expect(UNJUDGED, result.reason).toContain(result.verdict);
  });

  it("another caller's acceptance admits no one else", async () => {
    const result = await judged(ACCEPTED, [create(202, VALID, OTHER_TOKEN), create(400, VALID)]);
    expect(UNJUDGED, result.reason).toContain(result.verdict);
  });
});

describe("without a profile, refusal and acceptance of a bad create are judged alike (audit-91 S3)", () => {
  const RULE = 'v8.missions.create.missing-fields';

  it("a create without goalSpec.task as its caller's first request is not judged, whether answered 202 or 400", async () => {
    const refused = await judged(RULE, [create(400, NO_TASK)]);
    const accepted = await judged(RULE, [create(202, NO_TASK)]);
    expect(UNJUDGED, refused.reason).toContain(refused.verdict);
    // Old code: the 202 admitted its own caller and failed.
    expect(accepted.verdict, accepted.reason).toBe(refused.verdict);
  });

  it('after an accepted create, the same bad create answered 202 fails and answered 400 passes', async () => {
    const wrong = await judged(RULE, [create(202, VALID), create(202, NO_TASK)]);
    expect(wrong.verdict, wrong.reason).toBe('fail');
    expect(wrong.reason).toMatch(/create without goalSpec\.task answered 202, expected 400/);
    const right = await judged(RULE, [create(202, VALID), create(400, NO_TASK)]);
    expect(right.verdict, right.reason).toBe('pass');
  });
});
