import type { VariantDefinition } from '../types.ts';

const DOC = 'v8-integration-gateway.md';

export const v8TracesVariants = [
  {
    id: 'v8.traces/extra-properties',
    description: 'traces and every operation in them carry unknown properties (nested objects, arrays, nulls, odd names)',
    spec: { document: DOC, section: 'Resources > Trace', quote: 'Operation fields, all optional' },
  },
  {
    id: 'v8.traces/other-formats',
    description: 'traceIds of 200 characters that use every allowed punctuation (`.`, `_`, `:`, `-`), starting with a digit; trace times with a `+00:00` offset, operation times in another zone (`+02:00`)',
    spec: { document: DOC, section: 'Endpoints', quote: 'path `traceId`: string, 1-256 chars, same pattern' },
    excludes: ['v8.traces/basic-format-times'],
  },
  {
    id: 'v8.traces/malformed-id-404',
    description: 'a traceId outside the pattern or longer than 256 characters answers 404 instead of 400',
    spec: { document: DOC, section: 'Errors', quote: '`GET /v8/traces/{traceId}` | `401`; `403`; `404`' },
  },
  {
    id: 'v8.traces/sparse-fields',
    description: 'traces carry no elapsedMs, and operations only some of their optional fields (no operationId, startedAt or elapsedMs)',
    spec: { document: DOC, section: 'Resources > Trace', quote: 'Optional: `completedAt` (absent when the step did not complete), `elapsedMs` (integer).' },
  },
  {
    id: 'v8.traces/basic-format-times',
    description: 'trace times in ISO 8601 basic format with a comma before the fraction (`20260101T000000,123Z`), operation times basic with a `+0200` offset',
    spec: { document: DOC, section: 'Resources > Trace', quote: 'Always present: `traceId` (string), `missionRunId` (UUID string), `stepId` (string), `startedAt` (ISO 8601 UTC), `steps` (array of operations).' },
    excludes: ['v8.traces/other-formats'],
  },
  {
    id: 'v8.traces/indexed-later',
    description: 'a trace is indexed asynchronously: its lookup answers 404 until about 2 s after its step began, then the trace',
    spec: { document: DOC, section: 'Events', quote: 'Each `traceId` in step events can be read at `GET /v8/traces/{traceId}`.' },
  },
] as const satisfies readonly VariantDefinition[];
