/**
 * The approve rules watch a parked run for a time of apicert's own (safety.approvalWatchMs): no sentence
 * bounds how soon "the resume is delivered". A deployment that resumes after the watch
 * (v1.runs/slow-resume) is inconclusive under a short watch, never failed, and passes under one long
 * enough; what a stream does show (a resume after a wrong digest) is still judged. A deployment that
 * declares its own bound (fixtures.v1.approval.resumesWithinMs, as the fake's embedded profile does) is
 * held to it.
 */
import { describe, expect, it } from 'vitest';
import { SLOW_RESUME_MS } from '../../src/fake/v1/runs/engine.ts';
import { profileSchema, type Profile } from '../../src/profile/schema.ts';
import { certify } from '../../src/runner/certify.ts';
import { parkedRunRecording, type RecordedPart } from './parked-recording.ts';

const RULES = ['v1.runs.approve.resumes', 'v1.runs.approve.digest-binds'];

/** apicert's watch set to `ms`, and the deployment's declared resume bound set to `declared` (none when undefined). */
function watching(ms: number, declared?: number): (p: Profile) => Profile {
  return (p) => {
    const approval = p.fixtures.v1.approval!;
    const { resumesWithinMs: _declared, ...rest } = approval;
    return { ...p, safety: { ...p.safety, approvalWatchMs: ms }, fixtures: { ...p.fixtures, v1: { ...p.fixtures.v1, approval: declared === undefined ? rest : { ...rest, resumesWithinMs: declared } } } };
  };
}

function verdicts(results: Awaited<ReturnType<typeof certify>>['results']): Record<string, { verdict: string; reason: string }> {
  return Object.fromEntries(results.map((r) => [r.rule.id, { verdict: r.verdict, reason: r.reason ?? '' }]));
}

describe.concurrent('approve rules: the watch window is apicert\'s, not the deployment\'s', () => {
  it('the variant resumes later than the default watch', () => {
    expect(profileSchema.parse({ target: 'http://127.0.0.1:1' }).safety.approvalWatchMs).toBeLessThan(SLOW_RESUME_MS);
  });

  it('a run resuming after the watch is inconclusive, naming the window and its setting, never a failure', async () => {
    // A watch well short of the resume, so a loaded machine's latency cannot carry the resume into it.
    const { results, report } = await certify({ variants: ['v1.runs/slow-resume'], patterns: RULES, seed: 3, adjustEmbeddedProfile: watching(1_000) });
    const got = verdicts(results);
    expect(got['v1.runs.approve.resumes']!.verdict, got['v1.runs.approve.resumes']!.reason).toBe('inconclusive');
    expect(got['v1.runs.approve.resumes']!.reason).toContain('safety.approvalWatchMs');
    expect(got['v1.runs.approve.resumes']!.reason).toContain('1000 ms');
    expect(got['v1.runs.approve.digest-binds']!.verdict, got['v1.runs.approve.digest-binds']!.reason).toBe('pass');
    expect(report.summary.gate).toBe('inconclusive');
  }, 60_000);

  it('a watch the profile lengthens past the resume passes both rules', async () => {
    const { results, report } = await certify({ variants: ['v1.runs/slow-resume'], patterns: RULES, seed: 3, adjustEmbeddedProfile: watching(SLOW_RESUME_MS * 3) });
    const got = verdicts(results);
    expect(got['v1.runs.approve.resumes'], got['v1.runs.approve.resumes']!.reason).toMatchObject({ verdict: 'pass' });
    expect(got['v1.runs.approve.digest-binds'], got['v1.runs.approve.digest-binds']!.reason).toMatchObject({ verdict: 'pass' });
    expect(report.summary.gate).toBe('pass');
  }, 90_000);

  it('a deployment that declares a resume bound and resumes after it fails resumes, naming the bound', async () => {
    const { results } = await certify({ variants: ['v1.runs/slow-resume'], patterns: ['v1.runs.approve.resumes'], seed: 3, adjustEmbeddedProfile: watching(1_000, 1_000) });
    expect(results[0]!.verdict, results[0]!.reason).toBe('fail');
    expect(results[0]!.reason).toContain('fixtures.v1.approval.resumesWithinMs');
  }, 60_000);

  it('the fake declares a bound its slow variant keeps: the variant passes with the profile as the fake writes it', async () => {
    const { results } = await certify({ variants: ['v1.runs/slow-resume'], patterns: ['v1.runs.approve.resumes'], seed: 3 });
    expect(results[0]!.verdict, results[0]!.reason).toBe('pass');
  }, 60_000);

  it('a wrong digest that resumes the run still fails digest-binds under the long watch', async () => {
    const { results } = await certify({ faults: ['v1.runs.approve.digest-binds/ignores-digest'], patterns: ['v1.runs.approve.digest-binds'], seed: 3, adjustEmbeddedProfile: watching(10_000) });
    expect(results[0]!.verdict, results[0]!.reason).toBe('fail');
    expect(results[0]!.reason).toContain('the run resumed');
  }, 60_000);
});

describe('v1.runs.approve.request-shape, recorded: a run no longer parked owes the valid approve no 200', () => {
  const DIGEST = `sha256:${'ab'.repeat(32)}`;
  const { auth: AUTH, json, event, recording: parked, verdicts } = parkedRunRecording('service_sk_approvewindow0123456789abcdef', DIGEST);
  const ID = 'v1.runs.approve.request-shape';
  const recording = (between: RecordedPart[]) =>
    parked([
      ...between,
      { method: 'POST', path: '/v1/runs/run_1/approve', credential: 'full', requestHeaders: AUTH, requestBody: JSON.stringify({ decision: 'approved' }), status: 400, responseHeaders: { 'content-type': 'application/problem+json' }, responseBody: JSON.stringify({ code: 'invalid_request' }) },
      { method: 'POST', path: '/v1/runs/run_1/approve', credential: 'full', requestHeaders: AUTH, requestBody: JSON.stringify({ action_digest: DIGEST, decision: 'approved' }), status: 409, responseHeaders: { 'content-type': 'application/problem+json' }, responseBody: JSON.stringify({ code: 'conflict' }) },
    ]);

  it('a run still parked fails when the valid approve after refused bodies is refused', async () => {
    expect((await verdicts(recording([]), [ID]))[ID]).toBe('fail');
  });

  it('a run cancelled in between (it once failed), or shown ended, is not held parked', async () => {
    const cancel = { method: 'POST', path: '/v1/runs/run_1/cancel', credential: 'full', requestHeaders: AUTH, status: 200, responseHeaders: json, responseBody: '{}' };
    expect((await verdicts(recording([cancel]), [ID]))[ID]).not.toBe('fail');
    const ended = { method: 'GET', path: '/v1/runs/run_1/events', credential: 'full', requestHeaders: { ...AUTH, 'last-event-id': '2' }, status: 200, responseHeaders: { 'content-type': 'text/event-stream' }, responseBody: event(3, 'run.failed'), streamEnd: 'server' as const };
    expect((await verdicts(recording([ended]), [ID]))[ID]).not.toBe('fail');
  });
});
