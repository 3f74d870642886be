import type { VariantDefinition } from '../types.ts';

export const v8ContractVariants = [
  {
    id: 'v8.contract/content-type-parameters',
    description: 'JSON, problem+json and event-stream content types carry a `charset=utf-8` parameter',
    spec: { document: 'v8-integration-gateway.md', section: 'Endpoints', quote: 'Mission events stream text/event-stream and everything else returns JSON.' },
  },
] as const satisfies readonly VariantDefinition[];
