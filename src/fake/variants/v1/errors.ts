import type { VariantDefinition } from '../types.ts';

const DOC = 'v1-execution-fabric.md';

export const v1ErrorsVariants = [
  {
    id: 'v1.errors/relative-problem-type',
    description: 'problem types are relative URI references (`/problems/invalid_request`): RFC 9457 3.1 lets `type` be relative, an absolute URI being only recommended',
    spec: { document: DOC, section: 'Errors', quote: 'Errors are RFC 9457 `application/problem+json`.' },
  },
  {
    id: 'v1.errors/invalid-request-422',
    description: 'every validation refusal (invalid_request, 400 by default) is answered 422',
    spec: { document: DOC, section: 'Errors', quote: 'Mapping of each `code` to an HTTP status: not shown.' },
  },
  {
    id: 'v1.errors/authentication-403',
    description: 'authentication_failed is answered 403 instead of 401',
    spec: { document: DOC, section: 'Errors', quote: 'Mapping of each `code` to an HTTP status: not shown.' },
  },
  {
    id: 'v1.errors/authorization-401',
    description: 'authorization_failed (a key without the scope) is answered 401 instead of 403 (RFC 6750 gives 403 for insufficient_scope only as a SHOULD)',
    spec: { document: DOC, section: 'Errors', quote: 'Mapping of each `code` to an HTTP status: not shown.' },
  },
  {
    id: 'v1.errors/no-retry-after',
    description: 'a 429 carries retryAfterMs in the problem but no Retry-After header (the seed only expects one)',
    spec: { document: DOC, section: 'Errors', quote: 'A numeric `Retry-After` header is expected alongside it.' },
    departsFrom: ['v1.errors.rate-limited-retry-after'],
  },
  {
    id: 'v1.errors/unavailable-rate-limited-code',
    description: 'the fail-closed 503 of a key whose rate limiter is unavailable carries code rate_limited (no ErrorCode names that case; the status tells it from 429)',
    spec: { document: DOC, section: 'Errors > Rules 2', quote: 'When the rate-limit protection is itself unavailable on an API-key-authenticated surface: HTTP `503` (fail-closed). Clients must handle this differently from `429`.' },
  },
  {
    id: 'v1.errors/overloaded-500-under-burst',
    description: 'once a key is well past its limit (after five refusals in one window), its requests are answered 500 internal_failed, retryable:true, as an overloaded backend would: no answer says rate_limited',
    spec: { document: DOC, section: 'Errors', quote: 'Mapping of each `code` to an HTTP status: not shown.' },
  },
  {
    id: 'v1.errors/minimal-problem',
    description: 'problems carry only the required members: no detail, instance, requestId, retryAfterMs or fieldErrors',
    spec: { document: DOC, section: 'Errors', quote: '| detail | string | no | max 2048 chars |' },
    excludes: ['v1.errors/full-problem'],
  },
  {
    id: 'v1.errors/full-problem',
    description: 'problems carry every optional member: a free-form (non-URI) instance, a requestId, retryAfterMs on every retryable answer, fieldErrors (empty where no field is named)',
    spec: { document: DOC, section: 'Errors', quote: '| instance | string | no | free-form, not necessarily a URI |' },
  },
  {
    id: 'v1.errors/refuses-nul-and-lone-surrogates',
    description: 'a request body whose strings or names hold a NUL character or a lone surrogate escape is refused with 400 invalid_request (RFC 8259 §8.2, I-JSON)',
    spec: { document: 'v1-execution-fabric.md', section: 'Resources and their fields > Message parts and messages (no extra properties)', quote: '| TextPart | text | string | yes | 1-200000 chars |' },
  },
] as const satisfies readonly VariantDefinition[];
