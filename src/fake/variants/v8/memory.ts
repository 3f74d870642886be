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
  {
    id: 'v8.memory/unknown-compartment-403',
    description: 'a valid memory query naming a compartment the fake holds no entries in is refused with 403 (compartment_not_permitted), not answered with no entries',
    spec: { document: DOC, section: 'Errors', quote: '| `POST /v8/memory/query` | `400` missing fields, empty `classes` or bounds exceeded; `401`; `403` no `memory:read`, `principalId` in body, or purpose not permitted |' },
  },
  {
    id: 'v8.memory/score-as-distance',
    description: 'entry scores are distances (1 - relevance): entries still come in descending relevance, so scores increase along the list',
    spec: { document: DOC, section: 'Resources > Memory query request', quote: 'Entries are in descending relevance and are purpose-filtered and bounded by the limits above.' },
  },
  {
    id: 'v8.memory/purpose-echoed',
    description:
      'the bundle and every entry carry `purposeTag`, the query\'s purpose echoed, and a purpose the fake knows nothing of is permitted (answered 200 with the entries it serves, none), so a purpose of 256 characters comes back in a 200',
    spec: { document: DOC, section: 'Resources > Memory query request', quote: 'Entry shape beyond the fields listed: not shown.' },
  },
] as const satisfies readonly VariantDefinition[];
