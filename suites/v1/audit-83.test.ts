/**
 * An approve with two faults: a body that is no ApproveRequest, sent to a run that is no longer
 * parked. No sentence orders the causes ("Transitions: not shown."; "Mapping of each `code` to an
 * HTTP status: not shown."), so refusing it for the run's state (409 `conflict`) is as legal as
 * refusing it for the body (400 `invalid_request`): v1.runs.approve.request-shape takes either,
 * where the traffic shows the run was not parked. A `conflict` for a malformed body to a run the
 * traffic shows still parked (the valid approve after it answered 200) still fails.
 */
import { describe, expect, it } from 'vitest';
import { certify } from '../../src/runner/certify.ts';
import { parkedRunRecording, type RecordedPart } from './parked-recording.ts';

const ID = 'v1.runs.approve.request-shape';
const DIGEST = `sha256:${'cd'.repeat(32)}`;
const { auth: AUTH, json, recording, verdicts } = parkedRunRecording('service_sk_auditeightythree0123456789ab', DIGEST);
const problem = { 'content-type': 'application/problem+json' };

type Part = RecordedPart;
const approve = (body: unknown, status: number, code?: string): Part => ({
  method: 'POST',
  path: '/v1/runs/run_1/approve',
  credential: 'full',
  requestHeaders: AUTH,
  requestBody: JSON.stringify(body),
  status,
  responseHeaders: status < 300 ? json : problem,
  responseBody: JSON.stringify(status < 300 ? { run_id: 'run_1' } : { code }),
});
const extra = { action_digest: DIGEST, decision: 'approved', apicertExtra: true };
const noDigest = { decision: 'approved' };
const valid = { action_digest: DIGEST, decision: 'approved' };

describe('v1.runs.approve.request-shape: a malformed approve to a run no longer parked', () => {
  it('refused for the run\'s state (409 conflict), the valid approve after it refused too: the state was its cause, not fail', async () => {
    expect((await verdicts(recording([approve(extra, 409, 'conflict'), approve(noDigest, 409, 'conflict'), approve(valid, 409, 'conflict')]), [ID]))[ID]).toBe('pass');
  });

  it('refused for its body (400 invalid_request), as before: pass while the run is parked', async () => {
    expect((await verdicts(recording([approve(extra, 400, 'invalid_request'), approve(noDigest, 400, 'invalid_request'), approve(valid, 200)]), [ID]))[ID]).toBe('pass');
  });

  it('a conflict for a malformed body while the run was parked (the valid approve after it answered 200): fail', async () => {
    expect((await verdicts(recording([approve(extra, 409, 'conflict'), approve(valid, 200)]), [ID]))[ID]).toBe('fail');
  });

  it('bodies refused invalid_request, then the valid approve refused: the refused bodies may have approved the run, fail as before', async () => {
    expect((await verdicts(recording([approve(extra, 400, 'invalid_request'), approve(valid, 409, 'conflict')]), [ID]))[ID]).toBe('fail');
  });

  it('another code, or a malformed body served, still fails', async () => {
    expect((await verdicts(recording([approve(extra, 409, 'rate_limited'), approve(valid, 409, 'conflict')]), [ID]))[ID]).toBe('fail');
    expect((await verdicts(recording([approve(extra, 200), approve(valid, 409, 'conflict')]), [ID]))[ID]).toBe('fail');
  });
});

describe('variant v1.runs/state-before-body', () => {
  it('the approve rules and the /v1 error rules pass under it', async () => {
    const { results } = await certify({ variants: ['v1.runs/state-before-body'], patterns: ['v1.runs.approve.*', 'v1.errors.*', 'v1.runs.lifecycle.*', 'v1.auth.*'], seed: 5 });
    const failing = results.filter((r) => r.verdict === 'fail').map((r) => `${r.rule.id}: ${r.reason ?? ''}`);
    expect(failing).toEqual([]);
    expect(results.find((r) => r.rule.id === ID)?.verdict).toBe('pass');
  }, 120_000);
});
