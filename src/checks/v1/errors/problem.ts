/** Errors: every /v1 error is the closed v1 flavour of application/problem+json. */
import { type CheckContext, mediaType, section, type ProbeResponse } from '../../../rule/index.ts';
import { issuesOf, onSurface, parsedAs, responseJson, wholeBody } from '../../../traffic/read.ts';
import { errorFormOwed } from '../../../contract/endpoints.ts';
import { v1Problem } from '../../../contract/v1/problem.ts';
import { approveDecision, EXECUTE, newKey, postExecute, primaryKey, runPath, startRun, taskBody, turnBody } from '../support/fabric.ts';

const rule = section({ destructive: 'mutate', surface: 'v1', document: 'v1-execution-fabric.md', needs: { credentials: ['v1:key'], fixtures: ['v1.tasks.completes'] } });

/** Errors every deployment can be made to produce with the profile's keys and the `completes` fixture. */
async function errorBattery(ctx: CheckContext): Promise<Array<{ what: string; res: ProbeResponse }>> {
  const out: Array<{ what: string; res: ProbeResponse }> = [];
  const add = (what: string, res: ProbeResponse) => out.push({ what, res });
  add('execute without an API key', await postExecute(ctx, taskBody(ctx, 'completes'), { credential: null, label: 'execute without an API key' }));
  add('execute with malformed JSON', await postExecute(ctx, undefined, { rawBody: '{"mode": "task", "task": ', label: 'execute with malformed JSON' }));
  add('turn body with an extra property', await postExecute(ctx, { ...turnBody(ctx), apicertExtra: true }, { label: 'turn body with an extra property' }));
  const key = newKey();
  const body = taskBody(ctx, 'completes');
  await postExecute(ctx, body, { key, label: 'setup: a task under a key' });
  add('same key, another request', await postExecute(ctx, { ...body, task: { ...(body.task as object), apicertVariant: 2 } }, { key, label: 'same key, another request' }));
  const runId = await startRun(ctx, 'completes');
  add('approve a run that is not parked', await ctx.http.send({ method: 'POST', path: runPath(runId, '/approve'), credential: primaryKey(ctx), json: { action_digest: 'apicert-not-parked', decision: approveDecision(ctx) }, label: 'approve a run that is not parked' }));
  add('approve with a body that is not an ApproveRequest', await ctx.http.send({ method: 'POST', path: runPath(runId, '/approve'), credential: primaryKey(ctx), json: { apicert: true }, label: 'approve with an invalid body' }));
  add('read a run that does not exist', await ctx.http.send({ method: 'GET', path: runPath(`apicert-never-${newKey()}`), credential: primaryKey(ctx), label: 'read a run that does not exist' }));
  const readOnly = ctx.profile.credentials.find((c) => c.surfaces.includes('v1') && !c.expired && c.scopes.includes('runs:read') && !c.scopes.includes('runs:write'));
  if (readOnly) add('execute with a read-only key', await postExecute(ctx, taskBody(ctx, 'completes'), { credential: readOnly, label: 'execute with a read-only key' }));
  const down = ctx.profile.credentials.find((c) => c.name === ctx.profile.fixtures.v1.limiterUnavailableCredential && !c.expired);
  if (down) add('usage on a key whose limiter is unavailable', await ctx.http.send({ method: 'GET', path: '/v1/usage', credential: down, label: 'usage on a key whose limiter is unavailable' }));
  return out;
}

export const problemShape = rule({
  id: 'v1.errors.problem-shape',
  title: 'Every /v1 error is application/problem+json with the closed v1 Problem shape and status equal to the HTTP status',
  level: 'required',
  spec: {
    section: 'Endpoints; Errors',
    quote: 'Error responses on every endpoint are `application/problem+json` (see Errors). … No extra properties are allowed in Problem or FieldError.',
  },
  judgement: {
    // The sentence's subject is the error answer itself: every request to a /v1 endpoint answered 4xx or 5xx.
    record: 'a request to a /v1 endpoint (a method and path of the table) answered 4xx or 5xx',
    judge(j) {
      for (const ex of j.exchanges) {
        // "on every endpoint": a path or method no row of the table names is no endpoint (errorFormOwed).
        if (!onSurface(ex, 'v1') || ex.status === undefined || ex.status < 400 || !errorFormOwed(ex.method, ex.path)) continue;
        const type = mediaType(ex.responseHeaders);
        if (!j.check(ex, type === 'application/problem+json', `the ${ex.status} answer came with content-type "${type}", expected application/problem+json`)) continue;
        // An answer to HEAD carries the headers, never the content (RFC 9110 9.3.2): its shape cannot be read.
        if (ex.method === 'HEAD') continue;
        if (wholeBody(j, ex) === undefined) continue;
        // The generated rules' judgement reads the same body against the same shape: one parse (`parsedAs`).
        const parsed = parsedAs(v1Problem, responseJson(ex));
        if (!j.check(ex, parsed.success, `the ${ex.status} problem body does not have the closed v1 Problem shape (${parsed.success ? '' : issuesOf(parsed.error)})`)) continue;
        j.check(ex, parsed.data!.status === ex.status, `the problem says status ${parsed.data!.status}, the HTTP status is ${ex.status}`);
      }
    },
  },
  async provoke(ctx) {
    const errors = (await errorBattery(ctx)).filter((e) => e.res.status >= 400);
    ctx.observe('codes by HTTP status', Object.fromEntries(errors.map((e) => [e.what, `${e.res.status} ${(e.res.json as { code?: string } | undefined)?.code ?? '?'}`])));
  },
});
