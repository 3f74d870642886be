import type { VariantDefinition } from '../types.ts';

const DOC = 'v8-integration-gateway.md';

export const v8ErrorsVariants = [
  {
    id: 'v8.errors/extra-properties',
    description: 'every problem+json body carries extension members (nested objects, arrays, nulls, odd names), as RFC 9457 allows',
    spec: {
      document: DOC,
      section: 'Errors',
      quote: 'Failures are `application/problem+json` (RFC 9457) with fields `type` (URI string), `title`, `status` (integer), `detail`, `code` (machine-readable string), `requestId` (UUID string).',
    },
  },
  {
    id: 'v8.errors/other-codes',
    description: 'problem codes are upper-case dotted strings (`GATEWAY.E404.NOT_FOUND`), types are URNs, titles are the deployment\'s own wording',
    spec: { document: DOC, section: 'Errors', quote: 'Values of the `code` field on this surface: not shown.' },
  },
  {
    id: 'v8.errors/relative-problem-type',
    description: 'problem types are relative URI references (`/problems/not_found`): RFC 9457 3.1 lets `type` be relative, an absolute URI being only recommended',
    spec: {
      document: DOC,
      section: 'Errors',
      quote: 'Failures are `application/problem+json` (RFC 9457) with fields `type` (URI string), `title`, `status` (integer), `detail`, `code` (machine-readable string), `requestId` (UUID string).',
    },
    excludes: ['v8.errors/other-codes'],
  },
  {
    id: 'v8.errors/unversioned-request-id',
    description: 'problem requestIds are 8-4-4-4-12 hex with version nibble 0 and a variant bit pattern RFC 9562 reserves (`…-0…-c…-…`)',
    spec: {
      document: DOC,
      section: 'Errors',
      quote: 'Failures are `application/problem+json` (RFC 9457) with fields `type` (URI string), `title`, `status` (integer), `detail`, `code` (machine-readable string), `requestId` (UUID string).',
    },
  },
] as const satisfies readonly VariantDefinition[];
