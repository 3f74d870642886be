import type { VariantDefinition } from '../types.ts';

export const v1ExecuteVariants = [
  {
    id: 'v1.execute/extra-properties',
    description: 'the task response carries unknown properties beside run_id (nested objects, arrays, nulls, odd names)',
    spec: { document: 'v1-execution-fabric.md', section: 'Resources and their fields > Task response', quote: 'A JSON object with required `run_id` (string). Other properties are allowed.' },
  },
] as const satisfies readonly VariantDefinition[];
