import type { FaultDefinition } from '../types.ts';

/** Faults of the v1.contract rules (the generated contract probes): each breaks exactly the rule named before its slash. */
export const v1ContractFaults = [
  { id: 'v1.contract.generated.no-5xx/approve-array-500', description: 'an approve whose body is a JSON array answers 500' },
  { id: 'v1.contract.generated.problem-json/task-tools-plain-json', description: 'a task whose tools is not an object is refused as application/json, not a problem' },
  { id: 'v1.contract.generated.error-status/task-tools-unchecked', description: 'a task whose tools.deny names a tool of 129 characters is admitted (tools dropped)' },
  { id: 'v1.contract.generated.accepts-valid/task-context-refused', description: 'a task with an empty context object is refused with invalid_request' },
  { id: 'v1.contract.generated.response-schema/numeric-run-id', description: 'a task sent with Accept: application/json is answered with a numeric run_id' },
] as const satisfies readonly FaultDefinition[];
