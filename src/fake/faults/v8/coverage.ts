import type { FaultDefinition } from '../types.ts';

/** Faults of the v8.coverage rules: each breaks exactly the rule named before its slash. */
export const v8CoverageFaults = [
  { id: 'v8.coverage.shape/score-above-1', description: 'overallEvidenceScore is 87 (a percentage)' },
  { id: 'v8.coverage.shape/unknown-kind-key', description: 'capabilityKinds has a key "plugin"' },
  { id: 'v8.coverage.contract-version/semver', description: 'contractVersion is "8.1.0"' },
  { id: 'v8.coverage.scope-filtered/ignores-scopes', description: 'the report lists every endpoint whatever the scopes' },
] as const satisfies readonly FaultDefinition[];
