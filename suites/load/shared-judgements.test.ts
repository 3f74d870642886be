/**
 * The cases certify and the k6 scripts share (src/traffic/answer-cases.ts): what each judges, and
 * how a load scenario turns them into k6 checks (one judgment per sentence, fixed sentences).
 */
import { describe, expect, it } from 'vitest';
import { Verdicts } from '../../src/load/transport.ts';
import { isTerminalEventType } from '../../src/contract/v8/mission-events.ts';
import { conflictCodeCase, eventIdCases, failClosedCase, problemStatusCase, problemTypeCase, rateLimitedCases, replayCase, retryAfterCase, oneTerminalCase } from '../../src/traffic/answer-cases.ts';

describe('judgements shared by certify and the k6 scripts', () => {
  it('a replay answers the original status and body, whatever the JSON key order or spacing', () => {
    expect(replayCase({ status: 202, body: '{"runId":"a","status":"running"}' }, { status: 202, body: '{ "status": "running", "runId": "a" }' }).ok).toBe(true);
    expect(replayCase({ status: 202, body: '{"runId":"a"}' }, { status: 202, body: '{"runId":"b"}' })).toMatchObject({ ok: false, why: 'answered another body than the original response' });
    expect(replayCase({ status: 202, body: '{"runId":"a"}' }, { status: 500, body: '{"runId":"a"}' })).toMatchObject({ ok: false, why: 'answered 500, the original 202' });
    expect(replayCase({ status: 200, body: 'plain' }, { status: 200, body: 'plain' }).ok).toBe(true);
  });

  it('judges /v8 event ids and the terminal event by the seed tables', () => {
    const failing = eventIdCases([{ id: '1', event: 'mission.started' }, { event: 'mission.step.started' }, { id: '1', event: 'mission.completed' }]).filter((c) => !c.ok);
    expect(failing.map((c) => c.why)).toEqual(['event #2 (mission.step.started) has no id', 'two events of one stream share the id 1']);
    expect(oneTerminalCase([{ event: 'mission.started' }, { event: 'mission.completed' }], isTerminalEventType)?.ok).toBe(true);
    // "Events after a terminal event are informational only": one may follow it, another terminal event may not.
    expect(oneTerminalCase([{ event: 'mission.completed' }, { event: 'mission.audit-note' }], isTerminalEventType)?.ok).toBe(true);
    expect(oneTerminalCase([{ event: 'mission.failed' }, { event: 'mission.failed' }], isTerminalEventType)).toMatchObject({ ok: false, why: '1 terminal event(s) (mission.failed) followed mission.failed on the same stream: events after a terminal event are informational only' });
    expect(oneTerminalCase([{ event: 'mission.started' }, { event: 'constructor' }], isTerminalEventType)).toBeUndefined();
  });

  it('judges the 429, the fail-closed 503, the conflict and the problem as the seeds state them', () => {
    expect(rateLimitedCases({ code: 'rate_limited', retryable: true }).every((c) => c.ok)).toBe(true);
    expect(rateLimitedCases({ code: 'rate_limited', retryable: false, retryAfterMs: 1.5 }).filter((c) => !c.ok).map((c) => c.check)).toEqual(['a 429 carries retryable:true', 'retryAfterMs, when present, is an integer of at least 0']);
    expect([' 30 ', '1.5', undefined].map((v) => retryAfterCase(v).ok)).toEqual([true, false, false]);
    expect([503, 429, 200].map((s) => failClosedCase(s).ok)).toEqual([true, false, false]);
    expect([{ code: 'conflict' }, { code: 'idempotency_conflict' }, undefined].map((p) => conflictCodeCase(p).ok)).toEqual([true, false, false]);
    expect(problemTypeCase(429, { 'content-type': 'Application/Problem+JSON; charset=utf-8' }).ok).toBe(true);
    expect(problemTypeCase(429, { 'content-type': 'text/plain' }).why).toBe('the 429 answer is text/plain, expected application/problem+json');
    expect([429, '429'].map((s) => problemStatusCase(429, s).ok)).toEqual([true, false]);
  });

  it('a load scenario records one judgment per fixed sentence, failing it when any of its cases failed', () => {
    const v = new Verdicts();
    const held = v.judgeCases('load.v8.events.fanout-same-events', eventIdCases([{ id: '1' }, {}, { id: '2' }, {}]));
    expect(held).toBe(false);
    expect(v.judgments).toEqual([
      { rule: 'load.v8.events.fanout-same-events', ok: false, check: 'every event carries an id' },
      { rule: 'load.v8.events.fanout-same-events', ok: true, check: 'no two events of one stream share an id' },
    ]);
  });
});
