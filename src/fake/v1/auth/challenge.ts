import type { FakeContext } from '../../context.ts';

/**
 * The challenge every /v1 401 carries (RFC 9110 15.5.2; RFC 6750 3 names the Bearer scheme); none
 * under the fault. Apart from auth.ts, which the problem writer's module would otherwise import in a cycle.
 */
export function challengeHeaders(fake: FakeContext): Record<string, string> {
  if (fake.faults.has('v1.auth.challenge/no-challenge')) return {};
  return { 'www-authenticate': fake.faults.has('v1.auth.challenge/basic-only') ? 'Basic realm="apicert-fake-v1"' : 'Bearer realm="apicert-fake-v1"' };
}
