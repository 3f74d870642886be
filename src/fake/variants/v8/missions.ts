import type { VariantDefinition } from '../types.ts';

export const v8MissionsVariants = [
  {
    id: 'v8.missions/sse-framing',
    description: 'mission event streams carry comments (keepalives), a retry: field and each JSON payload split over several data: lines',
    spec: { document: 'v8-integration-gateway.md', section: 'Endpoints', quote: 'GET | `/v8/missions/{runId}/events` | `missions:read` | header `Last-Event-ID` (optional) | `200` SSE' },
  },
] as const satisfies readonly VariantDefinition[];
