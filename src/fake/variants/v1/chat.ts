import type { VariantDefinition } from '../types.ts';

export const v1ChatVariants = [
  {
    id: 'v1.chat/absent',
    description: '/v1/chat does not exist (404): turn bodies go to /v1/execute only',
    spec: { document: 'v1-execution-fabric.md', section: 'Resources and their fields > Task request body', quote: 'How that path relates to `/v1/execute` is unreconciled.' },
  },
] as const satisfies readonly VariantDefinition[];
