import type { FaultDefinition } from '../types.ts';

/** Faults of the v8.traces rules: each breaks exactly the rule named before its slash. */
export const v8TracesFaults = [
  { id: 'v8.traces.get.ok/run-id-not-uuid', description: 'missionRunId is not a UUID' },
  { id: 'v8.traces.get.ok/unknown-operation-kind', description: 'an operation has kind "thought"' },
  { id: 'v8.traces.get.resolves/failed-step-missing', description: 'the trace of a step that failed answers 404' },
  { id: 'v8.traces.get.completed-at/on-failed-step', description: 'the trace of a failed step carries completedAt' },
  { id: 'v8.traces.get.unknown-404/server-error', description: 'an unknown traceId gives 500' },
  { id: 'v8.traces.get.path-bounds/long-id-server-error', description: 'a 257-character traceId gives 500' },
] as const satisfies readonly FaultDefinition[];
