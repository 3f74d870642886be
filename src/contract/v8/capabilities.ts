import { z } from 'zod';
import { stated } from '../marks.ts';
import { V8 } from '../sentence.ts';
import { healthState } from './common.ts';

export const CAPABILITY_KINDS = ['api', 'mcp', 'a2a_agent', 'browser', 'device', 'skill', 'human'] as const;
export type CapabilityKind = (typeof CAPABILITY_KINDS)[number];

/** "capability search results | at most 256" */
export const MAX_SEARCH_RESULTS = 256;

/** "Request fields, all required strings: `actionFamily` (1-128 chars), `purpose` (1-256 chars), `targetType` (1-128 chars)." */
const SEARCH = V8('Resources and their fields > Capability search request and manifest', 'Request fields, all required strings: `actionFamily` (1-128 chars), `purpose` (1-256 chars), `targetType` (1-128 chars).');
export const capabilitySearchRequest = stated(
  z.looseObject({
    actionFamily: stated(z.string().min(1).max(128), ['type', 'length'], SEARCH),
    purpose: stated(z.string().min(1).max(256), ['type', 'length'], SEARCH),
    targetType: stated(z.string().min(1).max(128), ['type', 'length'], SEARCH),
  }),
  ['required', 'type'],
  SEARCH,
);
export type CapabilitySearchRequest = z.infer<typeof capabilitySearchRequest>;

/** "64 lowercase hex chars (SHA-256 of the contract)" */
export const SHA256_LOWER_HEX = /^[0-9a-f]{64}$/;

export const capabilityManifest = z.looseObject({
  capabilityId: z.string().min(1),
  kind: z.enum(CAPABILITY_KINDS),
  version: z.string(),
  contractHash: z.string().regex(SHA256_LOWER_HEX, 'not 64 lowercase hex characters'),
  healthState,
});
export type CapabilityManifest = z.infer<typeof capabilityManifest>;

/** "a JSON array of manifests, at most 256" */
export const capabilitySearchResponse = z.array(capabilityManifest).max(MAX_SEARCH_RESULTS);
