/**
 * Whether a delivery's MAC verifies, synchronously (Node's crypto): what a judgement over exchanges
 * and a recording's writer both ask. signature.ts stays pure Web Crypto for the bundled k6 scripts.
 */
import { createHmac } from 'node:crypto';
import { constantTimeEqual, signedPayload, WEBHOOK_HEADERS, type RawBody } from './signature.ts';

/** The MAC over `<event_id>.<timestamp>.<raw body>` with `secret` equals the one sent; hex case is the format rule's to judge, not this. */
export function macVerifies(headers: Readonly<Record<string, string>>, rawBody: RawBody, secret: string): boolean {
  const id = headers[WEBHOOK_HEADERS.id] ?? '';
  const timestamp = headers[WEBHOOK_HEADERS.timestamp] ?? '';
  const sent = (headers[WEBHOOK_HEADERS.signature] ?? '').replace(/^v1=/, '').toLowerCase();
  const expected = createHmac('sha256', secret).update(signedPayload(id, timestamp, rawBody)).digest('hex');
  return constantTimeEqual(expected, sent);
}
