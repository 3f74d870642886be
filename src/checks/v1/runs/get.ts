/** GET /v1/runs/{id}: a JSON run resource whose fields the spec does not show. */
import { type Exchange, mediaType, section } from '../../../rule/index.ts';
import { taskResponse } from '../../../contract/v1/task.ts';
import { bodyMissing, idAfter, journalFact, operation, parsedAs, requestJson, responseJson, wholeBody } from '../../../traffic/read.ts';
import { admittedCaller, callerOf, limiterRefused } from '../support/traffic.ts';

const RUNS_PREFIX = '/v1/runs/';
import { openObject } from '../../../contract/v1/runs.ts';
import { findOtherTenantKey, primaryKey, problemCode, runPath, startRun } from '../support/fabric.ts';

const rule = section({ destructive: 'mutate', surface: 'v1', document: 'v1-execution-fabric.md', needs: { credentials: ['v1:key'], fixtures: ['v1.tasks.completes'] } });

/** Walks the exchanges that name a run in their path with, for each, whether its caller was issued that run before (a task answer's run_id). */
export function withIssuedRun(exchanges: readonly Exchange[], each: (ex: Exchange, issued: Exchange | undefined) => void): void {
  for (const [ex, issued] of journalFact(exchanges, runsNamed)) each(ex, issued);
}

/** `withIssuedRun`'s walk, done once per journal for the rules that take it (journalFact): read from the paths and the task answers before each. */
function runsNamed(exchanges: readonly Exchange[]): ReadonlyArray<readonly [Exchange, Exchange | undefined]> {
  const issued = new Map<string, Exchange>();
  const named: Array<readonly [Exchange, Exchange | undefined]> = [];
  for (const ex of exchanges) {
    const runId = idAfter(ex, RUNS_PREFIX);
    if (runId !== undefined) named.push([ex, issued.get(`${callerOf(ex)}\n${runId}`)]);
    if (operation(ex) !== 'v1.execute') continue;
    const parsed = parsedAs(taskResponse, responseJson(ex));
    if (parsed.success) issued.set(`${callerOf(ex)}\n${parsed.data.run_id}`, ex);
  }
  return named;
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

/** The values at a declared dot path (`[]` after a name: every item of that array), with the path each was found at. */
export function valuesAt(value: unknown, path: string, at: string): Array<[string, unknown]> {
  let found: Array<[string, unknown]> = [[at, value]];
  for (const segment of path.split('.')) {
    const each = segment.endsWith('[]');
    const name = each ? segment.slice(0, -2) : segment;
    const next: Array<[string, unknown]> = [];
    for (const [where, v] of found) {
      if (!v || typeof v !== 'object' || Array.isArray(v) || !Object.hasOwn(v, name)) continue;
      const member = (v as Record<string, unknown>)[name];
      if (!each) next.push([`${where}.${name}`, member]);
      else if (Array.isArray(member)) member.forEach((item, i) => next.push([`${where}.${name}[${i}]`, item]));
    }
    found = next;
  }
  return found;
}

/** The run's own output: user or agent content, never a Timestamp of the service's, whatever a profile names. */
const CONTENT = /^(output|result)(\[\])?(\.|$)/;

/** How a date-time ends: a numeric offset, `Z`, or nothing. */
function offsetForm(value: string): string {
  return /[+-]\d{2}:?\d{2}$/.test(value) ? 'numeric offset' : /[Zz]$/.test(value) ? 'Z' : 'no offset';
}

export const timestampOffset = rule({
  id: 'v1.runs.timestamp-offset',
  title: 'Every member a profile declares a Timestamp (run resource, usage) carries a numeric UTC offset, not only Z',
  level: 'required',
  destructive: 'mutate',
  spec: {
    section: 'Resources > Shared primitives',
    quote: '| Timestamp | string, RFC 3339 date-time | an explicit timezone offset is required (a numeric offset, not only `Z`) |',
  },
  judgement: {
    // No /v1 response field is declared a Timestamp: "Fields of the run resource returned by `GET /v1/runs/{id}`: not shown." (usage likewise).
    record: 'a GET /v1/runs/{id} or GET /v1/usage answered with a member fixtures.v1.timestampFields declares a Timestamp',
    none: 'no member of the run resource or the usage answer is declared a Timestamp (their fields are "not shown"; a date-time with Z is valid RFC 3339): the forms seen are recorded; name the members your deployment types Timestamp in fixtures.v1.timestampFields to judge them',
    judge(j) {
      const declared = j.profile?.fixtures.v1.timestampFields;
      const echoes = echoedTexts(j.exchanges);
      const forms = new Map<string, number>();
      for (const ex of j.exchanges) {
        const op = operation(ex);
        if ((op !== 'v1.runs.get' && op !== 'v1.usage.get') || ex.status === undefined) continue;
        const root = op === 'v1.runs.get' ? 'run' : 'usage';
        const body = responseJson(ex);
        for (const [, value] of dateTimes(body, root)) forms.set(offsetForm(value), (forms.get(offsetForm(value)) ?? 0) + 1);
        const paths = (declared?.[root] ?? []).filter((p) => !CONTENT.test(p));
        if (paths.length === 0 || ex.status !== 200) continue;
        if (body === undefined && bodyMissing(ex) !== undefined) {
          j.lacks(ex, `the answer's body: ${bodyMissing(ex)}`);
          continue;
        }
        const echoed = echoes.get(ex);
        for (const p of paths) {
          for (const [where, value] of valuesAt(body, p, root)) {
            // Text the client sent, echoed back, is the client's, not a Timestamp the service returns.
            if (typeof value === 'string' && echoed?.has(value)) continue;
            const ok = typeof value === 'string' && DATE_TIME.test(value) && /[+-]\d{2}:\d{2}$/.test(value);
            j.check(ex, ok, `${where} is ${JSON.stringify(value)}: the profile declares it a Timestamp, which needs an RFC 3339 date-time with a numeric offset such as +00:00, not only Z (or none)`);
          }
        }
      }
      if (forms.size > 0) j.observe('date-time strings in the run resource and usage, by how they end', Object.fromEntries(forms), declared ? 'only the members fixtures.v1.timestampFields names are judged' : 'not judged: no member is declared a Timestamp');
    },
  },
  async provoke(ctx) {
    const runId = await startRun(ctx, 'completes');
    await ctx.http.send({ method: 'GET', path: runPath(runId), credential: primaryKey(ctx), label: 'read the run back' });
    await ctx.http.send({ method: 'GET', path: '/v1/usage', credential: primaryKey(ctx), label: 'usage' });
  },
});
