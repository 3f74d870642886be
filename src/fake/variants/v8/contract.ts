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
  {
    id: 'v8.contract/big-integers-accepted',
    description: 'a resourceBudget integer past 2^53-1 (1e308, 2^53) is read as a 64-bit integer (clamped) and the mission accepted (202), where the description states only a lower bound (I-JSON RFC 7493 §2.2 leaves such numbers to the receiver)',
    spec: { document: 'v8-integration-gateway.md', section: 'Resources and their fields > Goal specification and budget (create request)', quote: '| resourceBudget.maximumSteps | integer | yes | at least 1 |' },
  },
  {
    id: 'v8.contract/lenient-json',
    description: 'a body that is not JSON but a lenient parser reads (a trailing comma, data after the first value) is read as that value and served, except on POST /v8/missions whose error table names malformed JSON (RFC 8259 §9: "A JSON parser MAY accept non-JSON forms or extensions")',
    spec: { document: 'v8-integration-gateway.md', section: 'Errors', quote: '| `POST /v8/missions` | `400` missing fields, budget out of range, malformed JSON; `401` token missing or expired; `403` no `missions:write`; `409` same `Idempotency-Key` with a different body; `429` rate limit for the principal |' },
  },
  {
    id: 'v8.contract/length-required',
    description: 'a POST whose body is sent chunked, without Content-Length, is refused 411 Length Required, as RFC 9112 §6.3 allows',
    spec: { document: 'v8-integration-gateway.md', section: 'Endpoints', quote: 'All paths relative to `{base_url}`. Header `Authorization: Bearer <ACCESS_TOKEN>` is required on every `/v8` call. Error statuses are in Errors.' },
  },
  {
    id: 'v8.contract/body-limit-413',
    description: 'a request body over 512 KiB is refused 413 with a problem (RFC 8259 §9: an implementation may limit the size of texts it accepts)',
    spec: { document: 'v8-integration-gateway.md', section: 'Endpoints', quote: 'All paths relative to `{base_url}`. Header `Authorization: Bearer <ACCESS_TOKEN>` is required on every `/v8` call. Error statuses are in Errors.' },
  },
  {
    id: 'v8.contract/empty-signal-422',
    description: 'an empty signal name is refused 422, where the error table names 400 only for a signal over 256 chars',
    spec: { document: 'v8-integration-gateway.md', section: 'Errors', quote: '| `POST /v8/missions/{runId}/signals` | `400` missing fields or `signal` over 256 chars; `401`; `403`; `404`; `409` terminal mission or different body with same key |' },
  },
  {
    id: 'v8.contract/duplicate-names-400',
    description: 'a request body whose JSON names a member twice in one object is refused 400 (RFC 8259 §4: names "SHOULD be unique", and the behaviour of software receiving such an object "is unpredictable"; I-JSON forbids it)',
    spec: { document: 'v8-integration-gateway.md', section: 'Errors', quote: 'Failures are `application/problem+json` (RFC 9457)' },
  },
  {
    id: 'v8.contract/json-only-request-type',
    description: 'a request body under any media type but `application/json` (`application/problem+json`, `text/plain`) is refused 415 with a problem, as a deployment whose JSON parser reads only that type (Express\'s `express.json()`) refuses it',
    spec: { document: 'v8-integration-gateway.md', section: 'Endpoints', quote: '| POST | `/v8/missions` | `missions:write` | headers `Idempotency-Key`, `Content-Type: application/json`; body goalSpec and resourceBudget | `202` mission projection |' },
  },
  {
    id: 'v8.contract/other-charset-415',
    description: 'a JSON request body labelled with a charset other than UTF-8 (`application/json; charset=latin-1`) is refused 415, as Express\'s body parser refuses it (RFC 8259 §11 defines no charset parameter: "Adding one really has no effect on compliant recipients"; §8.1: JSON between systems "MUST be encoded using UTF-8")',
    spec: { document: 'v8-integration-gateway.md', section: 'Errors', quote: 'Failures are `application/problem+json` (RFC 9457)' },
  },
  {
    id: 'v8.contract/bom-ignored',
    description: 'a request body led by a byte order mark is read without it (RFC 8259 §8.1: parsers "MAY ignore the presence of a byte order mark rather than treating it as an error"), so a valid mission led by one is accepted',
    spec: { document: 'v8-integration-gateway.md', section: 'Errors', quote: '| `POST /v8/missions` | `400` missing fields, budget out of range, malformed JSON; `401` token missing or expired; `403` no `missions:write`; `409` same `Idempotency-Key` with a different body; `429` rate limit for the principal |' },
  },
  {
    id: 'v8.contract/refuses-control-characters',
    description: 'a request body whose strings or names hold a C0 or C1 control character (tab, line feed and carriage return aside) or a zero-width or bidi formatting character is refused with 400',
    spec: { document: 'v8-integration-gateway.md', section: 'Resources and their fields > Capability search request and manifest', quote: 'Request fields, all required strings: `actionFamily` (1-128 chars), `purpose` (1-256 chars), `targetType` (1-128 chars).' },
  },
  {
    id: 'v8.contract/http-layer-400-text',
    description: 'a message with more than one Host line is refused by the HTTP layer as Go net/http does: 400 `text/plain; charset=utf-8` "400 Bad Request: too many Host headers", `Connection: close` (no route, no problem+json)',
    spec: { document: 'v8-integration-gateway.md', section: 'Errors', quote: 'Failures are `application/problem+json` (RFC 9457)' },
  },
  {
    id: 'v8.contract/origin-ignored',
    description: 'requests are served whatever their `Origin` header: "HTTP origins are rejected" taken as the transport reading (the gateway listens on HTTPS only), not as a check of a browser Origin header',
    spec: { document: 'v8-integration-gateway.md', section: 'What the service does', quote: 'Every request must use HTTPS. HTTP origins are rejected.' },
  },
  {
    id: 'v8.contract/unknown-query-400',
    description:
      'a /v8 request with any query parameter (none is defined) is refused 400 problem+json `unknown_query_parameter` before its token is read, as a strict OpenAPI request validator (unknown query parameters disallowed) in front of the routes does; a token in the `access_token` query parameter gets that 400, not 401',
    spec: { document: 'v8-integration-gateway.md', section: 'Endpoints', quote: 'All paths relative to `{base_url}`. Header `Authorization: Bearer <ACCESS_TOKEN>` is required on every `/v8` call. Error statuses are in Errors.' },
  },
  {
    id: 'v8.contract/header-limit-431',
    description: 'a request whose head (request line and header fields) is past 8 KiB, as Tomcat\'s and Jetty\'s default limit, is refused 431 with a problem before its token is read (RFC 9110 §5.4: a server may refuse a set of fields "larger than it wishes to process"); the fake otherwise reads heads up to 64 KiB',
    spec: { document: 'v8-integration-gateway.md', section: 'Endpoints', quote: 'All paths relative to `{base_url}`. Header `Authorization: Bearer <ACCESS_TOKEN>` is required on every `/v8` call. Error statuses are in Errors.' },
  },
  {
    id: 'v8.contract/conditional-304',
    description: 'a GET carrying If-None-Match is answered as Express answers it: its 200 JSON carries a weak ETag, and `*` or that tag gets 304 Not Modified without content (RFC 9110 §13.1.2, §13.2.2 step 3), where a GET of the goals, certificates or coverage is documented as 200',
    spec: { document: 'v8-integration-gateway.md', section: 'Endpoints', quote: 'Mission events stream text/event-stream and everything else returns JSON.' },
  },
  {
    id: 'v8.contract/coerces-types',
    description:
      'a request body value of another JSON type is coerced as Fastify\'s default ajv (`coerceTypes: \'array\'`) does before validation: "3", true and null read as 3, 1 and 0 for an integer; 42, true and null as "42", "true" and "" for a string; a scalar as a one-item array and a one-item array as its item; so `maximumSteps: "3"` creates a mission (202) and `classes: "note"` is served (200), where the error tables name no wrong-type cause among the 400s',
    spec: { document: 'v8-integration-gateway.md', section: 'Errors', quote: '| `POST /v8/missions` | `400` missing fields, budget out of range, malformed JSON; `401` token missing or expired; `403` no `missions:write`; `409` same `Idempotency-Key` with a different body; `429` rate limit for the principal |' },
  },
] as const satisfies readonly VariantDefinition[];
