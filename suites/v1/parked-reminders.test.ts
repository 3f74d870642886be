/**
 * "Event kinds beyond `request.accepted` and `request.cancelled` ... not shown": a parked run may send a
 * kind of its own at any interval without resuming (v1.runs/parked-reminders: a reminder every 4 s,
 * longer than the approve rules' read of what a parked run sends). Such a kind, first seen after a wrong
 * approve, is no sign the run went on with its action: only how the run ended is.
 */
import { describe, expect, it } from 'vitest';
import { afterWrongDigest } from '../../src/checks/v1/runs/approve.ts';
import { certify } from '../../src/runner/certify.ts';

const TERMINAL = new Set(['request.cancelled', 'run.completed', 'run.failed']);

describe('a wrong digest is judged by how the run ended, not by the kinds it sent', () => {
  it('a kind the run had not sent before decides nothing; run.completed is a resume; run.failed and request.cancelled end it without its action', () => {
    expect(afterWrongDigest(['vendor:run/approval-reminder'], TERMINAL)).toEqual({});
    expect(afterWrongDigest(['vendor:run/approval-reminder', 'run.completed'], TERMINAL)).toEqual({ resumed: 'it went on to run.completed' });
    expect(afterWrongDigest(['approval.resolved', 'run.failed'], TERMINAL)).toEqual({ ended: 'run.failed' });
    expect(afterWrongDigest(['request.cancelled'], TERMINAL)).toEqual({ ended: 'request.cancelled' });
  });

  it('a parked run that reminds every 4 s passes digest-binds and resumes', async () => {
    // A watch of 5 s after the wrong approve, so the first reminder (4 s after the run parked) falls inside it.
    const { results } = await certify({ variants: ['v1.runs/parked-reminders'], patterns: ['v1.runs.approve.digest-binds', 'v1.runs.approve.resumes'], seed: 5, adjustEmbeddedProfile: (p) => ({ ...p, safety: { ...p.safety, approvalWatchMs: 5_000 } }) });
    for (const r of results) expect(r.verdict, `${r.rule.id}: ${r.reason}`).toBe('pass');
    const observed = results.find((r) => r.rule.id === 'v1.runs.approve.digest-binds')!.observations.find((o) => o.subject === 'events after the wrong approval');
    // The reminder came inside the watch after the wrong approve: the case the old reading failed.
    expect(observed?.value).toContain('vendor:run/approval-reminder');
  }, 90_000);

  it('a wrong digest the fake ignores still fails: the run went on to run.completed', async () => {
    const { results } = await certify({ faults: ['v1.runs.approve.digest-binds/ignores-digest'], variants: ['v1.runs/parked-reminders'], patterns: ['v1.runs.approve.digest-binds'], seed: 5 });
    expect(results[0]!.verdict).toBe('fail');
    expect(results[0]!.reason).toContain('went on to run.completed');
  }, 60_000);
});
