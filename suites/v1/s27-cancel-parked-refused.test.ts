/**
 * Audit s27 /v1 F0: the cancel row's condition, "cancellation accepted", binds what an accepted cancel
 * does, not which cancels are accepted ("Transitions: not shown."). A deployment whose parked runs
 * refuse their cancel (409 conflict: only approve resolves them) was failed by
 * v1.runs.lifecycle.model ("parked and not finished, answered 409, expected 200"). The refusal is
 * recorded and the run taken as not cancelled, so the model still holds it parked.
 */
import { describe, expect, it } from 'vitest';
import type { Profile } from '../../src/profile/schema.ts';
import { certify } from '../../src/runner/certify.ts';

const ID = 'v1.runs.lifecycle.model';
const VARIANT = 'v1.runs/cancel-parked-refused';
const fewRuns = (p: Profile): Profile => ({ ...p, safety: { ...p.safety, modelRuns: 5 } });

describe(`${ID} under ${VARIANT}`, () => {
  it('passes a parked run whose cancel is refused 409 conflict, and records the refusal', { timeout: 60_000 }, async () => {
    const { results, variantsTaken } = await certify({ variants: [VARIANT], patterns: [ID], seed: 7, adjustEmbeddedProfile: fewRuns });
    const r = results.find((x) => x.rule.id === ID)!;
    expect(r.verdict, r.reason).toBe('pass');
    // Not a pass over nothing: the fake refused a parked run's cancel, and the model saw it.
    expect(variantsTaken).toEqual([VARIANT]);
    const refused = r.observations.filter((o) => /^cancel of .* refused$/.test(o.subject));
    expect(refused.length, JSON.stringify(r.observations.map((o) => o.subject))).toBeGreaterThan(0);
    expect(refused.every((o) => JSON.stringify(o.value) === JSON.stringify({ status: 409, code: 'conflict' }))).toBe(true);
  });
});
