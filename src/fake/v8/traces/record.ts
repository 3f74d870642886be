import type { FakeContext } from '../../context.ts';

/** A step's trace as the mission engine records it; `principal` is the owner and never served. */
export interface TraceRecord {
  traceId: string;
  missionRunId: string;
  principal: string;
  stepId: string;
  startedAt: string;
  completedAt?: string;
  elapsedMs?: number;
  steps: Array<Record<string, unknown>>;
}

/** A failed step's trace stays without completedAt; the fault stamps one. */
export function traceOfFailedStep(fake: FakeContext, trace: TraceRecord): void {
  if (fake.faults.has('v8.traces.get.completed-at/on-failed-step')) trace.completedAt = trace.startedAt;
}
