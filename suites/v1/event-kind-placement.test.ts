/**
 * Audit helper-123 F1: the spec names /v1 event kinds ("Known event kinds: `request.accepted` …
 * `request.cancelled`", "Event types named: `run.completed`, `run.failed`") but never the place that
 * carries one ("Event kinds beyond `request.accepted` and `request.cancelled`, and the payload fields of
 * events: not shown."; a delivery's body "includes `apiVersion` (`v1`), `event_id`, `run_id` and
 * `sequence`"). A deployment naming the kind in `data.eventType` was failed for sending no terminal
 * event. The kind is now found by its value too (src/sse/event-kind.ts); variant
 * v1.runs/event-kind-in-data puts it only there, and a missing terminal event still fails.
 */
import { describe, expect, it } from 'vitest';
import { certify } from '../../src/runner/certify.ts';
import { deliveryKindOf, eventKindOf } from '../../src/sse/event-kind.ts';

const ev = (data: unknown, event?: string) => ({ ...(event === undefined ? {} : { event }), data: JSON.stringify(data) });

describe('where a /v1 event names its kind', () => {
  it('keeps the readings of before: the SSE event name, else type, kind, event or event_type', () => {
    expect(eventKindOf(ev({ type: 'run.progress' }, 'run.progress'))).toBe('run.progress');
    expect(eventKindOf(ev({ type: 'run.progress' }))).toBe('run.progress');
    expect(eventKindOf(ev({ event_type: 'x-apicert.heartbeat' }, 'message'))).toBe('x-apicert.heartbeat');
    expect(eventKindOf(ev({ step: 1 }, 'vendor:run/approval-reminder'))).toBe('vendor:run/approval-reminder');
    expect(eventKindOf({ data: 'not json' })).toBeUndefined();
    expect(deliveryKindOf({ event_type: 'run.failed', run_id: 'r' })).toBe('run.failed');
  });

  it('reads a member named like eventType, and any member holding a kind the spec names', () => {
    expect(eventKindOf(ev({ eventType: 'run.progress', step: 2 }))).toBe('run.progress');
    expect(eventKindOf(ev({ event_name: 'vendor:run/approval-reminder' }))).toBe('vendor:run/approval-reminder');
    expect(eventKindOf(ev({ what: 'request.cancelled', run_id: 'run_1' }))).toBe('request.cancelled');
    // A generic SSE name does not hide the kind its data names.
    expect(eventKindOf(ev({ eventType: 'run.completed' }, 'update'))).toBe('run.completed');
    expect(deliveryKindOf({ apiVersion: 'v1', eventType: 'run.completed', run_id: 'run_1', sequence: 3, data: { type: 'other.kind' } })).toBe('run.completed');
    expect(deliveryKindOf({ apiVersion: 'v1', topic: 'run.failed', run_id: 'run_1', sequence: 3 })).toBe('run.failed');
  });

  it('takes an unnamed member by its shape only when one member alone has it, and finds no kind where none is', () => {
    expect(eventKindOf(ev({ name: 'approval.required', action_digest: 'sha256:ab', event_id: 'run_1.4' }))).toBe('approval.required');
    expect(eventKindOf(ev({ a: 'approval.required', b: 'model.large' }))).toBeUndefined();
    // No member names a kind: a stream of these has no terminal event, and the rules still say so.
    expect(eventKindOf(ev({ text: 'run.completed soon', outcome: 'succeeded' }))).toBeUndefined();
    expect(deliveryKindOf({ apiVersion: 'v1', event_id: 'evt_1', run_id: 'run_1', sequence: 1 })).toBeUndefined();
  });
});

describe.concurrent('v1.runs/event-kind-in-data: the kind only in data.eventType', () => {
  const rules = [
    'v1.execute.turn.stream',
    'v1.execute.turn.accepted-event',
    'v1.runs.cancel.terminal-event',
    'v1.runs.events.identity',
    'v1.runs.events.resume',
    'v1.webhooks.delivery.terminal-events',
    'v1.webhooks.delivery.sequence-order',
  ];

  it('the rules that read a kind pass', async () => {
    const { results, variantsTaken } = await certify({ variants: ['v1.runs/event-kind-in-data'], patterns: rules, seed: 7 });
    expect(variantsTaken).toEqual(['v1.runs/event-kind-in-data']);
    const wrong = results.filter((r) => r.verdict !== 'pass').map((r) => `${r.rule.id}: ${r.verdict}: ${r.reason ?? ''}`);
    expect(wrong).toEqual([]);
    expect(results.map((r) => r.rule.id).sort()).toEqual([...rules].sort());
  }, 150_000);

  it.each([
    ['v1.runs.cancel.terminal-event/no-event', 'v1.runs.cancel.terminal-event'],
    ['v1.webhooks.delivery.terminal-events/no-run-failed', 'v1.webhooks.delivery.terminal-events'],
    ['v1.execute.turn.accepted-event/replayed-missing', 'v1.execute.turn.accepted-event'],
  ] as const)('a real break still fails under it (%s)', async (fault, rule) => {
    const { results } = await certify({ variants: ['v1.runs/event-kind-in-data'], faults: [fault], patterns: [rule], seed: 7 });
    expect(results[0]!.verdict, results[0]!.reason).toBe('fail');
  }, 150_000);
});
