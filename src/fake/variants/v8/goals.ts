import type { VariantDefinition } from '../types.ts';

export const v8GoalsVariants = [
  {
    id: 'v8.goals/array-payload',
    description: 'context goals are answered as a bare array (the prose\'s reading) instead of {goals: [...]}',
    spec: { document: 'v8-integration-gateway.md', section: 'Resources > Context goal', quote: 'The response is an object `{goals: [...]}`. The prose calls the payload an array.' },
  },
] as const satisfies readonly VariantDefinition[];
