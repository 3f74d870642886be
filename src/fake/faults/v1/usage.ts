import type { FaultDefinition } from '../types.ts';

/** Faults of the v1.usage rules: each breaks exactly the rule named before its slash. */
export const v1UsageFaults = [
  { id: 'v1.usage.readback/text-plain', description: 'usage is labelled text/plain' },
  { id: 'v1.usage.tenant-scoped/counts-all-tenants', description: "usage lists only the tenant's runs but its counts and spend include every tenant's" },
  { id: 'v1.usage.tenant-scoped/all-tenants', description: "usage lists every tenant's runs" },
] as const satisfies readonly FaultDefinition[];
