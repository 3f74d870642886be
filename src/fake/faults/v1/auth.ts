import type { FaultDefinition } from '../types.ts';

/** Faults of the v1.auth rules: each breaks exactly the rule named before its slash. */
export const v1AuthFaults = [
  { id: 'v1.auth.unauthenticated/serves-without-key', description: '/v1 requests without an API key are served' },
  { id: 'v1.auth.expired-key/accepted', description: 'an expired API key is accepted' },
] as const satisfies readonly FaultDefinition[];
