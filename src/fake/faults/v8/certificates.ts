import type { FaultDefinition } from '../types.ts';

/** Faults of the v8.certificates rules: each breaks exactly the rule named before its slash. */
export const v8CertificatesFaults = [
  { id: 'v8.certificates.shape/health-stale', description: 'a certificate has healthState "stale"' },
  { id: 'v8.certificates.shape/expires-at-date-only', description: 'expiresAt is a date without time' },
] as const satisfies readonly FaultDefinition[];
