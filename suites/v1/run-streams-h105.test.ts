/**
 * Audit helper-105's findings F4, F8 and F9 (an independent /v1 server written from the spec alone).
 *
 * F4: no sentence bounds how often a run in flight sends an event ("The run may be in flight, parked on
 * approval, or finished."): a resumed stream silent for 3 s is no failure to resume (v1.runs/quiet-long-run).
 * F8: that every run event carries its sequence as SSE id is v1.runs.events.resume's one judgement ("Resume:
 * `Last-Event-ID` carries the `sequence` value of the stored run event."); the rules that only read a run by
 * resuming it are inconclusive naming that rule, and the lifecycle model judges the rest.
 * F9: v1.webhooks.register.secret-once named a missing signing_secret when the registration answered 200 with one.
 */
import { describe, expect, it } from 'vitest';
import { certify } from '../../src/runner/certify.ts';

const verdicts = (results: ReadonlyArray<{ rule: { id: string }; verdict: string; reason?: string }>) => Object.fromEntries(results.map((r) => [r.rule.id, `${r.verdict}: ${r.reason ?? ''}`]));

describe.concurrent('helper-105 findings on /v1 run event streams', () => {
  it('F4: a long run that is quiet for 4.5 s between events passes dropped-connection', async () => {
    const { results } = await certify({ variants: ['v1.runs/quiet-long-run'], patterns: ['v1.runs.events.dropped-connection'], seed: 3 });
    expect(results[0]!.verdict, results[0]!.reason).toBe('pass');
  }, 90_000);

  it('F4: a resume that sees nothing within safety.streamTimeoutMs is judged by a second resume after the events a read from the start shows stored', async () => {
    const { results } = await certify({
      variants: ['v1.runs/quiet-long-run'],
      patterns: ['v1.runs.events.dropped-connection'],
      seed: 3,
      adjustEmbeddedProfile: (p) => ({ ...p, safety: { ...p.safety, streamTimeoutMs: 2_000 } }),
    });
    expect(results[0]!.verdict, results[0]!.reason).toBe('pass');
    const labels = results[0]!.evidence.map((e) => e.label ?? '');
    expect(labels.some((l) => l.startsWith("read the run's events from the start")), labels.join('; ')).toBe(true);
  }, 90_000);

  it('F4: a run the server forgets after the drop still fails', async () => {
    const { results } = await certify({ faults: ['v1.runs.events.dropped-connection/forgets-run'], variants: ['v1.runs/quiet-long-run'], patterns: ['v1.runs.events.dropped-connection'], seed: 3 });
    expect(results[0]!.verdict, results[0]!.reason).toBe('fail');
  }, 90_000);

  it('F8: run events without SSE ids fail v1.runs.events.resume alone', async () => {
    const rules = ['v1.runs.events.resume', 'v1.runs.events.dropped-connection', 'v1.runs.approve.resumes', 'v1.runs.approve.digest-binds', 'v1.runs.approve.request-shape', 'v1.runs.lifecycle.model'];
    const { results } = await certify({ faults: ['v1.runs.events.resume/no-sse-ids'], patterns: rules, seed: 3, adjustEmbeddedProfile: (p) => ({ ...p, safety: { ...p.safety, modelRuns: 3 } }) });
    const got = verdicts(results);
    expect(got['v1.runs.events.resume']).toMatch(/^fail: .*carries no SSE id/);
    // The rules that read what followed an event by resuming after it cannot, and name the rule that judges why.
    for (const id of ['v1.runs.events.dropped-connection', 'v1.runs.approve.resumes', 'v1.runs.approve.digest-binds']) {
      expect(got[id], id).toMatch(/^inconclusive: .*no SSE id.*v1\.runs\.events\.resume judges that/);
    }
    // request-shape reads the parked run's digest from its stream and resumes nothing: it judges as ever.
    expect(got['v1.runs.approve.request-shape']).toMatch(/^pass/);
    // The model judges what it can without a resume, and says that it never resumed.
    expect(got['v1.runs.lifecycle.model']).toMatch(/^pass/);
    const model = results.find((r) => r.rule.id === 'v1.runs.lifecycle.model')!;
    expect(model.observations.find((o) => o.subject === 'never judged: resume')?.note).toContain('v1.runs.events.resume judges that');
  }, 150_000);

  it('F9: secret-once follows the secret of a registration answered 200 (the 201 is register.created\'s), and names a missing secret only when it is missing', async () => {
    const answered200 = await certify({ faults: ['v1.webhooks.register.created/answers-200'], patterns: ['v1.webhooks.register.secret-once'], seed: 3 });
    expect(answered200.results[0]!.verdict, answered200.results[0]!.reason).toBe('pass');
    const noSecret = await certify({ faults: ['v1.webhooks.register.created/no-secret'], patterns: ['v1.webhooks.register.secret-once'], seed: 3 });
    expect(noSecret.results[0]!.verdict).toBe('inconclusive');
    expect(noSecret.results[0]!.reason).toBe('setup failed: registration answered 201 without a signing_secret (v1.webhooks.register.created judges that)');
  }, 90_000);
});
