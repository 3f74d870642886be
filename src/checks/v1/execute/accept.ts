/** The optional Accept header of POST /v1/execute, whose effect the spec does not show. */
import { section } from '../../../rule/index.ts';
import { postExecute, postTurn, problemCode, taskBody, turnBody } from '../support/fabric.ts';

const rule = section({ destructive: 'mutate', surface: 'v1', document: 'v1-execution-fabric.md', needs: { credentials: ['v1:key'], fixtures: ['v1.tasks.completes'] } });

export const acceptHeader = rule({
  id: 'v1.execute.accept-header',
  title: 'What each mode answers to the other mode\'s Accept value',
  level: 'observation',
  activeOnly: "an observation of what each mode answers to the other mode's Accept, which apicert chooses to send",
  spec: { section: 'Endpoints', quote: '`Accept` (optional: `text/event-stream` or `application/json`)' },
  async check(ctx) {
    // Read as a stream up to its terminal event, should the server stream anyway.
    const { res: turn } = await postTurn(ctx, turnBody(ctx), { headers: { accept: 'application/json' }, label: 'execute (turn) with Accept: application/json' });
    const task = await postExecute(ctx, taskBody(ctx, 'completes'), { headers: { accept: 'text/event-stream' }, label: 'execute (task) with Accept: text/event-stream' });
    ctx.expect(turn.status > 0 && task.status > 0, 'both requests were answered');
    ctx.observe('turn with Accept: application/json', { status: turn.status, contentType: turn.contentType, code: problemCode(turn) ?? null });
    ctx.observe('task with Accept: text/event-stream', { status: task.status, contentType: task.contentType, code: problemCode(task) ?? null });
  },
});
