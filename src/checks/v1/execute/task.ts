/** POST /v1/execute in task mode: an open envelope answered with JSON carrying run_id. */
import { type Exchange, type Judge, mediaType, section } from '../../../rule/index.ts';
import { exchangesOf, isEventStream, issuesOf, operation, parsedAs, recordOf, requestJson, responseJson, wholeBody } from '../../../traffic/read.ts';
import { admissibleExecutes, limiterRefused } from '../support/traffic.ts';
import { taskRequest, taskResponse } from '../../../contract/v1/task.ts';
import { postExecute, problemCode, taskBody } from '../support/fabric.ts';

const rule = section({ destructive: 'mutate', surface: 'v1', document: 'v1-execution-fabric.md', needs: { credentials: ['v1:key'], fixtures: ['v1.tasks.completes'] } });

/** A POST /v1/execute whose body the recorder did not keep: which mode it was cannot be read from it. */
function bodyNotKept(ex: Exchange): boolean {
  return ex.requestBodyMissing !== undefined || (ex.requestBody === undefined && Number(ex.requestHeaders['content-length'] ?? 0) > 0);
}

/** The task answer: 200, application/json, a string run_id. */
function judgeTaskAnswer(j: Judge, ex: Exchange, what: string): void {
  if (!j.check(ex, ex.status === 200, `${what} answered ${ex.status}, expected 200`)) return;
  const type = mediaType(ex.responseHeaders);
  if (!j.check(ex, type === 'application/json' || type.endsWith('+json'), `${what} answered content-type "${type}", expected application/json`)) return;
  const text = wholeBody(j, ex);
  if (text === undefined) return;
  const parsed = parsedAs(taskResponse, responseJson(ex));
  j.check(ex, parsed.success, `${what}: the answer carries no string run_id (${parsed.success ? '' : issuesOf(parsed.error)})`);
}

export const taskRunId = rule({
  id: 'v1.execute.task.run-id',
  title: 'A task request is answered 200 application/json with a string run_id',
  level: 'required',
  spec: {
    section: 'What the service does; Resources > Task response; Endpoints',
    quote: '`mode:task`: the body is the task envelope below, and the response is JSON that carries at least a run identifier. … A JSON object with required `run_id` (string). Other properties are allowed.',
  },
  judgement: {
    record: 'a POST /v1/execute with a task envelope the contract admits, by a caller the deployment admits',
    judge(j) {
      admissibleExecutes(j, (ex, mode) => {
        if (mode === 'task') judgeTaskAnswer(j, ex, 'a valid task request');
      });
      // A request whose body was not kept is one mode or the other: a 200 that is no event stream
      // (a turn's answer) can only be the task answer, so it must be one.
      for (const ex of exchangesOf(j.exchanges, 'v1.execute')) {
        if (operation(ex) !== 'v1.execute' || ex.status !== 200 || !bodyNotKept(ex) || isEventStream(ex)) continue;
        judgeTaskAnswer(j, ex, 'an execute request (its body not recorded) answered 200 without an event stream, so in task mode,');
      }
    },
  },
  async provoke(ctx) {
    const res = await postExecute(ctx, taskBody(ctx, 'completes'), { label: 'execute (task)' });
    const body = taskResponse.safeParse(res.json);
    if (body.success) ctx.observe('task response properties', Object.keys(body.data).sort());
  },
});

/** The envelope's own members; others are extra ("extra properties allowed"). */
const ENVELOPE = new Set(Object.keys(taskRequest.shape));

export const taskExtraProperties = rule({
  id: 'v1.execute.task.extra-properties',
  title: 'A task body with extra properties at its top level is admitted',
  level: 'required',
  spec: { section: 'Resources > Task request body', quote: 'Task request body (extra properties allowed)' },
  judgement: {
    record: 'a POST /v1/execute with a task envelope carrying properties beyond the envelope\'s own, by a caller the deployment admits',
    judge(j) {
      admissibleExecutes(j, (ex, mode) => {
        const extra = Object.keys(recordOf(requestJson(ex)) ?? {}).filter((k) => !ENVELOPE.has(k));
        if (mode !== 'task' || extra.length === 0) return;
        if (!j.check(ex, ex.status === 200, `a task body with extra properties (${extra.join(', ')}) answered ${ex.status}, expected 200`)) return;
        if (wholeBody(j, ex) === undefined) return;
        const parsed = parsedAs(taskResponse, responseJson(ex));
        j.check(ex, parsed.success, `the task answer carries no string run_id (${parsed.success ? '' : issuesOf(parsed.error)})`);
      });
    },
  },
  async provoke(ctx) {
    const body = taskBody(ctx, 'completes');
    // Extras at the top level only: "Sub-field shapes of `task`, `context`, `policy` and `delivery`: not
    // shown.", so a deployment may refuse a `task` naming members it does not take.
    const extended = { ...body, apicertExtension: { note: 'extra property sent by apicert' }, apicertNote: 'extra' };
    await postExecute(ctx, extended, { label: 'execute (task) with extra properties' });
    // Inside `task` the choice is the deployment's: what it answers is recorded, not judged.
    const inside = await postExecute(ctx, { ...body, task: { ...(body.task as object), apicertNote: 'extra' } }, { label: 'execute (task) with an extra member inside task (open: recorded, not judged)' });
    ctx.observe('a task naming a member beyond the fixture\'s, inside task', { status: inside.status, code: problemCode(inside) ?? null }, 'sub-field shapes of task are not shown: the deployment decides which work it can take');
  },
});

export const taskObject = rule({
  id: 'v1.execute.task.task-object',
  title: 'A task envelope whose task is not an object (a string, an array, null) is refused with a 4xx problem, not admitted',
  level: 'required',
  destructive: 'mutate',
  spec: { section: 'Resources > Task request body', quote: '| task | object | yes | the work to execute |' },
  judgement: {
    record: 'a POST /v1/execute in task mode whose task is not an object',
    judge(j) {
      for (const ex of exchangesOf(j.exchanges, 'v1.execute')) {
        if (operation(ex) !== 'v1.execute' || ex.status === undefined || limiterRefused(ex)) continue;
        const body = recordOf(requestJson(ex));
        if (body?.mode !== 'task' || !('task' in body) || recordOf(body.task) !== undefined) continue;
        const what = body.task === null ? 'null' : Array.isArray(body.task) ? 'an array' : `a ${typeof body.task}`;
        // "Mapping of each `code` to an HTTP status: not shown.": 400 and 422 are both readings of a refusal.
        if (!j.check(ex, ex.status >= 400 && ex.status < 500, `a task envelope whose task is ${what} answered ${ex.status}, expected a 4xx refusal (400, 422, ...)`)) continue;
        const type = mediaType(ex.responseHeaders);
        j.check(ex, type === 'application/problem+json', `the refusal of a task that is ${what} came as "${type}", expected application/problem+json`);
      }
    },
  },
  async provoke(ctx) {
    const body = taskBody(ctx, 'completes');
    const statuses = new Set<number>();
    for (const [what, task] of [['a string', 'do the work'], ['an array', [body.task]], ['null', null], ['a number', 42]] as const) {
      statuses.add((await postExecute(ctx, { ...body, task }, { label: `execute (task) whose task is ${what}` })).status);
    }
    ctx.observe('HTTP status of the refusals', [...statuses], 'the spec maps no code to a status');
  },
});
