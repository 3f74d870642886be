import type { FaultDefinition } from '../types.ts';

/** Faults of the v1.catalogue rules: each breaks /v1 where only a probe catalogue operator looks. */
export const v1CatalogueFaults = [
  { id: 'v1.catalogue.error-status/forged-key-accepted', description: 'a key of the service_sk_ shape the fake never issued (service_sk_ and As) is served as an issued key (credentials)' },
  { id: 'v1.catalogue.no-5xx/duplicate-member-500', description: 'an execute body whose first member is repeated answers 500 (JSON text)' },
  { id: 'v1.catalogue.no-5xx/escape-character-500', description: 'a body with an ESC control character in a string answers 500 (fields)' },
  { id: 'v1.catalogue.no-5xx/forwarded-for-500', description: 'any request with X-Forwarded-For answers 500 (headers)' },
  { id: 'v1.catalogue.no-5xx/utf16-body-500', description: 'a body labelled charset=utf-16 answers 500 (body encoding)' },
  { id: 'v1.catalogue.no-5xx/dot-segment-500', description: 'a path with a ./ or %2e%2e segment answers 500 (path)' },
  { id: 'v1.catalogue.problem-json/deep-nesting-plain-text', description: 'a body nested more than 1,000 deep is refused 400 as text/plain (JSON text, the answer)' },
  { id: 'v1.catalogue.problem-json/image-accept-plain-text', description: 'Accept: image/png is refused 406 as text/plain (content negotiation, the answer)' },
] as const satisfies readonly FaultDefinition[];
