import type { FaultDefinition } from '../types.ts';

/** Faults of the v8.errors rules: each breaks exactly the rule named before its slash. */
export const v8ErrorsFaults = [
  { id: 'v8.errors.problem-shape/status-mismatch', description: 'problem bodies say status 400 whatever the HTTP status' },
  { id: 'v8.errors.problem-shape/plain-json-on-read-surfaces', description: 'invalid memory queries and searches answer 400 as plain JSON without problem fields' },
] as const satisfies readonly FaultDefinition[];
