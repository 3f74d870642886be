import type { VariantDefinition } from '../types.ts';

const DOC = 'v1-execution-fabric.md';

export const v1AuthVariants = [
  {
    id: 'v1.auth/expired-as-authorization-failed',
    description: 'an expired API key is refused 403 with code authorization_failed (the key is known, its use no longer authorized) instead of 401 authentication_failed',
    spec: { document: DOC, section: 'Authentication', quote: 'Related errors: `authentication_failed`, `authorization_failed`, `entitlement_failed`.' },
  },
] as const satisfies readonly VariantDefinition[];
