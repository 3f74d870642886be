/** Versioning: the optional X-AI-Platform-Version request header. */
import { section } from '../../../rule/index.ts';
import { taskResponse } from '../../../contract/v1/task.ts';
import { postExecute, postTurn, problemCode, taskBody, turnBody } from '../support/fabric.ts';

const rule = section({ destructive: 'mutate', surface: 'v1', document: 'v1-execution-fabric.md', needs: { credentials: ['v1:key'], fixtures: ['v1.tasks.completes'] } });

export const versionHeader = rule({
  id: 'v1.versioning.header',
  title: 'X-AI-Platform-Version: v1 is accepted on task and turn requests, and any other value is refused with a 4xx',
  level: 'required',
  spec: { section: 'Versioning; Endpoints', quote: 'Request header `X-AI-Platform-Version` may carry the constant `v1`. … `X-AI-Platform-Version` (optional, const `v1`)' },
  async check(ctx) {
    const headers = { 'x-ai-platform-version': 'v1' };
    const task = await postExecute(ctx, taskBody(ctx, 'completes'), { headers, label: 'execute (task) with X-AI-Platform-Version: v1' });
    ctx.check(task.status === 200, `a task request with X-AI-Platform-Version: v1 answered ${task.status}, expected 200`);
    ctx.checkShape(taskResponse, task.json, 'the task response');
    const turn = await postTurn(ctx, turnBody(ctx), { headers, label: 'execute (turn) with X-AI-Platform-Version: v1' });
    ctx.check(turn.res.status === 200, `a turn request with X-AI-Platform-Version: v1 answered ${turn.res.status}, expected 200`);
    // The header is const `v1`: a request carrying another value breaks the contract and is refused.
    for (const value of ['v2', '1', 'V1']) {
      const other = await postExecute(ctx, taskBody(ctx, 'completes'), { headers: { 'x-ai-platform-version': value }, label: `execute (task) with X-AI-Platform-Version: ${value}` });
      ctx.check(other.status >= 400 && other.status < 500, `a task request with X-AI-Platform-Version: ${value} answered ${other.status}, expected a 4xx refusal (the header is const v1)`);
      ctx.observe(`X-AI-Platform-Version: ${value}`, { status: other.status, code: problemCode(other) ?? null });
    }
  },
});
