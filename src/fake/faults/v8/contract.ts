import type { FaultDefinition } from '../types.ts';

/** Faults of the v8.contract rules: each breaks exactly the rule named before its slash. */
export const v8ContractFaults = [
  { id: 'v8.contract.allow-on-405/no-allow', description: 'a /v8 405 carries no Allow header' },
  { id: 'v8.contract.version-header/missing-on-errors', description: 'error responses carry no x-service-contract-version' },
  { id: 'v8.contract.version-header/missing-on-read-surfaces', description: 'goals, certificates and coverage answer without x-service-contract-version' },
  { id: 'v8.contract.http-origin/accepted', description: 'an http:// Origin is refused on every request but the capability search, which serves it' },
  { id: 'v8.contract.generated.no-5xx/array-body-500', description: 'a capability search whose body is a JSON array answers 500' },
  { id: 'v8.contract.generated.no-5xx/long-key-signal-500', description: 'a signal with a 128-character Idempotency-Key answers 500' },
  { id: 'v8.contract.generated.problem-json/type-error-plain-json', description: 'a memory query whose queryText is not a string is refused as application/json, not a problem' },
  { id: 'v8.contract.generated.error-status/null-query-text', description: 'a memory query with queryText null is served (read as no text), where both readings of null (missing, or "" as ajv coerces it) are refused' },
  { id: 'v8.contract.generated.error-status/null-steps', description: 'a mission with maximumSteps null is created (read as no step limit), where both readings of null (missing, or 0 as ajv coerces it) are refused' },
  { id: 'v8.contract.generated.accepts-valid/non-ascii-signal-refused', description: 'a signal name with non-ASCII characters is refused with 400' },
  { id: 'v8.contract.generated.response-schema/non-ascii-purpose-health', description: 'manifests found for a non-ASCII purpose carry healthState "ok"' },
  { id: 'v8.contract.generated.no-5xx/long-last-event-id-500', description: 'a mission event stream asked with a Last-Event-ID over 1024 characters answers 500' },
  { id: 'v8.contract.generated.problem-json/query-plain-text', description: 'a GET of the context goals with a query parameter named apicert is refused as text/plain' },
  { id: 'v8.contract.generated.no-5xx/cancel-array-body-500', description: 'a cancel whose body is a JSON array answers 500' },
  { id: 'v8.contract.generated.accepts-valid/leading-whitespace-refused', description: 'a capability search whose body starts with whitespace is refused with 400' },
  { id: 'v8.contract.generated.problem-json/bom-plain-text', description: 'a body that starts with a byte order mark is refused as text/plain' },
] as const satisfies readonly FaultDefinition[];
