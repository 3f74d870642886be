import type { VariantDefinition } from '../types.ts';

export const v1ContractVariants = [
  {
    id: 'v1.contract/unimplemented-methods-501',
    description: 'a method /v1 uses for no resource (PUT, DELETE, PATCH, OPTIONS, TRACE) is answered 501, as RFC 9110 15.6.2 names for a method the server supports nowhere, instead of 405 or 404',
    spec: { document: 'v1-execution-fabric.md', section: 'Endpoints', quote: 'All paths are relative to `{base_url}`. Error responses on every endpoint are `application/problem+json` (see Errors).' },
  },
] as const satisfies readonly VariantDefinition[];
