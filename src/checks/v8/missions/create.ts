/** Endpoints: POST /v8/missions; Resources: goal specification and budget. */
import fc from 'fast-check';
import { section } from '../../../rule/index.ts';
import { missionProjection, type ResourceBudget } from '../../../contract/v8/missions.ts';
import { fixture, newKey, postMission, writer, MISSIONS } from '../support/missions.ts';

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
  async check(ctx) {
    const res = await postMission(ctx, fixture(ctx, 'succeeds'));
    ctx.check(res.status === 202, `create answered ${res.status}, expected 202`);
    ctx.check(res.contentType.startsWith('application/json'), `create answered content-type "${res.contentType}", expected application/json`);
    const projection = ctx.expectShape(missionProjection, res.json, 'the create response');
    ctx.check(projection.steps.length === 0, `steps has ${projection.steps.length} entries right after creation, expected none`);
    if (projection.status !== 'running' && projection.status !== 'waiting') {
      ctx.observe('initial status', projection.status, 'the seed says the first state is "almost always" running or waiting');
    }
  },
});

export const createMalformedJson = rule({
  id: 'v8.missions.create.malformed-json',
  title: 'Create with a body that is not JSON answers 400',
  level: 'required',
  spec: { section: 'Errors', quote: CREATE_400 },
  async check(ctx) {
    for (const raw of ['{"goalSpec": {"task": "x"}, "resourceBudget": ', 'not json at all']) {
      const res = await ctx.http.send({
        method: 'POST',
        path: MISSIONS,
        credential: writer(ctx),
        headers: { 'idempotency-key': newKey() },
        rawBody: raw,
        label: 'create with malformed JSON',
      });
      ctx.check(res.status === 400, `malformed JSON answered ${res.status}, expected 400`);
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

export const createMissingFields = rule({
  id: 'v8.missions.create.missing-fields',
  title: 'Create without goalSpec, goalSpec.task, resourceBudget or any budget field answers 400',
  level: 'required',
  needs: { fixtures: ['v8.missions.succeeds'] },
  spec: { section: 'Errors; Resources > Goal specification and budget', quote: `${CREATE_400} … all four fields required` },
  async check(ctx) {
    const valid = fixture(ctx, 'succeeds') as Record<string, unknown>;
    const paths = [
      ['goalSpec'],
      ['goalSpec', 'task'],
      ['resourceBudget'],
      ['resourceBudget', 'maximumSteps'],
      ['resourceBudget', 'maximumToolCalls'],
      ['resourceBudget', 'maximumElapsedMs'],
      ['resourceBudget', 'maximumParallelism'],
    ];
    for (const path of paths) {
      const res = await postMission(ctx, withoutField(valid, path), { label: `create without ${path.join('.')}` });
      ctx.check(res.status === 400, `create without ${path.join('.')} answered ${res.status}, expected 400`);
    }
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
  fc.tuple(validBudget, fc.constantFrom(...BUDGET_FIELDS), fc.constantFrom<unknown>(1.5, '3', null, true)).map(([b, field, v]) => ({
    budget: { ...b, [field]: v },
    valid: false,
    why: `${field} is not an integer`,
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

export const createBudgetBounds = rule({
  id: 'v8.missions.create.budget-bounds',
  title: 'Budgets inside every bound are accepted; a budget with one field missing, non-integer or out of range answers 400',
  level: 'required',
  needs: { fixtures: ['v8.missions.succeeds'] },
  spec: {
    section: 'Resources > Goal specification and budget; Limits',
    quote: 'maximumSteps | at least 1 … maximumToolCalls | at least 0 … maximumElapsedMs | at least 1 … maximumParallelism | 1-64 … `400` missing fields, budget out of range',
  },
  async check(ctx) {
    const goalSpec = fixture(ctx, 'succeeds').goalSpec;
    const cases = fc.oneof(
      validBudget.map((budget): BudgetCase => ({ budget, valid: true, why: 'every field in range' })),
      invalidBudget,
    );
    await ctx.property(
      cases,
      async ({ budget, valid, why }) => {
        const res = await postMission(ctx, { goalSpec, resourceBudget: budget }, { label: `create with ${why}` });
        if (valid && res.status !== 202) ctx.fail(`a valid budget (${why}) ${JSON.stringify(budget as ResourceBudget)} answered ${res.status}, expected 202`);
        if (!valid && res.status !== 400) ctx.fail(`an invalid budget (${why}) ${JSON.stringify(budget)} answered ${res.status}, expected 400`);
      },
      { numRuns: 60, examples: boundaryCases },
    );
  },
});
