import type { VariantDefinition } from '../types.ts';

export const v1RunsVariants = [
  {
    id: 'v1.runs/sse-framing',
    description: 'run event streams carry comments (keepalives), a retry: field and each JSON payload split over several data: lines',
    spec: { document: 'v1-execution-fabric.md', section: 'Endpoints', quote: 'GET | `/v1/runs/{id}/events` | SSE' },
  },
] as const satisfies readonly VariantDefinition[];
