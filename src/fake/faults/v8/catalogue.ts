import type { FaultDefinition } from '../types.ts';

/** Faults of the v8.catalogue rules: each breaks /v8 where only a probe catalogue operator looks. */
export const v8CatalogueFaults = [
  { id: 'v8.catalogue.no-5xx/chunked-body-500', description: 'a memory query sent with Transfer-Encoding: chunked answers 500 (framing)' },
  { id: 'v8.catalogue.no-5xx/letter-escape-500', description: 'a capability search whose JSON text writes a letter as a \\u escape answers 500 (JSON text)' },
  { id: 'v8.catalogue.no-5xx/zero-width-field-500', description: 'a memory query with a zero-width space in a string field answers 500 (fields)' },
  { id: 'v8.catalogue.no-5xx/head-500', description: 'HEAD on any /v8 path answers 500 (method)' },
  { id: 'v8.catalogue.no-5xx/trailing-slash-500', description: 'a GET whose path ends in a slash answers 500 (path)' },
  { id: 'v8.catalogue.problem-json/gzip-plain-text', description: 'a mission body with a Content-Encoding is refused 415 as text/plain (body encoding, the answer)' },
  { id: 'v8.catalogue.problem-json/unknown-header-plain', description: 'a request with an undocumented X-Apicert-Probe header is refused 400 as text/plain (headers, the answer)' },
  { id: 'v8.catalogue.problem-json/accept-any-html', description: 'Accept: */* is refused 406 as text/html (content negotiation, the answer)' },
  { id: 'v8.catalogue.error-status/padded-value-400', description: 'a request whose head writes spaces or tabs around a header value (RFC 9110 §5.5 excludes them) is refused 400 invalid_header, as a parser that does not trim them would (headers)' },
  { id: 'v8.catalogue.error-status/query-token-accepted', description: 'a token in the access_token query parameter is taken as the Authorization header (credentials)' },
] as const satisfies readonly FaultDefinition[];
