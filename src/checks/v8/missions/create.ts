/** Endpoints: POST /v8/missions; Resources: goal specification and budget. */
import fc from 'fast-check';
import { judgedRun, section, type Exchange, type Judge, type Judgement } from '../../../rule/index.ts';
import { idempotencyKey } from '../../../contract/v8/common.ts';
import { createMissionRequest, missionProjection, resourceBudget } from '../../../contract/v8/missions.ts';
import { answerJson, bodyJson, exchangesOf, hasWholeBody, issuesOf, journalFact, openRequestForm, parsedAs, requestBodyMissing, requestJson } from '../../../traffic/read.ts';
import { sharesKeyInFlight } from '../../../traffic/shared-keys.ts';
import { isRecord, noParserReads } from '../../../util/json.ts';
import { parsedAsAjvReads } from '../../../contract/coercion.ts';
import { safeIntegerBound } from '../../generated/expectation.ts';
import { fixture, newKey, postMission, writer, MISSIONS } from '../support/missions.ts';
import { Callers, callerOf, judgeJsonMediaType, mayBeRefused } from '../support/traffic.ts';

const rule = section({ destructive: 'mutate', surface: 'v8', document: 'v8-integration-gateway.md', needs: { credentials: ['v8:holding:missions:write+missions:read'] } });

const CREATE_400 = '`400` missing fields, budget out of range, malformed JSON';

export const createAccepted = rule({
  id: 'v8.missions.create.accepted',
  title: 'Create answers 202 with a mission projection: UUID v7 runId, status, integer sequence, empty steps',
  level: 'required',
  needs: { fixtures: ['v8.missions.succeeds'] },
  spec: {
    section: 'States and transitions; Resources > Mission projection',
    quote: '`202`; the mission projection has empty `steps` … string, UUID v7',
  },
  judgement: {
    record: 'a POST /v8/missions with a valid body and a fresh Idempotency-Key, from a caller holding missions:write',
    judge(j) {
      withWriterCreates(j, (ex, body) => {
        if (!parsedAs(createMissionRequest, body).success || mayBeRefused(ex, body)) return;
        if (!j.check(ex, ex.status === 202, `a valid create answered ${ex.status}, expected 202`)) return;
        judgeJsonMediaType(j, ex, 'create');
        const json = answerJson(j, ex);
        if (json === undefined && !hasWholeBody(ex)) return;
        const parsed = parsedAs(missionProjection, json);
        if (!j.check(ex, parsed.success, `the 202 is not a mission projection with a UUID v7 runId (${parsed.success ? '' : issuesOf(parsed.error)})`) || !parsed.success) return;
        j.check(ex, parsed.data.steps.length === 0, `steps has ${parsed.data.steps.length} entries right after creation, expected none`);
        if (parsed.data.status !== 'running' && parsed.data.status !== 'waiting') j.observe('initial status', parsed.data.status, 'the seed says the first state is "almost always" running or waiting');
      });
    },
  },
  async provoke(ctx) {
    await postMission(ctx, fixture(ctx, 'succeeds'));
  },
});

export const createMalformedJson = rule({
  id: 'v8.missions.create.malformed-json',
  title: 'Create with a body that is not JSON answers 400',
  level: 'required',
  spec: { section: 'Errors', quote: CREATE_400 },
  judgement: {
    record: 'a POST /v8/missions whose body no JSON parser reads (not JSON, nor JSON after a leading byte order mark), with a valid Idempotency-Key, from a caller holding missions:write',
    judge(j) {
      withWriterCreates(j, (ex) => {
        // The body's parse shared with every rule reading it: undefined when it is no JSON (JSON has no undefined).
        if (ex.requestBody === undefined || bodyJson(ex, 'request', ex.requestBody) !== undefined) return;
        // Malformed only when no parser reads it: JSON past the depth this parse stops at, or led by a byte order mark a parser "MAY ignore" (RFC 8259 8.1), is open.
        if (!noParserReads(ex.requestBody)) return;
        j.check(ex, ex.status === 400, `malformed JSON answered ${ex.status}, expected 400`);
      });
    },
  },
  async provoke(ctx) {
    for (const raw of ['{"goalSpec": {"task": "x"}, "resourceBudget": ', 'not json at all']) {
      await ctx.http.send({ method: 'POST', path: MISSIONS, credential: writer(ctx), headers: { 'idempotency-key': newKey() }, rawBody: raw, label: 'create with malformed JSON' });
    }
  },
});

/** Bodies each missing one required field, built from a valid fixture. */
function withoutField(body: Record<string, unknown>, path: string[]): Record<string, unknown> {
  const copy = structuredClone(body);
  let node: Record<string, unknown> = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string, unknown>;
  delete node[path.at(-1)!];
  return copy;
}

const REQUIRED_FIELDS = [
  ['goalSpec'],
  ['goalSpec', 'task'],
  ['resourceBudget'],
  ['resourceBudget', 'maximumSteps'],
  ['resourceBudget', 'maximumToolCalls'],
  ['resourceBudget', 'maximumElapsedMs'],
  ['resourceBudget', 'maximumParallelism'],
];

/** The first required field a sent body lacks (a body that is not an object lacks them all, but is another rule's). */
function missingField(body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  for (const path of REQUIRED_FIELDS) {
    let node: unknown = body;
    for (const key of path.slice(0, -1)) node = isRecord(node) ? node[key] : undefined;
    if (isRecord(node) && !(path.at(-1)! in node)) return path.join('.');
  }
  return undefined;
}

export const createMissingFields = rule({
  id: 'v8.missions.create.missing-fields',
  title: 'Create without goalSpec, goalSpec.task, resourceBudget or any budget field answers 400',
  level: 'required',
  needs: { fixtures: ['v8.missions.succeeds'] },
  spec: { section: 'Errors; Resources > Goal specification and budget', quote: `${CREATE_400} … all four fields required` },
  judgement: {
    record: 'a POST /v8/missions whose JSON body lacks goalSpec, goalSpec.task, resourceBudget or a budget field, from a caller holding missions:write',
    judge(j) {
      withWriterCreates(j, (ex, body) => {
        const gone = missingField(body);
        if (gone === undefined) return;
        j.check(ex, ex.status === 400, `create without ${gone} answered ${ex.status}, expected 400`);
      });
    },
  },
  async provoke(ctx) {
    const valid = fixture(ctx, 'succeeds') as Record<string, unknown>;
    for (const path of REQUIRED_FIELDS) await postMission(ctx, withoutField(valid, path), { label: `create without ${path.join('.')}` });
  },
});

type BudgetCase = { budget: Record<string, unknown>; valid: boolean; why: string };

const validBudget = fc.record({
  maximumSteps: fc.integer({ min: 1, max: 10_000 }),
  maximumToolCalls: fc.integer({ min: 0, max: 10_000 }),
  // Kept short of hours so a mission the property creates ends by itself.
  maximumElapsedMs: fc.integer({ min: 1, max: 60_000 }),
  maximumParallelism: fc.integer({ min: 1, max: 64 }),
});

const BUDGET_FIELDS = ['maximumSteps', 'maximumToolCalls', 'maximumElapsedMs', 'maximumParallelism'] as const;
const BELOW_MIN: Record<(typeof BUDGET_FIELDS)[number], number> = { maximumSteps: 0, maximumToolCalls: -1, maximumElapsedMs: 0, maximumParallelism: 0 };

const invalidBudget: fc.Arbitrary<BudgetCase> = fc.oneof(
  fc.tuple(validBudget, fc.constantFrom(...BUDGET_FIELDS), fc.integer({ min: 1, max: 1000 })).map(([b, field, by]) => ({
    budget: { ...b, [field]: BELOW_MIN[field] - by + 1 },
    valid: false,
    why: `${field} below its minimum`,
  })),
  fc.tuple(validBudget, fc.integer({ min: 65, max: 10_000 })).map(([b, p]) => ({ budget: { ...b, maximumParallelism: p }, valid: false, why: 'maximumParallelism above 64' })),
  fc.tuple(validBudget, fc.constantFrom(...BUDGET_FIELDS)).map(([b, field]) => {
    const { [field]: _dropped, ...rest } = b;
    return { budget: rest, valid: false, why: `${field} missing` };
  }),
  // Values of another JSON type: 1.5 and {} no coercion reads as an integer; "3", true (and null, "0" where 0 is in range) are open, read as 3, 1 and 0 by ajv's coercion.
  fc.tuple(validBudget, fc.constantFrom(...BUDGET_FIELDS), fc.constantFrom<unknown>(1.5, '3', '0', null, true, {})).map(([b, field, v]) => ({
    budget: { ...b, [field]: v },
    valid: false,
    why: `${field} is ${JSON.stringify(v)}, not an integer`,
  })),
);

const boundaryCases: BudgetCase[] = [
  { budget: { maximumSteps: 1, maximumToolCalls: 0, maximumElapsedMs: 1, maximumParallelism: 1 }, valid: true, why: 'every field at its minimum' },
  { budget: { maximumSteps: 1, maximumToolCalls: 0, maximumElapsedMs: 1000, maximumParallelism: 64 }, valid: true, why: 'maximumParallelism at 64' },
  { budget: { maximumSteps: 0, maximumToolCalls: 0, maximumElapsedMs: 1000, maximumParallelism: 1 }, valid: false, why: 'maximumSteps 0' },
  { budget: { maximumSteps: 1, maximumToolCalls: -1, maximumElapsedMs: 1000, maximumParallelism: 1 }, valid: false, why: 'maximumToolCalls -1' },
  { budget: { maximumSteps: 1, maximumToolCalls: 0, maximumElapsedMs: 0, maximumParallelism: 1 }, valid: false, why: 'maximumElapsedMs 0' },
  { budget: { maximumSteps: 1, maximumToolCalls: 0, maximumElapsedMs: 1000, maximumParallelism: 0 }, valid: false, why: 'maximumParallelism 0' },
  { budget: { maximumSteps: 1, maximumToolCalls: 0, maximumElapsedMs: 1000, maximumParallelism: 65 }, valid: false, why: 'maximumParallelism 65' },
];

const budgetBoundsJudgement: Judgement = {
  record: 'a POST /v8/missions with a goalSpec and a resourceBudget object, a fresh valid Idempotency-Key, from a caller holding missions:write',
  judge(j) {
    const leniently: number[] = [];
    withWriterCreates(j, (ex, body) => {
      const budget = isRecord(body) ? body.resourceBudget : undefined;
      if (!isRecord(body) || !isRecord(body.goalSpec) || typeof body.goalSpec.task !== 'string' || !isRecord(budget)) return;
      // The error table names no wrong-type cause: a budget valid once ajv's coercion (Fastify's default) reads "3" as 3 or true as 1 is open;
      // one still out of range so read (null or "0" for maximumSteps) is refused either way.
      const { parsed, open } = parsedAsAjvReads(resourceBudget, budget, (value) => resourceBudget.safeParse(value));
      if (open) return void leniently.push(ex.status!);
      // Unknown budget fields are the fake's choice to refuse ('closed'), not the description's: such a budget is held to no answer.
      if (!parsed.success && parsed.error.issues.every((i) => i.code === 'unrecognized_keys')) return;
      // An integer past 2^53 breaks no stated bound (zod's .int() adds that one): I-JSON lets a deployment read it, round it or refuse it.
      if (!parsed.success && parsed.error.issues.every((i) => safeIntegerBound(i as unknown as Parameters<typeof safeIntegerBound>[0]))) return;
      const valid = parsed.success;
      // A valid budget in a body a legal deployment may still refuse (a NUL, free text past any bound) is held to no answer.
      if (valid) {
        if (!mayBeRefused(ex, body)) j.check(ex, ex.status === 202, `a valid budget ${JSON.stringify(budget)} answered ${ex.status}, expected 202`);
      } else j.check(ex, ex.status === 400, `an invalid budget ${JSON.stringify(budget)} answered ${ex.status}, expected 400`);
    });
    if (leniently.length > 0) j.observe('statuses for budgets valid once values of another JSON type are coerced', leniently, 'open: reading "3" as 3 (ajv\'s coerceTypes, Fastify\'s default) and refusing it are both legal');
  },
};

export const createBudgetBounds = rule({
  id: 'v8.missions.create.budget-bounds',
  title: 'Budgets inside every bound are accepted; a budget with one field missing, non-integer or out of range (as sent, and as a coercion of another JSON type reads it) answers 400',
  level: 'required',
  needs: { fixtures: ['v8.missions.succeeds'] },
  spec: {
    section: 'Resources > Goal specification and budget; Limits',
    quote: 'maximumSteps | at least 1 … maximumToolCalls | at least 0 … maximumElapsedMs | at least 1 … maximumParallelism | 1-64 … `400` missing fields, budget out of range',
  },
  judgement: budgetBoundsJudgement,
  async provoke(ctx) {
    const goalSpec = fixture(ctx, 'succeeds').goalSpec;
    const cases = fc.oneof(
      validBudget.map((budget): BudgetCase => ({ budget, valid: true, why: 'every field in range' })),
      invalidBudget,
    );
    // Each run is judged as it ends, so fast-check shrinks a failing budget to a minimal one.
    await ctx.property(
      cases,
      ({ budget, why }) => judgedRun(ctx, budgetBoundsJudgement, async () => void (await postMission(ctx, { goalSpec, resourceBudget: budget }, { label: `create with ${why}` }))),
      { numRuns: 60, examples: boundaryCases },
    );
  },
});

/**
 * Every create the judgements of this file apply to: a POST /v8/missions carrying a valid
 * Idempotency-Key not used before by the same caller, from a caller holding missions:write, with
 * its body (parsed JSON, or undefined). A create answered 429 is rate limited (its own rule).
 */
function withWriterCreates(j: Judge, each: (ex: Exchange, body: unknown) => void): void {
  const callers = new Callers(j);
  for (const ex of journalFact(j.exchanges, freshCreates)) {
    if (!callers.holds(ex, 'missions:write') || ex.status === 429 || openRequestForm(ex) !== undefined) continue;
    const missing = requestBodyMissing(ex);
    if (missing !== undefined) j.lacks(ex, `the create's body: ${missing}`);
    else each(ex, requestJson(ex));
  }
}

/**
 * The answered creates carrying a valid Idempotency-Key their caller had not used before, nor sent
 * on another create in flight at the same time (which of the two was taken first is not shown), in
 * order: read from the requests alone, so worked out once per journal for the five rules taking them (journalFact).
 */
function freshCreates(exchanges: readonly Exchange[]): readonly Exchange[] {
  const used = new Set<string>();
  const out: Exchange[] = [];
  for (const ex of exchangesOf(exchanges, 'v8.missions.create')) {
    if (ex.status === undefined) continue;
    const key = ex.requestHeaders['idempotency-key'];
    if (key === undefined || !idempotencyKey.safeParse(key).success) continue;
    const scoped = `${callerOf(ex)}\n${key}`;
    if (used.has(scoped)) continue;
    used.add(scoped);
    if (!sharesKeyInFlight(exchanges, ex)) out.push(ex);
  }
  return out;
}
