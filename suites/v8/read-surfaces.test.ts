/**
 * Judgements of the /v8 read surfaces over hand-made exchanges: a JSON answer's media type
 * (application/json or any +json type), the memory score order (observed, never judged) and
 * the scope matrix's prediction for another principal's read of the fixture skill (2xx or 404).
 */
import { describe, expect, it } from 'vitest';
import { runJudgement, type Exchange, type Judgement } from '../../src/rule/index.ts';
import { profileSchema, type Profile } from '../../src/profile/schema.ts';
import { judgeJsonMediaType } from '../../src/checks/v8/support/traffic.ts';
import { queryOrder } from '../../src/checks/v8/memory/query.ts';
import { scopeMatrix } from '../../src/checks/v8/auth/scope-matrix.ts';

const BASE = 'http://127.0.0.1:1';
const SKILL = 'apicert.skill.summarise';

const profile: Profile = profileSchema.parse({
  target: BASE,
  credentials: [
    { name: 'primary', token: 'tok-primary', scopes: ['missions:write', 'missions:read', 'memory:read', 'skills:read'], principal: 'alice' },
    { name: 'other', token: 'tok-other', scopes: ['skills:read'], principal: 'bob' },
  ],
  fixtures: { v8: { skillId: SKILL, memory: { compartment: 'c', purpose: 'p' } } },
});

function exchange(index: number, part: Partial<Exchange> & Pick<Exchange, 'method' | 'path'>): Exchange {
  return { index, url: `${BASE}${part.path}`, requestHeaders: {}, responseHeaders: {}, ...part };
}

interface Outcome {
  failures: string[];
  observations: Array<{ subject: string; value: unknown }>;
  judged: number;
}

function judge(judgement: Judgement, exchanges: Exchange[]): Outcome {
  const out: Outcome = { failures: [], observations: [], judged: 0 };
  const ctx = {
    check: (held: unknown, why: string) => (held ? true : (out.failures.push(why), false)),
    observe: (subject: string, value: unknown) => void out.observations.push({ subject, value }),
  };
  const run = runJudgement(ctx as never, judgement, exchanges, { source: 'recording', profile });
  out.judged = run.judged.size;
  return out;
}

describe('judgeJsonMediaType', () => {
  const judgement = (type: string): Judgement => ({
    record: 'a JSON answer',
    judge: (j) => judgeJsonMediaType(j, exchange(0, { method: 'GET', path: '/v8/coverage', status: 200, responseHeaders: { 'content-type': type } }), 'the answer'),
  });

  it('accepts application/json and any +json structured-syntax suffix type, recording which', () => {
    for (const type of ['application/json', 'application/vnd.gateway.v8+json; charset=utf-8', 'application/problem+json']) {
      const out = judge(judgement(type), []);
      expect(out.failures, type).toEqual([]);
      expect(out.observations).toEqual([{ subject: 'JSON answer media type', value: type.split(';')[0] }]);
    }
  });

  it('refuses a type that is not JSON', () => {
    for (const type of ['text/plain', 'application/jsonp', '']) expect(judge(judgement(type), []).failures, type).toHaveLength(1);
  });
});

describe('v8.memory.query.order', () => {
  const answer = (index: number, scores: number[]): Exchange =>
    exchange(index, {
      method: 'POST',
      path: '/v8/memory/query',
      credential: 'primary',
      requestHeaders: { authorization: 'Bearer tok-primary', 'content-type': 'application/json' },
      requestBody: JSON.stringify({ compartment: 'c', purpose: 'p', queryText: 'q', classes: ['note'] }),
      status: 200,
      responseHeaders: { 'content-type': 'application/json' },
      responseBody: JSON.stringify({ entries: scores.map((score, i) => ({ entryId: `e${i}`, class: 'note', content: 'x', score, createdAt: '2026-01-01T00:00:00Z' })), totalContextBytes: 1, truncated: false }),
    });

  it('records the score direction (similarity or distance alike) and fails no order', () => {
    expect(queryOrder.level).toBe('observation');
    const out = judge(queryOrder.judgement!, [answer(0, [0.9, 0.5, 0.1]), answer(1, [0.1, 0.5, 0.9]), answer(2, [0.5, 0.9, 0.1])]);
    expect(out.failures).toEqual([]);
    expect(out.judged).toBe(3);
    expect(out.observations[0]?.value).toEqual({ descending: 1, ascending: 1, other: 1 });
  });
});

describe('v8.auth.scope-matrix on the fixture skill', () => {
  const read = (index: number, caller: 'primary' | 'other', status: number): Exchange =>
    exchange(index, {
      method: 'GET',
      path: `/v8/skills/${SKILL}`,
      credential: caller,
      requestHeaders: { authorization: `Bearer tok-${caller}` },
      status,
      responseHeaders: { 'content-type': status === 200 ? 'application/json' : 'application/problem+json' },
      responseBody: '{}',
    });

  it("accepts another principal's 200 (a shared catalogue) and 404 (a per-principal one)", () => {
    for (const status of [200, 404]) {
      const out = judge(scopeMatrix.judgement!, [read(0, 'primary', 200), read(1, 'other', status)]);
      expect(out.failures, String(status)).toEqual([]);
      expect(out.judged).toBe(2);
    }
  });

  it('still refuses another principal a 403 while it holds skills:read', () => {
    expect(judge(scopeMatrix.judgement!, [read(0, 'other', 403)]).failures).toHaveLength(1);
  });
});
