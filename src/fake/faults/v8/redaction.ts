import type { FaultDefinition } from '../types.ts';

/** Faults of the v8.redaction rules: each breaks exactly the rule named before its slash. */
export const v8RedactionFaults = [
  { id: 'v8.redaction.canaries/secret-named-field', description: 'values of fields named like secrets are echoed' },
  { id: 'v8.redaction.canaries/private-key-value', description: 'private-key-shaped values are echoed' },
  { id: 'v8.redaction.canaries/bearer-value', description: 'bearer-token-shaped values are echoed' },
  { id: 'v8.redaction.canaries/signal-payload', description: 'signal payloads are echoed into traces unredacted' },
  { id: 'v8.redaction.canaries/purpose-in-error', description: 'a refused memory purpose is echoed unredacted in the problem detail' },
] as const satisfies readonly FaultDefinition[];
