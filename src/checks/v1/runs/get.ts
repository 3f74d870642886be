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
    ctx.check(res.status === 200, `reading run ${runId} back answered ${res.status}, expected 200`);
    ctx.check(res.contentType.startsWith('application/json'), `the run resource came with content-type "${res.contentType}", expected application/json`);
    const run = ctx.checkShape(openObject, res.json, 'the run resource');
    if (run) ctx.observe('run resource fields', Object.keys(run).sort());
    if (run) ctx.observe('run resource echoes the run id', JSON.stringify(run).includes(runId));
    const unknown = await ctx.http.send({ method: 'GET', path: runPath(`apicert-never-${runId.slice(-6)}`), credential: primaryKey(ctx), label: 'read a run that does not exist' });
    ctx.observe('unknown run id', { status: unknown.status, code: problemCode(unknown) ?? null }, 'the spec shows no not-found code');
    const stranger = findOtherTenantKey(ctx);
    if (stranger) {
      const theirs = await ctx.http.send({ method: 'GET', path: runPath(runId), credential: stranger, label: 'read the run as another tenant' });
      ctx.observe("another tenant reads the run", { status: theirs.status, code: problemCode(theirs) ?? null, leaksRun: theirs.status === 200 }, 'the spec does not say how runs are scoped');
    }
  },
});

/** RFC 3339 date-times anywhere in a JSON value, with the path they were found at. */
export function dateTimes(value: unknown, path = '$'): Array<[string, string]> {
  if (typeof value === 'string') return /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?$/.test(value) ? [[path, value]] : [];
  if (Array.isArray(value)) return value.flatMap((v, i) => dateTimes(v, `${path}[${i}]`));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => dateTimes(v, `${path}.${k}`));
  return [];
}

export const timestampOffset = rule({
  id: 'v1.runs.timestamp-offset',
  title: 'Every timestamp the service returns (run resource, usage) carries a numeric UTC offset, not only Z',
  level: 'required',
  destructive: 'mutate',
  spec: {
    section: 'Resources > Shared primitives',
    quote: '| Timestamp | string, RFC 3339 date-time | an explicit timezone offset is required (a numeric offset, not only `Z`) |',
  },
  async check(ctx) {
    const runId = await startRun(ctx, 'completes');
    const run = await ctx.http.send({ method: 'GET', path: runPath(runId), credential: primaryKey(ctx), label: 'read the run back' });
    const usage = await ctx.http.send({ method: 'GET', path: '/v1/usage', credential: primaryKey(ctx), label: 'usage' });
    const found = [...dateTimes(run.json, 'run'), ...dateTimes(usage.json, 'usage')];
    if (found.length === 0) ctx.notApplicable('neither the run resource nor the usage readback returned a timestamp (their fields are not shown)');
    for (const [path, value] of found) {
      ctx.check(/[+-]\d{2}:\d{2}$/.test(value), `${path} is "${value}": a Timestamp needs a numeric offset such as +00:00, not only Z (or none)`, path.startsWith('run') ? run : usage);
    }
  },
});
