/** GET /v1/usage: a JSON readback scoped to the caller's tenant; its fields are not shown. */
import { type CheckContext, type Exchange, mediaType, type Prerequisite, section } from '../../../rule/index.ts';
import { exchangesOf, hasWholeBody, openRequestForm, operation, parsedAs, responseJson, wholeBody } from '../../../traffic/read.ts';
import { admittedCaller, callerOf, limiterRefused } from '../support/traffic.ts';
import { EXPECTATION_SENTENCES } from '../../generated/expectation.ts';
import { scopeRefusal } from '../../../traffic/scope-refusal.ts';
import { sentenceText } from '../../../contract/sentence.ts';
import { usageResponse } from '../../../contract/v1/usage.ts';
import type { Credential } from '../../../profile/schema.ts';
import { taskResponse } from '../../../contract/v1/task.ts';
import { newKey, otherTenantKey, postExecute, primaryKey, startRun, taskBody } from '../support/fabric.ts';

const rule = section({ surface: 'v1', document: 'v1-execution-fabric.md', needs: { credentials: ['v1:key'] } });

const USAGE = '/v1/usage';

/** Every number in a JSON value by its path: the counters of a readback whose fields are not shown. */
function numbers(value: unknown, path = '$', out = new Map<string, number>()): Map<string, number> {
  if (typeof value === 'number') out.set(path, value);
  else if (Array.isArray(value)) value.forEach((v, i) => numbers(v, `${path}[${i}]`, out));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) numbers(v, `${path}.${k}`, out);
  return out;
}

/** How much each counter moved between two readbacks (paths present in both). */
function deltas(before: unknown, after: unknown): Map<string, number> {
  const b = numbers(before);
  const out = new Map<string, number>();
  for (const [path, n] of numbers(after)) if (b.has(path)) out.set(path, n - b.get(path)!);
  return out;
}

/** Runs one tenant starts while the other stays idle: enough that another tenant's own background activity cannot look like them. */
const KNOWN_RUNS = 6;

/** The shortest quiet interval in which tenant B's counters are watched for moving on their own; the one after lasts as long as the known runs took, up to MAX_QUIET_MS. */
const QUIET_MS = 300;
const MAX_QUIET_MS = 5_000;

function readUsage(ctx: CheckContext, credential: Credential, label: string) {
  return ctx.http.send({ method: 'GET', path: USAGE, credential, label });
}

/**
 * "Scopes required by the other `/v1` endpoints: not shown.": a deployment may read usage only for
 * a key holding a scope beyond runs:read and runs:write, which no profile can say a key holds (it
 * cannot say which scope usage needs). A key refused so leaves the usage rules nothing to judge.
 */
export function usageScope(refused: ReadonlyArray<{ key: string; status: number; code: unknown }>, role = 'v1 key holding the scope this deployment asks for GET /v1/usage'): Prerequisite {
  const seen = [...new Map(refused.map((r) => [r.key, `${r.key} (${r.status} ${String(r.code)})`])).values()];
  return {
    need: 'credential',
    role,
    remedy: `usage refused ${seen.join(', ')}: it may need a scope the description does not show (${sentenceText(EXPECTATION_SENTENCES.v1Scopes)}); give the key that scope and list it under the key's scopes in the profile`,
  };
}

/**
 * Whether a usage read was refused for a scope, as far as its answer shows: a key the same deployment
 * answered 2xx for usage before holds usage's scope, so a later refusal of it is judged.
 */
function scopeRefusedRead(ex: Exchange, readBefore: ReadonlySet<string>): boolean {
  return ex.status !== undefined && !readBefore.has(callerOf(ex)) && scopeRefusal({ status: ex.status, json: responseJson(ex) });
}

export const usageReadback = rule({
  id: 'v1.usage.readback',
  title: 'Usage answers 200 with a JSON object (its fields are recorded)',
  level: 'required',
  spec: {
    section: 'Endpoints; Resources > Run, usage and webhook endpoint records',
    quote: '`200` JSON, tenant-scoped usage and spend readback … Fields of the usage response: not shown.',
  },
  judgement: {
    record: 'a GET /v1/usage by a caller the deployment admits',
    judge(j) {
      const admitted = admittedCaller(j);
      const readBefore = new Set<string>();
      const refused: Array<{ key: string; status: number; code: unknown }> = [];
      let judged = false;
      for (const ex of exchangesOf(j.exchanges, 'v1.usage.get')) {
        if (operation(ex) !== 'v1.usage.get' || ex.status === undefined || limiterRefused(ex) || !admitted(ex) || openRequestForm(ex) !== undefined) continue;
        // A refusal's code tells a missing scope (legal) from any other: without its body, the exchange is not judged.
        if (ex.status >= 400 && ex.status < 500 && !readBefore.has(callerOf(ex)) && !hasWholeBody(ex)) {
          wholeBody(j, ex);
          continue;
        }
        if (scopeRefusedRead(ex, readBefore)) {
          refused.push({ key: ex.credential ?? 'a key', status: ex.status, code: (responseJson(ex) as { code?: unknown }).code });
          continue;
        }
        judged = true;
        if (ex.status >= 200 && ex.status < 300) readBefore.add(callerOf(ex));
        if (!j.check(ex, ex.status === 200, `usage answered ${ex.status}, expected 200`)) continue;
        const type = mediaType(ex.responseHeaders);
        if (!j.check(ex, type === 'application/json' || type.endsWith('+json'), `usage came with content-type "${type}", expected application/json`)) continue;
        if (wholeBody(j, ex) === undefined) continue;
        j.check(ex, parsedAs(usageResponse, responseJson(ex)).success, 'the usage readback is not a JSON object');
      }
      if (refused.length === 0) return;
      if (!judged) j.untestable(usageScope(refused));
      j.observe('usage reads refused for a scope the description does not show (not judged)', refused.length);
    },
  },
  async provoke(ctx) {
    const res = await readUsage(ctx, primaryKey(ctx), 'read usage');
    const usage = usageResponse.safeParse(res.json);
    ctx.observe('usage fields', usage.success ? Object.keys(usage.data).sort() : []);
  },
});

export const usageTenantScoped = rule({
  id: 'v1.usage.tenant-scoped',
  title: "One tenant's activity shows in no other tenant's usage: neither its run ids or markers, nor its counts (the counters that move with a known number of runs of one tenant, and stand still while nobody acts, do not move as much for the other)",
  level: 'required',
  activeOnly: 'counters judged across quiet intervals apicert times while only one tenant acts',
  needs: { credentials: ['v1:other-tenant'], fixtures: ['v1.tasks.completes'] },
  destructive: 'mutate',
  // Its quiet interval must be quiet: other rules starting runs beside it would make every counter drift and be set aside.
  quiet: true,
  spec: { section: 'Endpoints', quote: '`200` JSON, tenant-scoped usage and spend readback' },
  async check(ctx) {
    const tenants = [primaryKey(ctx), otherTenantKey(ctx)] as const;
    // Neither tenant's readback can be compared when usage refuses its key for a scope: found before any run is started.
    const refused: Array<{ key: string; status: number; code: unknown }> = [];
    for (const key of tenants) {
      const res = await readUsage(ctx, key, `usage of tenant ${key.tenant}, readable by ${key.name}`);
      if (scopeRefusal(res)) refused.push({ key: key.name, status: res.status, code: (res.json as { code?: unknown }).code });
    }
    if (refused.length > 0) ctx.untestable(usageScope(refused));
    // Field names are not shown, so the readbacks are searched as text for what only the other tenant could know.
    const traces: Array<{ key: Credential; needles: string[] }> = [];
    for (const key of tenants) {
      const marker = newKey('apicert-usage-marker');
      const runId = await startRun(ctx, 'completes', { credential: key, label: `setup: a run of tenant ${key.tenant}` });
      const body = taskBody(ctx, 'completes');
      const marked = await postExecute(ctx, { ...body, task: { ...(body.task as object), apicertMarker: marker } }, { credential: key, label: `setup: a marked run of tenant ${key.tenant}` });
      const markedRun = taskResponse.safeParse(marked.json);
      traces.push({ key, needles: [runId, marker, ...(markedRun.success ? [markedRun.data.run_id] : [])] });
    }
    // Counts: the field names are not shown, so the counters are found by what they do. Tenant A
    // starts KNOWN_RUNS runs while B starts none; every number of A's readback that moved by at
    // least that much counts A's activity, and the same number of B's readback must not follow it.
    // Only counters of B that cannot move on their own are judged: B's own runs (started earlier,
    // by this rule or others) may still be emitting, and some counters run with the clock. A quiet
    // interval before and after the known runs, in which nobody acts, shows which ones move anyway.
    const [a, b] = tenants;
    const quietB = async (ms: number, when: string) => {
      const first = await readUsage(ctx, b, `usage of tenant ${b.tenant} ${when}, while nobody acts`);
      await ctx.sleep(ms);
      return [first, await readUsage(ctx, b, `usage of tenant ${b.tenant} ${when}, ${ms} ms later`)] as const;
    };
    const [idleB0, idleB1] = await quietB(QUIET_MS, 'before the known runs');
    const beforeA = await readUsage(ctx, a, `usage of tenant ${a.tenant} before the known runs`);
    const started = performance.now();
    for (let i = 0; i < KNOWN_RUNS; i += 1) await startRun(ctx, 'completes', { credential: a, label: `known run ${i + 1} of tenant ${a.tenant}` });
    const afterA = await readUsage(ctx, a, `usage of tenant ${a.tenant} after the known runs`);
    const afterB = await readUsage(ctx, b, `usage of tenant ${b.tenant} after the known runs`);
    const known = performance.now() - started;
    const [idleB2, idleB3] = await quietB(Math.min(MAX_QUIET_MS, Math.max(QUIET_MS, Math.round(known))), 'after the known runs');
    const drifting = new Set([...deltas(idleB0.json, idleB1.json), ...deltas(idleB2.json, idleB3.json)].filter(([, d]) => d !== 0).map(([path]) => path));
    const movedA = [...deltas(beforeA.json, afterA.json)].filter(([, d]) => d >= KNOWN_RUNS).map(([path]) => path);
    const judged = movedA.filter((path) => !drifting.has(path));
    const movedB = deltas(idleB1.json, afterB.json);
    ctx.observe(`counters of tenant ${a.tenant} that moved with its ${KNOWN_RUNS} runs`, movedA, 'when empty, the readback counts nothing a run moves, and only the leak of ids is judged');
    ctx.observe(`counters of tenant ${b.tenant} that moved while nobody acted (not judged)`, [...drifting].sort());
    for (const path of judged) {
      const followed = movedB.get(path) ?? 0;
      ctx.check(followed < KNOWN_RUNS, `${path} of tenant ${b.tenant}'s usage moved by ${followed} while only tenant ${a.tenant} ran ${KNOWN_RUNS} runs, and it stood still while nobody acted: it counts another tenant's activity`, afterB);
    }
    for (const [i, mine] of traces.entries()) {
      const other = traces[1 - i]!;
      const own = await readUsage(ctx, mine.key, `usage of tenant ${mine.key.tenant}`);
      if (!ctx.check(own.status === 200, `usage for ${mine.key.name} answered ${own.status}, expected 200`)) continue;
      ctx.observe(`own runs visible in tenant ${mine.key.tenant}'s usage`, mine.needles.some((n) => own.text.includes(n)), 'when false, the readback names no run, and the leak check can only see aggregate fields');
      const leaked = other.needles.filter((n) => own.text.includes(n));
      ctx.check(leaked.length === 0, `tenant ${mine.key.tenant}'s usage readback contains ${leaked.join(', ')} from tenant ${other.key.tenant}`);
    }
  },
});
