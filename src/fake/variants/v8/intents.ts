import type { VariantDefinition } from '../types.ts';

export const v8IntentsVariants = [
  {
    id: 'v8.intents/present',
    description: 'POST /v8/intents exists (the 15-operation overview): it needs missions:write and an Idempotency-Key and answers 400 to a body without an intent, 202 otherwise',
    spec: {
      document: 'v8-integration-gateway.md',
      section: 'Endpoints',
      quote: 'One overview page lists 15 operations and includes `POST /v8/intents` among the mutating operations. Another lists 14 and omits it.',
    },
  },
] as const satisfies readonly VariantDefinition[];
