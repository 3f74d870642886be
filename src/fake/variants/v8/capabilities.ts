import type { VariantDefinition } from '../types.ts';

const DOC = 'v8-integration-gateway.md';

export const v8CapabilitiesVariants = [
  {
    id: 'v8.capabilities/extra-properties',
    description: 'every capability manifest carries unknown properties (nested objects, arrays, nulls, odd names)',
    spec: { document: DOC, section: 'Resources > Capability search request and manifest', quote: 'Response: a JSON array of manifests, at most 256, ordered by policy-weighted relevance.' },
  },
  {
    id: 'v8.capabilities/other-ids',
    description: 'capabilityIds are URNs and paths with `:`, `/`, `#` and `@`, one of them 300 characters long',
    spec: { document: DOC, section: 'Resources > Capability search request and manifest', quote: 'capabilityId | string | stable unique id' },
  },
  {
    id: 'v8.capabilities/filtered-results',
    description: 'capability search answers only the healthy manifests of the requested action family (possibly none), fewer than it knows',
    spec: { document: DOC, section: 'Resources > Capability search request and manifest', quote: 'Response: a JSON array of manifests, at most 256, ordered by policy-weighted relevance.' },
  },
] as const satisfies readonly VariantDefinition[];
