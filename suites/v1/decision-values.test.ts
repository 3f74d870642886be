import { describe, expect, it } from 'vitest';
import { expectationOf, sentOf, type Known } from '../../src/checks/generated/expectation.ts';
import { certify } from '../../src/runner/certify.ts';

/**
 * ApproveRequest `decision`: "`approved` and `rejected` are expected by convention, unconfirmed" and
 * "the allowed values of `decision`: not shown". Only the profile's approveDecision is known to be
 * taken (audit fw1, F4: a deployment taking `approve` / `reject` failed accepts-valid on `rejected`).
 */
describe('the decision values of an approve', () => {
  const credential = { name: 'k', token: 'service_sk_test', surfaces: ['v1'], scopes: [], principal: 'p', tenant: 't' } as never;
  const approve = (decision: unknown) => sentOf({ method: 'POST', path: '/v1/runs/run_1/approve', credential, headers: {}, json: { action_digest: 'd', decision } });
  // The run is parked and the profile names the approving word: the base the generated rules judge an approve against.
  const parked = (approveDecision: string): Known => ({ existing: [], parked: ['run_1'], bases: {}, approvals: { run_1: { action_digest: 'd', decision: approveDecision } } });

  it('holds only the profile\'s approveDecision to an answer; the conventional words are open', () => {
    // Old code: `rejected` and `approved` were must-accept whatever the profile named.
    expect(expectationOf(approve('rejected'), parked('approve')).kind).toBe('open');
    expect(expectationOf(approve('approved'), parked('approve')).kind).toBe('open');
    expect(expectationOf(approve('rejected'), parked('approved')).kind).toBe('open');
    expect(expectationOf(approve('approve'), parked('approve')).kind).toBe('accept');
    expect(expectationOf(approve('approved'), parked('approved')).kind).toBe('accept');
  });

  it('still holds the stated type: a decision that is no string must be refused', () => {
    expect(expectationOf(approve(5), parked('approve')).kind).toBe('refuse');
  });

  it('passes a deployment taking approve / reject (v1.runs/decision-verbs) in v1.contract.generated.accepts-valid', async () => {
    // Old code: FAIL "... ({"action_digest":...,"decision":"rejected"}) answered 400: refused a request the description accepts".
    const { results, variantsTaken } = await certify({ variants: ['v1.runs/decision-verbs'], patterns: ['v1.contract.generated.accepts-valid', 'v1.runs.approve.*'], seed: 7 });
    expect(variantsTaken).toEqual(['v1.runs/decision-verbs']);
    const verdicts = Object.fromEntries(results.map((r) => [r.rule.id, `${r.verdict}${r.verdict === 'pass' || r.verdict === 'not-applicable' ? '' : `: ${r.reason?.split('\n')[0]}`}`]));
    expect(verdicts['v1.contract.generated.accepts-valid']).toBe('pass');
    expect(verdicts['v1.runs.approve.resumes']).toBe('pass');
  }, 120_000);

  it('approves with the profile\'s decision where a probe means an approve: the not-parked approve of the error battery reaches its 409', async () => {
    // Old code sent `approved` literally: under decision-verbs it was a 400 for the word, never the not-parked refusal it means.
    const { results } = await certify({ variants: ['v1.runs/decision-verbs'], patterns: ['v1.errors.problem-shape'], seed: 7 });
    const sent = results[0]!.evidence.find((e) => e.label === 'approve a run that is not parked');
    expect(results[0]!.verdict).toBe('pass');
    expect(sent?.request.body).toContain('"decision":"approve"');
    expect(sent?.response?.status).toBe(409);
  }, 120_000);
});
