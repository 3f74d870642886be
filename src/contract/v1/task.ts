/** Resources: the task request body (open) and the task response. */
import { z } from 'zod';
import { context, extraAllowed, stated } from '../marks.ts';
import { V1 } from '../sentence.ts';
import { toolsFilter } from './turn.ts';

/** "Task request body (extra properties allowed)"; sub-field shapes of task, context, policy and delivery are not shown. */
const TASK = 'Resources and their fields > Task request body (extra properties allowed)';
const OPAQUE = 'its sub-fields are not shown: the deployment decides which work it can take';
const object = (row: string) => context(stated(z.looseObject({}), ['type'], V1(TASK, row)), OPAQUE);
export const taskRequest = extraAllowed(
  stated(
    z.looseObject({
      mode: stated(z.literal('task'), ['type', 'const'], V1(TASK, '| mode | const `task` | yes | |')),
      task: object('| task | object | yes | the work to execute |'),
      context: object('| context | object | no | session, conversation, organization and memory scoping |').optional(),
      tools: toolsFilter.optional(),
      policy: object('| policy | object | no | covers risk ceiling, budget caps, model-lane pin, tool allowlist, approval mode |').optional(),
      delivery: object('| delivery | object | no | progress-delivery preference, for example stream or webhook |').optional(),
    }),
    ['required', 'type'],
    V1(TASK, '| mode | const `task` | yes | | … | task | object | yes | the work to execute |'),
  ),
  V1(TASK, 'Task request body (extra properties allowed)'),
);
export type TaskRequest = z.infer<typeof taskRequest>;

/** "A JSON object with required `run_id` (string). Other properties are allowed." */
export const taskResponse = z.looseObject({ run_id: z.string().min(1) });
