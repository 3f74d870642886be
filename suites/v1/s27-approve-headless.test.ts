/**
 * Audit s27 /v1 (Koa) F1: a server that sends an event stream's head only with its first byte (Node's
 * default for a body written later, Koa's `ctx.body = new PassThrough()`) sends nothing at all for a
 * parked run's stream resumed after its parked event. The approve rules took that for transport
 * trouble ("UND_ERR_HEADERS_TIMEOUT"), so the gate could never pass; no head within the watch of a
 * parked run is no event within it. A run that never resumes is still failed past the bound the
 * profile declares.
 */
import { describe, expect, it } from 'vitest';
import type { Profile } from '../../src/profile/schema.ts';
import { certify } from '../../src/runner/certify.ts';

const VARIANT = 'v1.runs/headers-with-first-event';

describe.concurrent(`the approve rules under ${VARIANT}`, () => {
  it('pass: a parked run that sends not even its head shows no event while parked', async () => {
    const { results } = await certify({ variants: [VARIANT], patterns: ['v1.runs.approve.resumes', 'v1.runs.approve.digest-binds'], seed: 3 });
    expect(results).toHaveLength(2);
    for (const r of results) expect(r.verdict, `${r.rule.id}: ${r.reason}`).toBe('pass');
    const resumes = results.find((r) => r.rule.id === 'v1.runs.approve.resumes')!;
    expect(resumes.observations.some((o) => o.subject.includes('no response headers'))).toBe(true);
  }, 60_000);

  it('a run the approve never resumes still fails resumes past the declared bound', async () => {
    // A short declared bound: the head is still waited for a request's time (safety.requestTimeoutMs), which the failure says.
    const short = (p: Profile): Profile => ({ ...p, fixtures: { ...p.fixtures, v1: { ...p.fixtures.v1, approval: { ...p.fixtures.v1.approval!, resumesWithinMs: 1_000 } } } });
    const { results } = await certify({ variants: [VARIANT], faults: ['v1.runs.approve.resumes/no-resume'], patterns: ['v1.runs.approve.resumes'], seed: 3, adjustEmbeddedProfile: short });
    expect(results[0]!.verdict, results[0]!.reason).toBe('fail');
    expect(results[0]!.reason).toContain('fixtures.v1.approval.resumesWithinMs');
    expect(results[0]!.reason).toContain("not even the stream's response headers");
  }, 60_000);
});
