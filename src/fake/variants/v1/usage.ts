import type { VariantDefinition } from '../types.ts';

export const v1UsageVariants = [
  {
    id: 'v1.usage/extra-properties',
    description: 'the usage readback carries unknown properties at every level (nested objects, arrays, nulls, odd names)',
    spec: { document: 'v1-execution-fabric.md', section: 'Resources and their fields > Run, usage and webhook endpoint records', quote: 'Fields of the usage response: not shown.' },
  },
  {
    id: 'v1.usage/live-counters',
    description: 'the usage readback carries counters that move on their own: the microseconds elapsed in the period, and the events emitted by the tenant\'s runs so far',
    spec: { document: 'v1-execution-fabric.md', section: 'Resources and their fields > Run, usage and webhook endpoint records', quote: 'Fields of the usage response: not shown.' },
  },
] as const satisfies readonly VariantDefinition[];
