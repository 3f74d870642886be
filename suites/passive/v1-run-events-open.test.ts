/**
 * Legal /v1 run events and run resources the rules judging recordings once failed: a payload field
 * that belongs to the read, a turn stream without SSE ids, a kind named in `event_type`, and a run
 * resource that echoes the client's own date-time text. Each case also shows the rule still fails
 * what the description does forbid, so none passes by judging nothing.
 */
import { describe, expect, it } from 'vitest';
import { minimalTurn } from '../../scenarios/v1/turns.ts';
import { kindOf } from '../../src/checks/v1/support/traffic.ts';
import { eventKind } from '../../src/checks/v1/support/fabric.ts';
import { v1Recording } from './v1-recording.ts';

const TOKEN = 'service_sk_runeventsopen0123456789abcdef';
const BASE = 'https://fabric.example.com';
const AUTH = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
const TASK = { mode: 'task', task: { scenario: 'apicert.completes' } };

// The profile declares the run's created_at a Timestamp: the description types no /v1 field as one (fixtures.v1.timestampFields).
const { journal, verdicts } = v1Recording(BASE, TOKEN, { completes: TASK }, { timestampFields: { run: ['created_at'] } });

interface Ev {
  seq: number;
  type: string;
  extra?: Record<string, unknown>;
  /** Send the SSE id line (the sequence). */
  id?: boolean;
}

/** An SSE stream of run events; each keeps its identity (event_id) and sequence in its data. */
function sse(events: readonly Ev[]): string {
  return events
    .map((e) => {
      const data = { apiVersion: 'v1', event_id: `evt_${e.seq}`, run_id: 'run_1', sequence: e.seq, type: e.type, ...e.extra };
      return `${e.id === false ? '' : `id: ${e.seq}\n`}event: ${e.type}\ndata: ${JSON.stringify(data)}\n\n`;
    })
    .join('');
}

const streamed = (body: string) => ({ status: 200, responseHeaders: { 'content-type': 'text/event-stream' }, responseBody: body });
const events = (headers: Record<string, string> = {}) => ({ method: 'GET', path: '/v1/runs/run_1/events', credential: 'full', requestHeaders: { ...AUTH, ...headers } });
const RUN = [
  { seq: 1, type: 'request.accepted', extra: { replayed: false } },
  { seq: 2, type: 'run.progress' },
  { seq: 3, type: 'run.completed' },
];

describe('run events: "…and the payload fields of events: not shown."', () => {
  it('a resume compares SSE id and kind, not a payload field of the read (sent_at)', async () => {
    const read = (n: number, list: readonly Ev[]) => sse(list.map((e) => ({ ...e, extra: { ...e.extra, sent_at: `2025-01-01T00:00:0${n}+00:00` } })));
    const ok = await verdicts(journal([{ ...events(), ...streamed(read(1, RUN)) }, { ...events({ 'last-event-id': '1' }), ...streamed(read(2, RUN.slice(1))) }]), ['v1.runs.events.resume']);
    expect(ok['v1.runs.events.resume']).toBe('pass');
    // A resume that skips an event still fails.
    const skipped = await verdicts(journal([{ ...events(), ...streamed(read(1, RUN)) }, { ...events({ 'last-event-id': '1' }), ...streamed(read(2, RUN.slice(2))) }]), ['v1.runs.events.resume']);
    expect(skipped['v1.runs.events.resume']).toBe('fail');
  });

  it('the kind may be named in event_type, with no SSE event field: one reader for every rule', () => {
    const e = { data: JSON.stringify({ event_id: 'evt_1', event_type: 'run.completed' }) };
    expect(eventKind(e)).toBe('run.completed');
    expect(kindOf(e)).toBe('run.completed');
    // The SSE event field still wins, and type before event_type.
    expect(kindOf({ event: 'run.failed', data: e.data })).toBe('run.failed');
    expect(kindOf({ data: JSON.stringify({ type: 'run.progress', event_type: 'x' }) })).toBe('run.progress');
  });
});

describe('"After a dropped connection on a task-mode run, read the run back or resume its event stream with `Last-Event-ID`"', () => {
  const turn = { method: 'POST', path: '/v1/execute', credential: 'full', requestHeaders: { ...AUTH, accept: 'text/event-stream' }, requestBody: JSON.stringify({ ...minimalTurn, requestId: 'req1' }) };

  it('a turn stream needs no SSE ids (a streamed POST is retried with its key, not resumed)', async () => {
    const v = await verdicts(journal([{ ...turn, ...streamed(sse(RUN.map((e) => ({ ...e, id: false })))) }]), ['v1.runs.events.identity', 'v1.runs.events.resume']);
    expect(v['v1.runs.events.identity']).toBe('pass');
    expect(v['v1.runs.events.resume']).toBe('not-applicable');
  });

  it('a run event stream without SSE ids still fails the resume rule', async () => {
    const v = await verdicts(journal([{ ...events(), ...streamed(sse(RUN.map((e) => ({ ...e, id: false })))) }]), ['v1.runs.events.resume']);
    expect(v['v1.runs.events.resume']).toBe('fail');
  });
});

describe('run resource timestamps: "Fields of the run resource returned by `GET /v1/runs/{id}`: not shown."', () => {
  const task = { mode: 'task', task: { scenario: 'apicert.completes', deadline: '2025-03-01T12:00:00Z' } };
  const created = { method: 'POST', path: '/v1/execute', credential: 'full', requestHeaders: AUTH, requestBody: JSON.stringify(task), status: 200, responseHeaders: { 'content-type': 'application/json' }, responseBody: '{"run_id":"run_1"}' };
  const read = (createdAt: string) => ({ method: 'GET', path: '/v1/runs/run_1', credential: 'full', requestHeaders: AUTH, status: 200, responseHeaders: { 'content-type': 'application/json' }, responseBody: JSON.stringify({ id: 'run_1', created_at: createdAt, request: task }) });

  it("the client's own date-time text echoed back is not a service Timestamp", async () => {
    const v = await verdicts(journal([created, read('2025-01-01T00:00:00+00:00')]), ['v1.runs.timestamp-offset']);
    expect(v['v1.runs.timestamp-offset']).toBe('pass');
  });

  it("the service's own Timestamp with only Z still fails", async () => {
    const v = await verdicts(journal([created, read('2025-01-01T00:00:00Z')]), ['v1.runs.timestamp-offset']);
    expect(v['v1.runs.timestamp-offset']).toBe('fail');
  });
});
