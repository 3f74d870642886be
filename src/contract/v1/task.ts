/** Resources: the task request body (open) and the task response. */
import { z } from 'zod';
import { toolsFilter } from './turn.ts';

/** "Task request body (extra properties allowed)"; sub-field shapes of task, context, policy and delivery are not shown. */
export const taskRequest = z.looseObject({
  mode: z.literal('task'),
  task: z.looseObject({}),
  context: z.looseObject({}).optional(),
  tools: toolsFilter.optional(),
  policy: z.looseObject({}).optional(),
  delivery: z.looseObject({}).optional(),
});
export type TaskRequest = z.infer<typeof taskRequest>;

/** "A JSON object with required `run_id` (string). Other properties are allowed." */
export const taskResponse = z.looseObject({ run_id: z.string().min(1) });
