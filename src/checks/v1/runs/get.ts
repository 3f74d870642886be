/** GET /v1/runs/{id}: a JSON run resource whose fields the spec does not show. */
import { type Exchange, mediaType, section } from '../../../rule/index.ts';
import { taskResponse } from '../../../contract/v1/task.ts';
import { bodyMissing, idAfter, operation, parsedAs, requestJson, responseJson, wholeBody } from '../../../traffic/read.ts';
import { admittedCaller, callerOf, limiterRefused } from '../support/traffic.ts';

const RUNS_PREFIX = '/v1/runs/';
import { openObject } from '../../../contract/v1/runs.ts';
import { findOtherTenantKey, primaryKey, problemCode, runPath, startRun } from '../support/fabric.ts';

const rule = section({ destructive: 'mutate', surface: 'v1', document: 'v1-execution-fabric.md', needs: { credentials: ['v1:key'], fixtures: ['v1.tasks.completes'] } });

/** Walks the exchanges with, for each, whether its caller was issued the run it names before (a task answer's run_id). */
export function withIssuedRun(exchanges: readonly Exchange[], each: (ex: Exchange, issued: Exchange | undefined) => void): void {
  const issued = new Map<string, Exchange>();
  for (const ex of exchanges) {
    const runId = idAfter(ex, RUNS_PREFIX);
    if (runId !== undefined) each(ex, issued.get(`${callerOf(ex)}\n${runId}`));
    if (operation(ex) !== 'v1.execute') continue;
    const parsed = parsedAs(taskResponse, responseJson(ex));
    if (parsed.success) issued.set(`${callerOf(ex)}\n${parsed.data.run_id}`, ex);
  }
}

export const getRun = rule({
  id: 'v1.runs.get',
  title: 'Reading a run back answers 200 with a JSON object (its fields are recorded)',
  level: 'required',
  spec: {
    section: 'Endpoints; Resources > Run, usage and webhook endpoint records',
    quote: '`200` JSON run resource … Fields of the run resource returned by `GET /v1/runs/{id}`: not shown.',
  },
  judgement: {
    record: 'a GET /v1/runs/{id} of a run an earlier task answer issued to the same caller',
    judge(j) {
      const admitted = admittedCaller(j);
      withIssuedRun(j.exchanges, (ex, issued) => {
        if (!issued || operation(ex) !== 'v1.runs.get' || ex.status === undefined || limiterRefused(ex) || !admitted(ex)) return;
        if (!j.check(ex, ex.status === 200, `reading run ${idAfter(ex, RUNS_PREFIX)} (issued by exchange #${issued.index}) back answered ${ex.status}, expected 200`, [issued])) return;
        const type = mediaType(ex.responseHeaders);
        if (!j.check(ex, type === 'application/json' || type.endsWith('+json'), `the run resource came with content-type "${type}", expected application/json`)) return;
        if (wholeBody(j, ex) === undefined) return;
        j.check(ex, parsedAs(openObject, responseJson(ex)).success, 'the run resource is not a JSON object');
      });
    },
  },
  async provoke(ctx) {
    const runId = await startRun(ctx, 'completes');
    const res = await ctx.http.send({ method: 'GET', path: runPath(runId), credential: primaryKey(ctx), label: 'read the run back' });
    const run = openObject.safeParse(res.json);
    if (run.success) ctx.observe('run resource fields', Object.keys(run.data).sort());
    if (run.success) ctx.observe('run resource echoes the run id', JSON.stringify(run.data).includes(runId));
    const unknown = await ctx.http.send({ method: 'GET', path: runPath(`apicert-never-${runId.slice(-6)}`), credential: primaryKey(ctx), label: 'read a run that does not exist' });
    ctx.observe('unknown run id', { status: unknown.status, code: problemCode(unknown) ?? null }, 'the spec shows no not-found code');
    const stranger = findOtherTenantKey(ctx);
    if (stranger) {
      const theirs = await ctx.http.send({ method: 'GET', path: runPath(runId), credential: stranger, label: 'read the run as another tenant' });
      ctx.observe("another tenant reads the run", { status: theirs.status, code: problemCode(theirs) ?? null, leaksRun: theirs.status === 200 }, 'the spec does not say how runs are scoped');
    }
  },
});

const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:?\d{2})?$/;

/** RFC 3339 date-times anywhere in a JSON value, with the path they were found at. */
export function dateTimes(value: unknown, path = '$'): Array<[string, string]> {
  const found: Array<[string, string]> = [];
  collectDateTimes(value, () => path, found);
  return found;
}

// Paths are built only for the strings that are date-times: answers are walked whole, and most strings are not.
function collectDateTimes(value: unknown, path: () => string, found: Array<[string, string]>): void {
  if (typeof value === 'string') {
    if (value.length >= 16 && value.charCodeAt(4) === 45 && DATE_TIME.test(value)) found.push([path(), value]);
  } else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) collectDateTimes(value[i], () => `${path()}[${i}]`, found);
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) collectDateTimes(v, () => `${path()}.${k}`, found);
  }
}

/** Every string in a JSON value. */
function stringsIn(value: unknown, into: Set<string>): Set<string> {
  if (typeof value === 'string') into.add(value);
  else if (Array.isArray(value)) for (const v of value) stringsIn(v, into);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) stringsIn(v, into);
  return into;
}

/**
 * For each GET /v1/runs/{id} of a run whose creating POST /v1/execute the recording holds, the strings
 * of that request: a run resource ("Fields of the run resource returned by `GET /v1/runs/{id}`: not
 * shown.") may echo what the client sent, date-times in the client's own text included.
 */
function echoedTexts(exchanges: readonly Exchange[]): Map<Exchange, Set<string>> {
  const echoes = new Map<Exchange, Set<string>>();
  withIssuedRun(exchanges, (ex, issued) => {
    if (issued && operation(ex) === 'v1.runs.get') echoes.set(ex, stringsIn(requestJson(issued), new Set()));
  });
  return echoes;
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
  judgement: {
    record: 'a GET /v1/runs/{id} or GET /v1/usage answered with timestamps',
    judge(j) {
      const echoes = echoedTexts(j.exchanges);
      for (const ex of j.exchanges) {
        const op = operation(ex);
        if ((op !== 'v1.runs.get' && op !== 'v1.usage.get') || ex.status === undefined) continue;
        const found = dateTimes(responseJson(ex), op === 'v1.runs.get' ? 'run' : 'usage');
        if (found.length === 0 && ex.status === 200 && bodyMissing(ex) !== undefined) j.lacks(ex, `the answer's body: ${bodyMissing(ex)}`);
        const echoed = echoes.get(ex);
        for (const [path, value] of found) {
          // Text the client sent, echoed back, is the client's, not a Timestamp the service returns.
          if (echoed?.has(value)) continue;
          j.check(ex, /[+-]\d{2}:\d{2}$/.test(value), `${path} is "${value}": a Timestamp needs a numeric offset such as +00:00, not only Z (or none)`);
        }
      }
    },
  },
  async provoke(ctx) {
    const runId = await startRun(ctx, 'completes');
    const run = await ctx.http.send({ method: 'GET', path: runPath(runId), credential: primaryKey(ctx), label: 'read the run back' });
    const usage = await ctx.http.send({ method: 'GET', path: '/v1/usage', credential: primaryKey(ctx), label: 'usage' });
    if (dateTimes(run.json).length + dateTimes(usage.json).length === 0) ctx.notApplicable('neither the run resource nor the usage readback returned a timestamp (their fields are not shown)');
  },
});
