import type { FakeContext } from '../../context.ts';

/**
 * Whether /v8 accepts expired tokens. The rule is stated for missions, but the gateway has one
 * authentication, so the fault bends it for every /v8 route (v8/auth.ts asks here).
 */
export function expiredTokensAccepted(fake: FakeContext): boolean {
  return fake.faults.has('v8.missions.auth.expired-token-401/accepted');
}
