/** Versioning: the optional X-AI-Platform-Version request header. */
import { section } from '../../../rule/index.ts';
import { taskResponse } from '../../../contract/v1/task.ts';
import { postExecute, postTurn, problemCode, taskBody, turnBody } from '../support/fabric.ts';

const rule = section({ destructive: 'mutate', surface: 'v1', document: 'v1-execution-fabric.md', needs: { credentials: ['v1:key'], fixtures: ['v1.tasks.completes'] } });

export const versionHeader = rule({
  id: 'v1.versioning.header',
  title: 'X-AI-Platform-Version: v1 is accepted on task and turn requests',
  level: 'required',
  spec: { section: 'Versioning; Endpoints', quote: 'Request header `X-AI-Platform-Version` may carry the constant `v1`.' },
  async check(ctx) {
    const headers = { 'x-ai-platform-version': 'v1' };
    const task = await postExecute(ctx, taskBody(ctx, 'completes'), { headers, label: 'execute (task) with X-AI-Platform-Version: v1' });
    ctx.expect(task.status === 200, `a task request with X-AI-Platform-Version: v1 answered ${task.status}, expected 200`);
    ctx.expectShape(taskResponse, task.json, 'the task response');
    const turn = await postTurn(ctx, turnBody(ctx), { headers, label: 'execute (turn) with X-AI-Platform-Version: v1' });
    ctx.expect(turn.res.status === 200, `a turn request with X-AI-Platform-Version: v1 answered ${turn.res.status}, expected 200`);
    // Other values are not specified; record what the target does with one.
    const other = await postExecute(ctx, taskBody(ctx, 'completes'), { headers: { 'x-ai-platform-version': 'v2' }, label: 'execute (task) with X-AI-Platform-Version: v2' });
    ctx.observe('X-AI-Platform-Version: v2', { status: other.status, code: problemCode(other) ?? null });
  },
});
