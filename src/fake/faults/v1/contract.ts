import type { FaultDefinition } from '../types.ts';

/** Faults of the v1.contract rules (the generated contract probes): each breaks exactly the rule named before its slash. */
export const v1ContractFaults = [
  { id: 'v1.contract.allow-on-405/no-allow', description: 'a /v1 405 carries no Allow header' },
  { id: 'v1.contract.generated.no-5xx/approve-array-500', description: 'an approve whose body is a JSON array answers 500' },
  { id: 'v1.contract.generated.problem-json/task-tools-plain-json', description: 'a task whose tools is not an object is refused as application/json, not a problem' },
  { id: 'v1.contract.generated.error-status/task-tools-unchecked', description: 'a task whose tools.deny names a tool of 129 characters is admitted (tools dropped)' },
  { id: 'v1.contract.generated.accepts-valid/task-empty-tools-refused', description: 'a task whose tools.allow is an empty list is refused with invalid_request' },
  { id: 'v1.contract.generated.response-schema/numeric-run-id', description: 'a task sent with Accept: application/json is answered with a numeric run_id' },
  { id: 'v1.contract.generated.no-5xx/repeated-query-500', description: 'a usage readback with a repeated query parameter answers 500' },
  { id: 'v1.contract.generated.problem-json/last-event-id-plain-text', description: 'a run event stream asked with a Last-Event-ID that is not a sequence (apicert-…) is refused as text/plain' },
  { id: 'v1.contract.generated.no-5xx/cancel-large-body-500', description: 'a cancel with a body over 64 KiB answers 500' },
  { id: 'v1.contract.generated.accepts-valid/approve-whitespace-refused', description: 'an approve whose body starts with whitespace is refused with 400 invalid_request, even on a parked run' },
  { id: 'v1.contract.generated.error-status/approve-extra-accepted', description: 'an approve carrying the extra property apicertExtra is served as if it had none' },
  { id: 'v1.contract.generated.no-5xx/method-override-500', description: 'a POST with an X-HTTP-Method-Override header answers 500' },
] as const satisfies readonly FaultDefinition[];
