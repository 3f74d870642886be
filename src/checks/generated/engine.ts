/**
 * One generated probe run per surface, shared by that surface's oracle rules: a deterministic phase
 * (every boundary and single mutation once, the same in every run) and a random phase (valid bodies
 * from the schemas' arbitraries, `safety.generatedExamples` per endpoint body, from the run's seed,
 * shrunk by fast-check when an oracle fails). The first rule to ask sends; the others judge the
 * same exchanges, so the surface's requests are sent once whatever the number of oracles.
 */
import { createHash, type Hash } from 'node:crypto';
import fc from 'fast-check';
import { ENDPOINTS, type BodySpec, type Endpoint, type EndpointSurface } from '../../contract/endpoints.ts';
import { arbitraryOf } from '../../contract/schema-cases.ts';
import { Inconclusive, RUN_MEMO, TransportError, type CheckContext, type EvidenceEntry, type ProbeResponse } from '../../rule/index.ts';
import { newKey } from '../../util/ids.ts';
import { createMission, fixture } from '../v8/support/missions.ts';
import { capabilitySearchBody, memoryBase } from '../v8/support/read.ts';
import { startRun, taskBody } from '../v1/support/fabric.ts';
import { isLimited, ORACLES, type OracleName } from './oracles.ts';
import { deterministicPlan, isRead, type Generated, type Plan, type PlanContext } from './requests.ts';

export interface Judged {
  g: Generated;
  res: ProbeResponse;
  evidence: EvidenceEntry;
  phase: 'deterministic' | 'random';
  /** Random phase: the shrunk value and how to get it again. */
  counterexample?: { seed: number; path: string | null; numRuns: number };
}

export interface CoverageRow {
  constraint: string;
  detail: string;
  valid: boolean;
  invalid: boolean;
}

export interface ProbeRun {
  judged: Judged[];
  /** Requests a rate limiter answered even after backing off: not judged. */
  limited: number;
  /** Requests the target did not answer at all (reset, timeout): not judged, listed. */
  unanswered: string[];
  /** Endpoints and constraints not exercised, with the reason (read-only, budget). */
  skipped: Array<{ endpoint: string; reason: string }>;
  coverage: Map<string, CoverageRow[]>;
  cases: Map<string, { valid: number; invalid: number; open: number }>;
  seed: number;
  sent: number;
  /**
   * SHA-256 of every generated request in generation order (method, path, headers, body), with the
   * values a run must make fresh masked: idempotency keys and the ids of resources it created.
   * Two runs with the same --seed against the same deployment print the same digest.
   */
  digest: string;
}

const PARALLEL = 4;
const BACKOFF_MS = [250, 1000];

/** Sends one request; a 429 or 503 is retried after a bounded back-off and then left unjudged. */
async function sendOnce(ctx: CheckContext, g: Generated): Promise<{ res: ProbeResponse; evidence: EvidenceEntry } | 'limited'> {
  for (let attempt = 0; ; attempt += 1) {
    const req = { ...g.request, headers: { ...g.request.headers } };
    const res = await ctx.http.send(req);
    const at = ctx.http.exchangeOf(res);
    if (!isLimited(res)) return { res, evidence: ctx.http.evidence[at ?? ctx.http.evidence.length - 1]! };
    if (attempt >= BACKOFF_MS.length) return 'limited';
    const hinted = Number(res.headers['retry-after']) * 1000;
    await ctx.sleep(Math.min(Number.isFinite(hinted) && hinted > 0 ? hinted : BACKOFF_MS[attempt]!, 2000));
  }
}

export function bodyFixtures(ctx: CheckContext): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const take = (name: string, get: () => unknown) => {
    try {
      out[name] = get();
    } catch {
      // Without the fixture the schema's minimal body is the base: a deployment may refuse it for context, never as invalid.
    }
  };
  take('v8.missions.succeeds', () => fixture(ctx, 'succeeds'));
  take('v8.capabilitySearch', () => capabilitySearchBody(ctx));
  take('v8.memory', () => memoryBase(ctx));
  // The profile's own turn body, as given: the fixture helper gives each request a fresh requestId, and the same --seed must send the same bodies.
  take('v1.turn', () => ctx.profile.fixtures.v1.turn);
  take('v1.tasks.completes', () => taskBody(ctx, 'completes'));
  return out;
}

/** Resources the plan's templates need to exist (a waiting mission to signal, a run to read), when mutations are allowed. */
async function existingResources(ctx: CheckContext, surface: EndpointSurface, readOnly: boolean): Promise<Record<string, string>> {
  if (readOnly) return {};
  try {
    if (surface === 'v8' && ctx.profile.fixtures.v8.missions.waits) return { runId: (await createMission(ctx, 'waits', { label: 'setup: a waiting mission to signal' })).runId };
    if (surface === 'v1' && ctx.profile.fixtures.v1.tasks.completes) return { id: await startRun(ctx, 'completes', { label: 'setup: a run to read back' }) };
  } catch (error) {
    if (!(error instanceof Inconclusive) && !(error instanceof Error && error.name === 'Untestable')) throw error;
  }
  return {};
}

function seedOf(seed: number, text: string): number {
  let h = seed | 0;
  for (let i = 0; i < text.length; i += 1) h = (Math.imul(h, 31) + text.charCodeAt(i)) | 0;
  return h >>> 0;
}

interface Sender {
  ctx: CheckContext;
  run: ProbeRun;
  cap: number;
  /** Every generated request in generation order, for the digest. */
  hash: Hash;
  existing: readonly string[];
  /** The token of the probes' credential, masked in the digest. */
  token: string;
}

/** Adds a request to the run's digest, the values a run must make fresh masked. */
function digestOf(s: Sender, g: Generated): void {
  let path = g.request.path;
  for (const id of s.existing) path = path.split(encodeURIComponent(id)).join('{existing}');
  // Tokens are the profile's (the embedded fake mints new ones each start): named, never hashed.
  const token = g.request.credential?.token ?? s.token;
  const headers = Object.entries(g.request.headers ?? {}).map(([k, v]) => (k === 'idempotency-key' ? [k, v.length] : [k, v.split(token).join('<token>')]));
  s.hash.update(`${JSON.stringify([g.request.method, path, g.request.credential?.name ?? null, headers, g.request.json ?? g.request.rawBody ?? null])}\n`);
}

/** The run's request budget ran out (the budget wins: what was left is reported, not sent). */
function budgetSpent(error: unknown): boolean {
  return error instanceof Inconclusive && !(error instanceof TransportError) && /request budget/.test(error.message);
}

async function sendAll(s: Sender, requests: readonly Generated[], phase: Judged['phase']): Promise<void> {
  let next = 0;
  let stopped: string | undefined;
  const worker = async () => {
    while (next < requests.length && s.run.sent < s.cap && !stopped) {
      const g = requests[next++]!;
      s.run.sent += 1;
      try {
        const got = await sendOnce(s.ctx, g);
        if (got === 'limited') s.run.limited += 1;
        else s.run.judged.push({ g, res: got.res, evidence: got.evidence, phase });
      } catch (error) {
        if (budgetSpent(error)) stopped = `safety.requestBudget used up`;
        // A request the target did not answer (reset, timeout) judges nothing; the count is reported.
        else if (error instanceof TransportError) s.run.unanswered.push(`${g.request.method} ${g.request.path} (${g.label}): ${error.message}`);
        else throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  if (next < requests.length) {
    const left = new Set(requests.slice(next).map((g) => g.constraint));
    s.run.skipped.push({ endpoint: `${left.size} constraint(s) in the ${phase} phase`, reason: `${stopped ?? `safety.generatedRequests (${s.cap}) reached`}: ${[...left].slice(0, 20).join('; ')}` });
  }
}

/** A random-phase request: the template's endpoint and headers (a fresh idempotency key), a generated body. */
export function randomCase(template: Generated, spec: BodySpec, value: unknown): Generated {
  return {
    ...template,
    constraint: `${template.constraint.split(' (body)')[0]} (random)`,
    label: `random ${spec.name} body`,
    expect: spec.schema.safeParse(value).success && !spec.contextual ? 'accept' : 'any',
    request: { ...template.request, headers: { ...template.request.headers, ...(template.request.headers?.['idempotency-key'] ? { 'idempotency-key': newKey() } : {}) }, json: value, label: `generated: random ${spec.name} body` },
  };
}

/** Oracles the random phase judges: a valid body is never a 5xx, never refused as invalid, and a refusal is a problem. */
const RANDOM_ORACLES: readonly OracleName[] = ['no-5xx', 'accepts-valid', 'problem-json'];

async function randomPhase(s: Sender, endpoint: Endpoint, spec: BodySpec, template: Generated, base: unknown): Promise<void> {
  const examples = s.ctx.profile.safety.generatedExamples;
  if (examples === 0) return;
  const seed = seedOf(s.ctx.seed, `${endpoint.method} ${endpoint.path} ${spec.name}`);
  const generatedOf = (value: unknown) => randomCase(template, spec, value);
  let failing: Judged | undefined;
  const property = fc.asyncProperty(arbitraryOf(spec.schema, base), async (value) => {
    if (s.run.sent >= s.cap) return;
    const g = generatedOf(value);
    digestOf(s, g);
    s.run.sent += 1;
    let got: Awaited<ReturnType<typeof sendOnce>>;
    try {
      got = await sendOnce(s.ctx, g);
    } catch (error) {
      if (budgetSpent(error)) s.run.sent = s.cap;
      else if (error instanceof TransportError) s.run.unanswered.push(`${g.request.method} ${g.request.path} (${g.label}): ${error.message}`);
      else throw error;
      return;
    }
    if (got === 'limited') {
      s.run.limited += 1;
      return;
    }
    const judged: Judged = { g, res: got.res, evidence: got.evidence, phase: 'random' };
    const broken = RANDOM_ORACLES.map((o) => ORACLES[o](g, got.res)).find((j) => j && !j.ok);
    if (broken) {
      failing = judged;
      throw new Error(broken.reason);
    }
    s.run.judged.push(judged);
  });
  const details = await fc.check(property, { seed, numRuns: examples, endOnFailure: false, interruptAfterTimeLimit: 20_000 });
  if (details.failed && failing) {
    // Shrinking ends on its smallest failing value: the last failing exchange is the shrunk counterexample.
    s.run.judged.push({ ...failing, counterexample: { seed, path: details.counterexamplePath, numRuns: details.numRuns } });
  }
}

function coverageOf(plan: Plan, judged: readonly Judged[]): Map<string, CoverageRow[]> {
  const seen = new Map<string, { valid: boolean; invalid: boolean }>();
  for (const j of judged) {
    const row = seen.get(j.g.constraint) ?? { valid: false, invalid: false };
    if (j.g.expect === 'accept') row.valid = true;
    if (j.g.expect === 'reject') row.invalid = true;
    seen.set(j.g.constraint, row);
  }
  const out = new Map<string, CoverageRow[]>();
  const endpointKeyOf = (key: string) => key.split(' ').slice(0, 2).join(' ');
  for (const [key, c] of plan.constraints) {
    const row = seen.get(key) ?? { valid: false, invalid: false };
    const list = out.get(endpointKeyOf(key)) ?? [];
    list.push({ constraint: key.slice(endpointKeyOf(key).length + 1), detail: c.detail, ...row });
    out.set(endpointKeyOf(key), list);
  }
  for (const [key, row] of seen) {
    if (plan.constraints.has(key) || key.endsWith('(random)')) continue;
    const list = out.get(endpointKeyOf(key)) ?? [];
    const constraint = key.slice(endpointKeyOf(key).length + 1);
    list.push({ constraint, detail: constraint.includes('(body)') ? 'the body as a whole' : 'header, path or method', ...row });
    out.set(endpointKeyOf(key), list);
  }
  return out;
}

function caseCounts(plan: Plan): ProbeRun['cases'] {
  const out: ProbeRun['cases'] = new Map();
  for (const g of plan.requests) {
    const key = g.endpoint ? `${g.endpoint.method} ${g.endpoint.path}` : g.constraint;
    const row = out.get(key) ?? { valid: 0, invalid: 0, open: 0 };
    if (g.expect === 'accept') row.valid += 1;
    else if (g.expect === 'reject') row.invalid += 1;
    else row.open += 1;
    out.set(key, row);
  }
  return out;
}

/** The whole generated probe run of a surface, sent from `ctx`'s probe. */
export async function runProbes(ctx: CheckContext, surface: EndpointSurface): Promise<ProbeRun> {
  const readOnly = !ctx.profile.safety.allowMutations;
  const credential = ctx.primary(surface);
  const existing = await existingResources(ctx, surface, readOnly);
  const planContext: PlanContext = { surface, credential, fixtures: bodyFixtures(ctx), existing, readOnly };
  const plan = deterministicPlan(planContext);
  const run: ProbeRun = { judged: [], limited: 0, unanswered: [], skipped: [...plan.skipped], coverage: new Map(), cases: caseCounts(plan), seed: ctx.seed, sent: 0, digest: '' };
  const sender: Sender = { ctx, run, cap: ctx.profile.safety.generatedRequests, hash: createHash('sha256'), existing: Object.values(existing), token: credential.token };
  for (const g of plan.requests) digestOf(sender, g);
  await sendAll(sender, plan.requests, 'deterministic');
  for (const endpoint of ENDPOINTS.filter((e) => e.surface === surface)) {
    for (const spec of endpoint.bodies) {
      const template = plan.requests.find((g) => g.endpoint === endpoint && g.request.json !== undefined && g.label === (endpoint.bodies.length > 1 ? `${spec.name}: the base body` : 'the base body'));
      if (!template || (readOnly && !isRead(template.request, endpoint))) continue;
      await randomPhase(sender, endpoint, spec, template, template.request.json);
    }
  }
  if (existing.runId) {
    // The waiting mission was the probes' own: cancelled, so no deployment keeps it waiting.
    await ctx.http.send({ method: 'POST', path: `/v8/missions/${encodeURIComponent(existing.runId)}/cancel`, credential, headers: { 'idempotency-key': newKey() }, label: 'cleanup: cancel the waiting mission' }).catch(() => undefined);
  }
  run.coverage = coverageOf(plan, run.judged);
  run.digest = sender.hash.digest('hex');
  return run;
}

/** The surface's probe run, sent once per certification and shared by its oracle rules. */
export function sharedProbes(ctx: CheckContext, surface: EndpointSurface): Promise<ProbeRun> {
  const memo = ctx.service(RUN_MEMO);
  if (!memo) return runProbes(ctx, surface);
  const key = `contract.generated:${surface}`;
  let run = memo.get(key) as Promise<ProbeRun> | undefined;
  if (!run) {
    run = runProbes(ctx, surface);
    memo.set(key, run);
  }
  return run;
}
