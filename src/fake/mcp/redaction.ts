import type { FakeContext } from '../context.ts';

/** The fault echoes the caller's own bearer token in an /mcp 401: what mcp.redaction.run-secrets catches. */
export function echoedToken(fake: FakeContext, authorization: string | undefined): string {
  if (!authorization || !fake.faults.has('mcp.redaction.run-secrets/token-in-401')) return '';
  return ` (token presented: ${authorization.replace(/^Bearer\s+/i, '')})`;
}
