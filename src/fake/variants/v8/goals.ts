import type { VariantDefinition } from '../types.ts';

const DOC = 'v8-integration-gateway.md';

export const v8GoalsVariants = [
  {
    id: 'v8.goals/array-payload',
    description: 'context goals are answered as a bare array (the prose\'s reading) instead of {goals: [...]}',
    spec: { document: DOC, section: 'Resources > Context goal', quote: 'The response is an object `{goals: [...]}`. The prose calls the payload an array.' },
  },
  {
    id: 'v8.goals/extra-properties',
    description: 'the goals wrapper and every goal carry unknown properties (nested objects, arrays, nulls, odd names)',
    spec: { document: DOC, section: 'Resources > Context goal', quote: 'The response is an object `{goals: [...]}`. The prose calls the payload an array.' },
  },
  {
    id: 'v8.goals/other-formats',
    description: 'goalIds are URNs with `:` and `/`, and timestamps carry a `+00:00` offset and microseconds instead of `Z`',
    spec: { document: DOC, section: 'Resources > Context goal', quote: 'createdAt | string | ISO 8601 UTC' },
  },
] as const satisfies readonly VariantDefinition[];
