import type { FaultDefinition } from '../types.ts';

/** Faults of the v8.redaction rules: each breaks exactly the rule named before its slash. */
export const v8RedactionFaults = [
  { id: 'v8.redaction.canaries/secret-named-field', description: 'values of fields named like secrets are echoed' },
  { id: 'v8.redaction.canaries/signal-payload', description: 'signal payloads are echoed into traces unredacted' },
  { id: 'v8.redaction.run-secrets/token-in-401', description: "a 401 for an expired token echoes the caller's own token in its detail" },
  { id: 'v8.redaction.run-secrets/token-in-403', description: "a 403 for a token without the endpoint's scope echoes the caller's own token, which it authenticated, in its detail" },
] as const satisfies readonly FaultDefinition[];
