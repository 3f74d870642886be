import type { VariantDefinition } from '../types.ts';

export const v8ContractVariants = [
  {
    id: 'v8.contract/content-type-parameters',
    description: 'JSON, problem+json and event-stream content types carry a `charset=utf-8` parameter',
    spec: { document: 'v8-integration-gateway.md', section: 'Endpoints', quote: 'Mission events stream text/event-stream and everything else returns JSON.' },
  },
  {
    id: 'v8.contract/json-suffix-media-type',
    description: 'every 2xx JSON answer is labelled `application/vnd.gateway.v8+json`, a `+json` structured-syntax suffix type (RFC 6839 §3.1), as failures are `application/problem+json`',
    spec: { document: 'v8-integration-gateway.md', section: 'Endpoints', quote: 'Mission events stream text/event-stream and everything else returns JSON.' },
  },
  {
    id: 'v8.contract/open-request-objects',
    description: 'request objects take unknown properties: an unknown field inside resourceBudget is ignored and the mission is accepted (202)',
    spec: { document: 'v8-integration-gateway.md', section: 'Resources and their fields > Goal specification and budget (create request)', quote: '| resourceBudget | object | yes | all four fields required |' },
  },
  {
    id: 'v8.contract/refuses-nul-and-lone-surrogates',
    description: 'a request body whose strings or names hold a NUL character or a lone surrogate escape is refused with 400 (RFC 8259 §8.2, I-JSON)',
    spec: { document: 'v8-integration-gateway.md', section: 'Resources and their fields > Capability search request and manifest', quote: 'Request fields, all required strings: `actionFamily` (1-128 chars), `purpose` (1-256 chars), `targetType` (1-128 chars).' },
  },
  {
    id: 'v8.contract/unimplemented-methods-501',
    description: 'a method /v8 uses for no resource (PUT, DELETE, PATCH, OPTIONS, TRACE) is answered 501, as RFC 9110 15.6.2 names for a method the server supports nowhere, instead of 405 or 404',
    spec: { document: 'v8-integration-gateway.md', section: 'Endpoints', quote: 'All paths relative to `{base_url}`. Header `Authorization: Bearer <ACCESS_TOKEN>` is required on every `/v8` call. Error statuses are in Errors.' },
  },
] as const satisfies readonly VariantDefinition[];
