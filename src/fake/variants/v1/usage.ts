import type { VariantDefinition } from '../types.ts';

export const v1UsageVariants = [
  {
    id: 'v1.usage/extra-properties',
    description: 'the usage readback carries unknown properties at every level (nested objects, arrays, nulls, odd names)',
    spec: { document: 'v1-execution-fabric.md', section: 'Resources and their fields > Run, usage and webhook endpoint records', quote: 'Fields of the usage response: not shown.' },
  },
] as const satisfies readonly VariantDefinition[];
