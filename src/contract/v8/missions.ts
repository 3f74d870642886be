import { z } from 'zod';

export const MISSION_STATUSES = ['running', 'waiting', 'succeeded', 'failed', 'cancelled'] as const;
export const TERMINAL_STATUSES = ['succeeded', 'failed', 'cancelled'] as const;
export type MissionStatus = (typeof MISSION_STATUSES)[number];

export const stepSummary = z.looseObject({
  stepId: z.string(),
  // "The full list of step status values: not shown."
  status: z.string(),
});

export const missionProjection = z.looseObject({
  runId: z.uuidv7(),
  status: z.enum(MISSION_STATUSES),
  sequence: z.number().int(),
  steps: z.array(stepSummary),
});
export type MissionProjection = z.infer<typeof missionProjection>;

export const resourceBudget = z.strictObject({
  maximumSteps: z.number().int().min(1),
  maximumToolCalls: z.number().int().min(0),
  maximumElapsedMs: z.number().int().min(1),
  maximumParallelism: z.number().int().min(1).max(64),
});
export type ResourceBudget = z.infer<typeof resourceBudget>;

export const createMissionRequest = z.looseObject({
  // "opaque to the gateway and forwarded intact"
  goalSpec: z.looseObject({ task: z.string() }),
  resourceBudget,
});
export type CreateMissionRequest = z.infer<typeof createMissionRequest>;

/** "payload: any JSON value (object, array, string, number or boolean)" */
export const signalRequest = z.looseObject({
  signal: z.string().min(1).max(256),
  payload: z.union([z.record(z.string(), z.unknown()), z.array(z.unknown()), z.string(), z.number(), z.boolean()]),
});

export const MISSION_EVENT_TYPES = [
  'mission.started',
  'mission.step.started',
  'mission.step.completed',
  'mission.completed',
  'mission.failed',
  'mission.cancelled',
] as const;
export type MissionEventType = (typeof MISSION_EVENT_TYPES)[number];

export const TERMINAL_EVENT_STATUS: Record<string, MissionStatus> = {
  'mission.completed': 'succeeded',
  'mission.failed': 'failed',
  'mission.cancelled': 'cancelled',
};

export const stepStartedData = z.looseObject({ traceId: z.string().min(1) });
export const stepCompletedData = z.looseObject({ stepId: z.string().min(1), traceId: z.string().min(1) });
