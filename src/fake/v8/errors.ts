import type { ServerResponse } from 'node:http';
import type { V8Problem } from '../../contract/v8/problem.ts';
import { randomBytes } from 'node:crypto';
import { uuidv4 } from '../../util/uuid.ts';
import type { FakeContext } from '../context.ts';
import { withExtraProperties } from '../support/extra-properties.ts';
import { challengeHeaders } from './auth/challenge.ts';
import { contractHeader, jsonContentType, problemContentType } from './contract.ts';

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Content Too Large',
  422: 'Unprocessable Content',
  428: 'Precondition Required',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
};

/**
 * A problem's requestId: a UUID v4, or under the variant 8-4-4-4-12 hex whose version and variant
 * nibbles are not RFC 9562's ("UUID string" states no version; many systems mint such ids).
 */
function requestId(fake: FakeContext): string {
  if (!fake.variants.has('v8.errors/unversioned-request-id')) return uuidv4();
  const hex = randomBytes(16).toString('hex').split('');
  hex[12] = '0'; // no version
  hex[16] = 'c'; // the reserved Microsoft variant, not RFC 9562's
  const h = hex.join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** A /v8 problem+json answer. */
export function writeProblem(fake: FakeContext, res: ServerResponse, status: number, code: string, detail: string, headers: Record<string, string> = {}): void {
  const other = fake.variants.has('v8.errors/other-codes');
  // "Values of the `code` field on this surface: not shown": the variant names them its own way.
  const shownCode = other ? `GATEWAY.E${status}.${code.toUpperCase()}` : code;
  const body: V8Problem = {
    type: other ? `urn:gateway:problem:${code.replace(/_/g, '-')}` : fake.variants.has('v8.errors/relative-problem-type') ? `/problems/${code}` : `https://errors.apicert.invalid/v8/${code}`,
    title: other ? `Request refused (${code.replace(/_/g, ' ')})` : (TITLES[status] ?? 'Error'),
    status: fake.faults.has('v8.errors.problem-shape/status-mismatch') ? 400 : status,
    detail,
    code: shownCode,
    requestId: requestId(fake),
  };
  // RFC 9457 allows extension members and the seed does not close the object.
  const text = JSON.stringify(fake.variants.has('v8.errors/extra-properties') ? withExtraProperties(body) : body);
  res.writeHead(status, { 'content-type': problemContentType(fake), 'content-length': Buffer.byteLength(text), ...contractHeader(fake, 'problem'), ...(status === 401 ? challengeHeaders(fake) : {}), ...headers });
  res.end(text);
}

/** 400 for an invalid body on a read surface (memory, capabilities): a problem, or plain JSON under the fault. */
export function writeInvalid(fake: FakeContext, res: ServerResponse, detail: string): void {
  if (!fake.faults.has('v8.errors.problem-shape/plain-json-on-read-surfaces')) {
    writeProblem(fake, res, 400, 'invalid_request', detail);
    return;
  }
  const text = JSON.stringify({ error: 'invalid_request', detail });
  res.writeHead(400, { 'content-type': jsonContentType(fake), ...contractHeader(fake, 'success'), 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
