import { z } from 'zod';
import { isoDateTimeString, isoUtc, timestamp } from './common.ts';

export const OPERATION_KINDS = ['observation', 'tool-call', 'sub-step', 'branch'] as const;

/** "Operation fields, all optional"; `toolCallId` is "present for `tool-call`". */
export const traceOperation = z
  .looseObject({
    operationId: z.string().optional(),
    kind: z.enum(OPERATION_KINDS).optional(),
    toolCallId: z.string().optional(),
    input: z.record(z.string(), z.unknown()).optional(),
    output: z.record(z.string(), z.unknown()).optional(),
    startedAt: isoDateTimeString.optional(),
    elapsedMs: z.number().int().optional(),
  })
  .refine((op) => op.kind !== 'tool-call' || op.toolCallId !== undefined, { message: 'a tool-call operation has no toolCallId', path: ['toolCallId'] });

export const trace = z.looseObject({
  traceId: z.string(),
  // "(UUID string)": 8-4-4-4-12 hex; unlike `runId` ("UUID v7") no version or variant is stated.
  missionRunId: z.guid(),
  stepId: z.string(),
  startedAt: isoUtc,
  steps: z.array(traceOperation),
  // The seed gives completedAt no type; a timestamp like startedAt's is the only reading that makes sense.
  completedAt: timestamp.optional(),
  elapsedMs: z.number().int().optional(),
});
export type Trace = z.infer<typeof trace>;
