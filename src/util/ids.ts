import { randomBytes } from 'node:crypto';

/** A fresh Idempotency-Key: 32 characters with the default prefix, valid for /v8 (16-128 of A-Za-z0-9._:-) and as a /v1 Identifier. */
export function newKey(prefix = 'apicert'): string {
  return `${prefix}-${randomBytes(12).toString('hex')}`;
}
