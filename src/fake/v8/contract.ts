import { CONTRACT_HEADER, CONTRACT_VERSION } from '../../contract/v8/common.ts';
import { PROBLEM_CONTENT_TYPE } from '../../contract/v8/problem.ts';
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

/** `charset=utf-8` on every content type under the variant: a media-type parameter the seed neither asks for nor forbids. */
function withCharset(fake: FakeContext, type: string): string {
  return fake.variants.has('v8.contract/content-type-parameters') ? `${type}; charset=utf-8` : type;
}

export function jsonContentType(fake: FakeContext): string {
  return withCharset(fake, 'application/json');
}

export function problemContentType(fake: FakeContext): string {
  return withCharset(fake, PROBLEM_CONTENT_TYPE);
}

export function eventStreamContentType(fake: FakeContext): string {
  return withCharset(fake, 'text/event-stream');
}
