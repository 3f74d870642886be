import { z } from 'zod';
import { choice, extraAllowed, stated } from '../marks.ts';
import { V8 } from '../sentence.ts';
import { MISSION_STATUSES } from './mission-events.ts';

export { isTerminalEventType, MISSION_EVENT_TYPES, MISSION_STATUSES, TERMINAL_EVENT_STATUS, TERMINAL_STATUSES, type MissionEventType, type MissionStatus } from './mission-events.ts';

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

const GOAL = 'Resources and their fields > Goal specification and budget (create request)';
const budgetField = (row: string, schema: z.ZodNumber) => stated(schema, ['type', 'integer', 'range'], V8(GOAL, row));

export const resourceBudget = choice(
  stated(
    z.strictObject({
      maximumSteps: budgetField('| resourceBudget.maximumSteps | integer | yes | at least 1 |', z.number().int().min(1)),
      maximumToolCalls: budgetField('| resourceBudget.maximumToolCalls | integer | yes | at least 0; `0` means planning only |', z.number().int().min(0)),
      maximumElapsedMs: budgetField('| resourceBudget.maximumElapsedMs | integer (ms) | yes | at least 1; measured from when execution begins |', z.number().int().min(1)),
      maximumParallelism: budgetField('| resourceBudget.maximumParallelism | integer | yes | 1-64 |', z.number().int().min(1).max(64)),
    }),
    ['type', 'required'],
    V8(GOAL, '| resourceBudget | object | yes | all four fields required |'),
  ),
  // The fake refuses an unknown budget field; the /v8 description never closes its objects.
  ['closed'],
  'the /v8 description never says its objects take no extra properties',
);
export type ResourceBudget = z.infer<typeof resourceBudget>;

export const createMissionRequest = stated(
  z.looseObject({
    // "opaque to the gateway and forwarded intact"
    goalSpec: extraAllowed(
      stated(z.looseObject({ task: stated(z.string(), ['type'], V8(GOAL, '| goalSpec.task | string | yes | natural-language task |')) }), ['type', 'required'], V8(GOAL, '| goalSpec | object | yes | opaque to the gateway and forwarded intact | … | goalSpec.task | string | yes | natural-language task |')),
      V8(GOAL, '| goalSpec | object | yes | opaque to the gateway and forwarded intact |'),
    ),
    resourceBudget,
  }),
  ['required', 'type'],
  V8(GOAL, '| goalSpec | object | yes | opaque to the gateway and forwarded intact | … | resourceBudget | object | yes | all four fields required |'),
);
export type CreateMissionRequest = z.infer<typeof createMissionRequest>;

const SIGNAL = 'Resources and their fields > Signal request';
/** "payload: any JSON value (object, array, string, number or boolean)" */
export const signalRequest = stated(
  z.looseObject({
    signal: stated(z.string().min(1).max(256), ['type', 'length'], V8(SIGNAL, '| signal | string | yes | 1-256 chars |')),
    // "any JSON value" lists five types and leaves null out: whether null is one is the deployment's reading.
    payload: choice(z.union([z.record(z.string(), z.unknown()), z.array(z.unknown()), z.string(), z.number(), z.boolean()]), ['type'], '"any JSON value" is ambiguous on null'),
  }),
  ['required', 'type'],
  V8(SIGNAL, '| signal | string | yes | 1-256 chars | … | payload | any JSON value (object, array, string, number or boolean) | yes |'),
);

export const stepStartedData = z.looseObject({ traceId: z.string().min(1) });
export const stepCompletedData = z.looseObject({ stepId: z.string().min(1), traceId: z.string().min(1) });
