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

/** The traceId of a mission's k-th step: compact, or under the variant 200 characters using every allowed punctuation. */
export function traceIdFor(fake: FakeContext, runId: string, k: number): string {
  if (!fake.variants.has('v8.traces/other-formats')) return `trc.${runId.slice(-12)}.${k}`;
  return `9Trace_${runId.slice(-12)}:step.${k}-of:mission_`.padEnd(200, 'z');
}
