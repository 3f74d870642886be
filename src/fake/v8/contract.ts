import { CONTRACT_HEADER, CONTRACT_VERSION } from '../../contract/v8/common.ts';
import type { FakeContext } from '../context.ts';

/** What a /v8 response is, as far as the contract-version header goes. */
export type ResponseKind = 'success' | 'problem' | 'listing';

/** `x-service-contract-version` on every /v8 response; each fault drops it from one kind of response. */
export function contractHeader(fake: FakeContext, kind: ResponseKind): Record<string, string> {
  if (kind === 'problem' && fake.faults.has('v8.contract.version-header/missing-on-errors')) return {};
  if (kind === 'listing' && fake.faults.has('v8.contract.version-header/missing-on-read-surfaces')) return {};
  return { [CONTRACT_HEADER]: CONTRACT_VERSION };
}

/** "HTTP origins are rejected": true when the request comes from an http:// Origin the gateway must refuse. */
export function refusesOrigin(fake: FakeContext, origin: string | undefined): boolean {
  return origin !== undefined && /^http:/i.test(origin) && !fake.faults.has('v8.contract.http-origin/accepted');
}
