/**
 * Audit s26 /v1 F2: "Mapping of each `code` to an HTTP status: not shown." v1.contract.generated.accepts-valid
 * held approves with the right digest to must-accept after the run had left its parked state: approved
 * (a later read of its stream from the start shows the approval event again) or cancelled. A deployment
 * answering those 422 (v1.runs/not-parked-422) was failed. Only an approve sent while the run is last
 * shown parked, and no approve has taken, must be accepted.
 */
import { describe, expect, it } from 'vitest';
import { parkedRunRecording, type RecordedPart } from './parked-recording.ts';

const TOKEN = 'service_sk_s26notparked0123456789abcdef';
const DIGEST = 'sha256:s26-digest';
const ID = 'v1.contract.generated.accepts-valid';
const { auth, json, event, recording, verdicts } = parkedRunRecording(TOKEN, DIGEST);
const APPROVE = { action_digest: DIGEST, decision: 'approved' };

const approve = (status: number): RecordedPart => ({
  method: 'POST',
  path: '/v1/runs/run_1/approve',
  credential: 'full',
  requestHeaders: auth,
  requestBody: JSON.stringify(APPROVE),
  status,
  responseHeaders: status === 200 ? json : { 'content-type': 'application/problem+json' },
  responseBody: JSON.stringify(status === 200 ? { run_id: 'run_1' } : { type: 'about:blank', title: 'not parked', status, code: 'invalid_request', message: 'the run is not parked', retryable: false }),
});
const rereadFromStart: RecordedPart = {
  method: 'GET',
  path: '/v1/runs/run_1/events',
  credential: 'full',
  requestHeaders: auth,
  status: 200,
  responseHeaders: { 'content-type': 'text/event-stream' },
  responseBody: event(1, 'request.accepted') + event(2, 'approval.required', { action_digest: DIGEST }) + event(3, 'approval.resolved'),
  streamEnd: 'client-disconnect',
};
const cancel: RecordedPart = { method: 'POST', path: '/v1/runs/run_1/cancel', credential: 'full', requestHeaders: auth, status: 200, responseHeaders: json, responseBody: '{}' };

describe(`${ID}: an approve to a run no longer parked`, () => {
  it('leaves a 422 open after an approve took, though a read from the start shows the approval event again', async () => {
    expect((await verdicts(recording([approve(200), rereadFromStart, approve(422)]), [ID]))[ID]).toBe('pass');
  });

  it('leaves a 422 open after a cancel was accepted', async () => {
    expect((await verdicts(recording([cancel, approve(422)]), [ID]))[ID]).toBe('pass');
  });

  it('still fails a refusal of the approve sent while the run is shown parked', async () => {
    expect((await verdicts(recording([approve(422)]), [ID]))[ID]).toBe('fail');
  });
});

describe(`${ID}: a cancelled run read again from the start`, () => {
  it('leaves a 422 open after a cancel, though a later read shows the approval event again', async () => {
    expect((await verdicts(recording([cancel, rereadFromStart, approve(422)]), [ID]))[ID]).toBe('pass');
  });
});

describe(`${ID}: a refused approve`, () => {
  const wrongDigest: RecordedPart = { ...approve(409), requestBody: JSON.stringify({ ...APPROVE, action_digest: 'sha256:other' }) };
  const notADecision: RecordedPart = { ...approve(400), requestBody: JSON.stringify({ action_digest: 7 }) };

  it('leaves the run unknown after a refused decision (it may have ended the run): a later 422 is open', async () => {
    expect((await verdicts(recording([wrongDigest, approve(422)]), [ID]))[ID]).toBe('pass');
  });

  it('keeps the run parked after a refused body that is no decision: a later 422 still fails', async () => {
    expect((await verdicts(recording([notADecision, approve(422)]), [ID]))[ID]).toBe('fail');
  });
});
