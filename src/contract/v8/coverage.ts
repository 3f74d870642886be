import { z } from 'zod';
import { isoUtc, unitScore } from './common.ts';

/** The kinds the coverage report is keyed by (the same seven as capability manifests). */
export const COVERAGE_KINDS = ['api', 'mcp', 'skill', 'browser', 'a2a_agent', 'human', 'device'] as const;

export const coverageEndpoint = z.looseObject({
  operationId: z.string(),
  method: z.string(),
  path: z.string(),
  scope: z.string(),
  available: z.boolean(),
  evidenceScore: unitScore,
});
export type CoverageEndpoint = z.infer<typeof coverageEndpoint>;

export const coverageReport = z.looseObject({
  gatewayVersion: z.string(),
  contractVersion: z.string(),
  generatedAt: isoUtc,
  endpoints: z.array(coverageEndpoint),
  // "object keyed by kind": a report filtered by scope may leave kinds out, so keys are a subset.
  capabilityKinds: z.partialRecord(z.enum(COVERAGE_KINDS), z.looseObject({ count: z.number().int(), healthyCount: z.number().int() })),
  overallEvidenceScore: unitScore,
});
export type CoverageReport = z.infer<typeof coverageReport>;
