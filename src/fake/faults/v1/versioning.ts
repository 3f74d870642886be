import type { FaultDefinition } from '../types.ts';

/** Faults of the v1.versioning rules: each breaks exactly the rule named before its slash. */
export const v1VersioningFaults = [
  { id: 'v1.versioning.header/rejected', description: 'X-AI-Platform-Version: v1 is rejected' },
  { id: 'v1.versioning.header/any-value', description: 'X-AI-Platform-Version carrying another value than v1 (v2) is accepted' },
] as const satisfies readonly FaultDefinition[];
