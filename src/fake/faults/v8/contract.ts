import type { FaultDefinition } from '../types.ts';

/** Faults of the v8.contract rules: each breaks exactly the rule named before its slash. */
export const v8ContractFaults = [
  { id: 'v8.contract.version-header/missing-on-errors', description: 'error responses carry no x-service-contract-version' },
  { id: 'v8.contract.version-header/missing-on-read-surfaces', description: 'goals, certificates and coverage answer without x-service-contract-version' },
  { id: 'v8.contract.http-origin/accepted', description: 'a request from an http:// Origin is served' },
] as const satisfies readonly FaultDefinition[];
