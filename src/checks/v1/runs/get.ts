/** GET /v1/runs/{id}: a JSON run resource whose fields the spec does not show. */
import { section } from '../../../rule/index.ts';
import { openObject } from '../../../contract/v1/runs.ts';
import { findOtherTenantKey, primaryKey, problemCode, runPath, startRun } from '../support/fabric.ts';

const rule = section({ destructive: 'mutate', surface: 'v1', document: 'v1-execution-fabric.md', needs: { credentials: ['v1:key'], fixtures: ['v1.tasks.completes'] } });

export const getRun = rule({
  id: 'v1.runs.get',
  title: 'Reading a run back answers 200 with a JSON object (its fields are recorded)',
  level: 'required',
  spec: {
    section: 'Endpoints; Resources > Run, usage and webhook endpoint records',
    quote: '`200` JSON run resource … Fields of the run resource returned by `GET /v1/runs/{id}`: not shown.',
  },
  async check(ctx) {
    const runId = await startRun(ctx, 'completes');
    const res = await ctx.http.send({ method: 'GET', path: runPath(runId), credential: primaryKey(ctx), label: 'read the run back' });
    ctx.expect(res.status === 200, `reading run ${runId} back answered ${res.status}, expected 200`);
    ctx.expect(res.contentType.startsWith('application/json'), `the run resource came with content-type "${res.contentType}", expected application/json`);
    const run = ctx.expectShape(openObject, res.json, 'the run resource');
    ctx.observe('run resource fields', Object.keys(run).sort());
    ctx.observe('run resource echoes the run id', JSON.stringify(run).includes(runId));
    const unknown = await ctx.http.send({ method: 'GET', path: runPath(`apicert-never-${runId.slice(-6)}`), credential: primaryKey(ctx), label: 'read a run that does not exist' });
    ctx.observe('unknown run id', { status: unknown.status, code: problemCode(unknown) ?? null }, 'the spec shows no not-found code');
    const stranger = findOtherTenantKey(ctx);
    if (stranger) {
      const theirs = await ctx.http.send({ method: 'GET', path: runPath(runId), credential: stranger, label: 'read the run as another tenant' });
      ctx.observe("another tenant reads the run", { status: theirs.status, code: problemCode(theirs) ?? null, leaksRun: theirs.status === 200 }, 'the spec does not say how runs are scoped');
    }
  },
});
