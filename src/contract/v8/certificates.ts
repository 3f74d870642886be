import { z } from 'zod';
import { healthState, isoUtc } from './common.ts';

export const worldCertificate = z.looseObject({
  certificateId: z.string(),
  domain: z.string(),
  head: z.string(),
  horizon: isoUtc,
  expiresAt: isoUtc,
  signature: z.string(),
  healthState,
  issuedAt: isoUtc,
});
export type WorldCertificate = z.infer<typeof worldCertificate>;

/** "The response is an object `{certificates: [...]}`. The prose and SDK call the payload an array." Both are accepted. */
export const certificatesResponse = z.union([z.looseObject({ certificates: z.array(z.unknown()) }), z.array(z.unknown())]);
