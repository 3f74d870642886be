/**
 * A recording of one parked /v1 run: its start (the profile's `parks` task) and a read of its stream up
 * to the approval event and its digest, then the exchanges a test adds. The approve suites judge
 * v1.runs.approve.request-shape over it.
 */
import { v1Recording } from '../passive/v1-recording.ts';

const BASE = 'https://fabric.example.com';
const PARKS = { mode: 'task', task: { scenario: 'apicert.parks' } };

export function parkedRunRecording(token: string, digest: string) {
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const { journal, verdicts } = v1Recording(BASE, token, { parks: PARKS }, { approval: { event: 'approval.required', digestField: 'action_digest' } });
  const json = { 'content-type': 'application/json' };
  const event = (seq: number, type: string, extra: Record<string, unknown> = {}) => `id: ${seq}\nevent: ${type}\ndata: ${JSON.stringify({ run_id: 'run_1', sequence: seq, type, ...extra })}\n\n`;
  type Part = Parameters<typeof journal>[0][number];
  /** The parked run's start and stream read, then `after`. */
  const recording = (after: Part[]) =>
    journal([
      { method: 'POST', path: '/v1/execute', credential: 'full', requestHeaders: auth, requestBody: JSON.stringify(PARKS), status: 200, responseHeaders: json, responseBody: JSON.stringify({ run_id: 'run_1' }) },
      { method: 'GET', path: '/v1/runs/run_1/events', credential: 'full', requestHeaders: auth, status: 200, responseHeaders: { 'content-type': 'text/event-stream' }, responseBody: event(1, 'request.accepted') + event(2, 'approval.required', { action_digest: digest }), streamEnd: 'client-disconnect' },
      ...after,
    ]);
  return { auth, json, event, recording, verdicts };
}

export type RecordedPart = Parameters<ReturnType<typeof parkedRunRecording>['recording']>[0][number];
