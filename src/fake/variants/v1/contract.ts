import type { VariantDefinition } from '../types.ts';

export const v1ContractVariants = [
  {
    id: 'v1.contract/unimplemented-methods-501',
    description: 'a method /v1 uses for no resource (PUT, DELETE, PATCH, OPTIONS, TRACE) is answered 501, as RFC 9110 15.6.2 names for a method the server supports nowhere, instead of 405 or 404',
    spec: { document: 'v1-execution-fabric.md', section: 'Endpoints', quote: 'All paths are relative to `{base_url}`. Error responses on every endpoint are `application/problem+json` (see Errors).' },
  },
  {
    id: 'v1.contract/task-event-stream-406',
    description: 'a task (`mode: task`, answered JSON) sent with `Accept: text/event-stream` only is refused 406 Not Acceptable, as RFC 9110 §12.5.1 allows, instead of the Accept being disregarded',
    spec: { document: 'v1-execution-fabric.md', section: 'Endpoints', quote: '`Accept` (optional: `text/event-stream` or `application/json`)' },
  },
  {
    id: 'v1.contract/not-acceptable-406',
    description: 'a GET whose Accept admits no JSON (Accept: image/png, application/json;q=0, a malformed value) is refused 406 Not Acceptable (RFC 9110 §12.5.1) instead of the Accept being disregarded',
    spec: { document: 'v1-execution-fabric.md', section: 'Endpoints', quote: 'All paths are relative to `{base_url}`. Error responses on every endpoint are `application/problem+json` (see Errors).' },
  },
  {
    id: 'v1.contract/lenient-json',
    description: 'a body that is not JSON but a lenient parser reads (a trailing comma, data after the first value) is read as that value and served, as RFC 8259 §9 allows ("A JSON parser MAY accept non-JSON forms or extensions")',
    spec: { document: 'v1-execution-fabric.md', section: 'Endpoints', quote: 'All paths are relative to `{base_url}`. Error responses on every endpoint are `application/problem+json` (see Errors).' },
  },
  {
    id: 'v1.contract/query-token',
    description: 'a key in the access_token query parameter is read as the bearer token (RFC 6750 §2.3: "Resource servers MAY support this method")',
    spec: { document: 'v1-execution-fabric.md', section: 'Authentication', quote: 'Example header shape: `Authorization: Bearer <API_KEY>`.' },
  },
  {
    id: 'v1.contract/length-required',
    description: 'a POST whose body is sent chunked, without Content-Length, is refused 411 Length Required, as RFC 9112 §6.3 allows',
    spec: { document: 'v1-execution-fabric.md', section: 'Endpoints', quote: 'All paths are relative to `{base_url}`. Error responses on every endpoint are `application/problem+json` (see Errors).' },
  },
  {
    id: 'v1.contract/body-limit-413',
    description: 'a request body over 512 KiB is refused 413 with a problem (RFC 8259 §9: an implementation may limit the size of texts it accepts)',
    spec: { document: 'v1-execution-fabric.md', section: 'Endpoints', quote: 'All paths are relative to `{base_url}`. Error responses on every endpoint are `application/problem+json` (see Errors).' },
  },
  {
    id: 'v1.contract/http-layer-400-text',
    description: 'a message with more than one Host line is refused by the HTTP layer as Go net/http does: 400 `text/plain; charset=utf-8` "400 Bad Request: too many Host headers", `Connection: close` (no endpoint, no problem+json)',
    spec: { document: 'v1-execution-fabric.md', section: 'Endpoints', quote: 'All paths are relative to `{base_url}`. Error responses on every endpoint are `application/problem+json` (see Errors).' },
  },
  {
    id: 'v1.contract/json-only-request-type',
    description: 'a request body under any media type but `application/json` (`application/problem+json`, `text/plain`) is refused 415 with a problem, as Fastify\'s content-type parsers refuse it',
    spec: { document: 'v1-execution-fabric.md', section: 'Endpoints', quote: '| POST | `/v1/execute` | JSON body: turn body or task body.' },
  },
  {
    id: 'v1.contract/http-layer-400-json',
    description: 'a message the HTTP layer refuses (one Node\'s parser cannot read, or with more than one Host line) is answered as Fastify\'s default client-error handler answers it: 400 `application/json` `{"error":"Bad Request","message":"Client Error","statusCode":400}`, the connection closed (no endpoint, no problem+json)',
    spec: { document: 'v1-execution-fabric.md', section: 'Endpoints', quote: 'All paths are relative to `{base_url}`. Error responses on every endpoint are `application/problem+json` (see Errors).' },
    excludes: ['v1.contract/http-layer-400-text'],
  },
  {
    id: 'v1.contract/framework-404',
    description: 'a request no row of the table names (an unknown /v1 path, or a method the path\'s rows do not list) is answered as Fastify\'s default not-found handler answers it: 404 `application/json; charset=utf-8` `{"message":"Route GET:/v1/ not found","error":"Not Found","statusCode":404}`, no problem document',
    spec: { document: 'v1-execution-fabric.md', section: 'Endpoints', quote: 'All paths are relative to `{base_url}`. Error responses on every endpoint are `application/problem+json` (see Errors).' },
  },
  {
    id: 'v1.contract/gzip-answers',
    description: 'every answer body on /v1 (JSON, problem+json, event streams flushed per event) is sent under Content-Encoding gzip when the request has no Accept-Encoding, which RFC 9110 §12.5.3 allows ("Although this allows the server to use any content coding in a response")',
    spec: { document: 'v1-execution-fabric.md', section: 'Endpoints', quote: 'All paths are relative to `{base_url}`. Error responses on every endpoint are `application/problem+json` (see Errors).' },
  },
] as const satisfies readonly VariantDefinition[];
