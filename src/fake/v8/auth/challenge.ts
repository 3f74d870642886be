import type { FakeContext } from '../../context.ts';

/**
 * The challenge every /v8 401 carries (RFC 9110 15.5.2; RFC 6750 3 names the Bearer scheme); none
 * under the fault. Apart from auth.ts, which the problem writer's module would otherwise import in a cycle.
 */
export function challengeHeaders(fake: FakeContext): Record<string, string> {
  return fake.faults.has('v8.auth.challenge/no-challenge') ? {} : { 'www-authenticate': 'Bearer realm="apicert-fake-v8"' };
}
