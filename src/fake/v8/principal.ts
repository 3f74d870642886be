import type { FakeCaller } from '../auth.ts';
import type { FakeContext } from '../context.ts';

/** The principal comes from the token; the fault lets a principalId in the goal decide instead. */
export function ownerOf(fake: FakeContext, caller: FakeCaller, goalSpec: Record<string, unknown>): string {
  const named = goalSpec.principalId;
  return typeof named === 'string' && fake.faults.has('v8.principal.from-token/goalspec-principal') ? named : caller.principal;
}
