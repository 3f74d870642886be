import type { FaultDefinition } from '../types.ts';

/** Faults of the v8.capabilities rules: each breaks exactly the rule named before its slash. */
export const v8CapabilitiesFaults = [
  { id: 'v8.capabilities.search.ok/unknown-kind', description: 'one manifest has kind "plugin"' },
  { id: 'v8.capabilities.search.ok/uppercase-contract-hash', description: 'contractHash is upper-case hex' },
  { id: 'v8.capabilities.search.ok/over-256-results', description: 'search answers 300 manifests' },
  { id: 'v8.capabilities.search.ok/duplicate-id', description: 'search answers a second copy of its first manifest, so one capabilityId is named twice' },
  { id: 'v8.capabilities.search.validation/action-family-129', description: 'a 129-character actionFamily is accepted' },
  { id: 'v8.capabilities.search.validation/target-type-optional', description: 'a search without targetType is accepted' },
  { id: 'v8.capabilities.search.principal-403/ignored', description: 'principalId in a search body is ignored' },
] as const satisfies readonly FaultDefinition[];
