import type { VariantDefinition } from '../types.ts';

const DOC = 'v8-integration-gateway.md';

export const v8MemoryVariants = [
  {
    id: 'v8.memory/extra-properties',
    description: 'the memory bundle and every entry carry unknown properties (nested objects, arrays, nulls, odd names)',
    spec: { document: DOC, section: 'Resources > Memory query request', quote: 'Entry shape beyond the fields listed: not shown.' },
  },
  {
    id: 'v8.memory/other-formats',
    description: 'entryIds are UUIDs and paths with `/` and `#`, createdAt is epoch milliseconds, and scores lie on a 0-100 scale',
    spec: {
      document: DOC,
      section: 'Resources > Memory query request',
      quote: 'An entry carries `entryId` (string), `class` (string), `content` (string), `score` (number) and `createdAt` (timestamp).',
    },
  },
] as const satisfies readonly VariantDefinition[];
