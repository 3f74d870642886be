import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boundaryBodies, brokenExamples, turnCases, validTurnBody } from '../../src/checks/v1/execute/turn-bodies-arbitrary.ts';
import { turnRequest } from '../../src/contract/v1/turn.ts';

// The property check is only as good as its generators: each must agree with the contract it probes.
describe('turn body generators agree with the turn contract', () => {
  it.each(boundaryBodies().map((c) => [c.why, c] as const))('admits the boundary body: %s', (_why, c) => {
    const result = turnRequest.safeParse(c.body);
    expect(result.success, result.error?.message).toBe(true);
  });

  it.each(brokenExamples().map((c) => [c.why, c] as const))('rejects the body with %s', (_why, c) => {
    expect(turnRequest.safeParse(c.body).success).toBe(false);
  });

  it('admits every generated valid body', () => {
    fc.assert(fc.property(validTurnBody, (body) => turnRequest.safeParse(body).success), { numRuns: 300, seed: 4 });
  });

  it('labels every generated case the way the contract judges it', () => {
    fc.assert(fc.property(turnCases, (c) => turnRequest.safeParse(c.body).success === c.valid), { numRuns: 300, seed: 5 });
  });
});
