/** Versioning: the optional X-AI-Platform-Version request header. */
import { section } from '../../../rule/index.ts';
import { admissibleExecutes } from '../support/traffic.ts';
import { postExecute, postTurn, problemCode, taskBody, turnBody } from '../support/fabric.ts';

const rule = section({ destructive: 'mutate', surface: 'v1', document: 'v1-execution-fabric.md', needs: { credentials: ['v1:key'], fixtures: ['v1.tasks.completes'] } });

export const versionHeader = rule({
  id: 'v1.versioning.header',
  title: 'X-AI-Platform-Version: v1 is accepted on task and turn requests, and any other value is refused with a 4xx',
  level: 'required',
  spec: { section: 'Versioning; Endpoints', quote: 'Request header `X-AI-Platform-Version` may carry the constant `v1`. … `X-AI-Platform-Version` (optional, const `v1`)' },
  judgement: {
    record: 'a POST /v1/execute carrying X-AI-Platform-Version, with a body the contract admits, by a caller the deployment admits',
    judge(j) {
      admissibleExecutes(
        j,
        (ex, mode) => {
          const version = ex.requestHeaders['x-ai-platform-version'];
          if (version === undefined) return;
          // The header is const `v1`: that value must not stand in the way, any other breaks the contract and is refused.
          if (version === 'v1') j.check(ex, ex.status === 200, `a ${mode} request with X-AI-Platform-Version: v1 answered ${ex.status}, expected 200`);
          else j.check(ex, ex.status! >= 400 && ex.status! < 500, `a ${mode} request with X-AI-Platform-Version: ${version} answered ${ex.status}, expected a 4xx refusal (the header is const v1)`);
        },
        { anyVersion: true },
      );
    },
  },
  async provoke(ctx) {
    const headers = { 'x-ai-platform-version': 'v1' };
    await postExecute(ctx, taskBody(ctx, 'completes'), { headers, label: 'execute (task) with X-AI-Platform-Version: v1' });
    await postTurn(ctx, turnBody(ctx), { headers, label: 'execute (turn) with X-AI-Platform-Version: v1' });
    for (const value of ['v2', '1', 'V1']) {
      const other = await postExecute(ctx, taskBody(ctx, 'completes'), { headers: { 'x-ai-platform-version': value }, label: `execute (task) with X-AI-Platform-Version: ${value}` });
      ctx.observe(`X-AI-Platform-Version: ${value}`, { status: other.status, code: problemCode(other) ?? null });
    }
  },
});
