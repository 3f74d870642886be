import { z } from 'zod';
import { healthState, timestamp, unitScore } from './common.ts';

/** Skill contractHash: "64 hex chars" (unlike manifests, the case is not stated). */
export const SHA256_HEX = /^[0-9a-fA-F]{64}$/;

export const skill = z.looseObject({
  skillId: z.string(),
  name: z.string(),
  description: z.string(),
  version: z.string(),
  contractHash: z.string().regex(SHA256_HEX, 'not 64 hex characters'),
  kind: z.literal('skill'),
  healthState,
  requiredScopes: z.array(z.string()),
  // "a JSON Schema": an object (a boolean schema is not an object)
  inputSchema: z.record(z.string(), z.unknown()),
  evidenceState: z.looseObject({
    lastVerifiedAt: timestamp,
    evidenceScore: unitScore,
    verificationPassed: z.boolean(),
  }),
});
export type Skill = z.infer<typeof skill>;
