import type { FaultDefinition } from '../types.ts';

/** Faults of the v8.principal rules: each breaks exactly the rule named before its slash. */
export const v8PrincipalFaults = [
  { id: 'v8.principal.from-token/goalspec-principal', description: 'create gives the mission to goalSpec.principalId' },
] as const satisfies readonly FaultDefinition[];
