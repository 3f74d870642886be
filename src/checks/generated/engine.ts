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
import { sentenceText } from '../../contract/sentence.ts';
import { Inconclusive, RUN_MEMO, TransportError, type CheckContext, type EvidenceEntry, type Exchange, type ProbeRequest, type StreamResponse } from '../../rule/index.ts';
import { newKey } from '../../util/ids.ts';
import { isRecord } from '../../util/json.ts';
import { LIMITED_RESENDS, LIMITED_RESENDS_UNTIL_MS, limitedWaitMs, waitFits } from '../shared/limited-wait.ts';
import { Stopped } from '../../probe/transport.ts';
import { createMission, fixture } from '../v8/support/missions.ts';
import { capabilitySearchBody, memoryBase } from '../v8/support/read.ts';
import { afterTerminal, eventKind, startRun, taskBody, terminalKinds } from '../v1/support/fabric.ts';
import { parkedRun } from '../v1/runs/approve.ts';
import { expectationOf, sentOf, type Expectation, type Known, type SentRequest } from './expectation.ts';
import { judgeAnswer, type Answer, type Aspect, type Judgement } from './judgement.ts';
import { isLimited } from './oracles.ts';
import { deterministicPlan, isRead, toParked, type Generated, type Plan, type PlanContext } from './requests.ts';

export interface Judged {
  g: Generated;
  /** The request as it went on the wire, and what the descriptions expect of it (computed from it). */
  sent: SentRequest;
  expectation: Expectation;
  judgement: Judgement;
  evidence: EvidenceEntry;
  phase: 'deterministic' | 'random';
  /** Random phase: the shrunk value and how to get it again. */
  counterexample?: { seed: number; path: string | null; numRuns: number };
}

export interface CoverageRow {
  constraint: string;
  detail: string;
  /** Cases sent and judged, by the expectation computed from each. */
  accept: number;
  refuse: number;
  open: number;
  /** The sentences behind its must-accept and must-refuse cases. */
  sentences: string[];
}

export interface ProbeRun {
  /** Requests a rate limiter answered even after backing off: not judged. */
  limited: number;
  /** Requests the target did not answer at all (reset, timeout): not judged, listed. */
  unanswered: string[];
  /** Endpoints and constraints not exercised, with the reason (read-only, budget). */
  skipped: Array<{ endpoint: string; reason: string }>;
  coverage: Map<string, CoverageRow[]>;
  cases: Map<string, { accept: number; refuse: number; open: number }>;
  /** What the run set up for the cases and which cases shared it. */
  setup: string[];
  /**
   * Every exchange the run caused (set-up, cases, shrinking), as the sending check's journal kept
   * them: what each generated rule's judgement judges, whichever rule sent them.
   */
  exchanges: readonly Exchange[];
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

/** Whether an answer may be an event stream: read it as one, up to its terminal event (or its first, for a GET), never to its close. */
function streams(req: ProbeRequest): 'turn' | 'events' | undefined {
  const bare = req.path.split('?', 1)[0]!;
  if (req.method === 'GET' && /\/events$/.test(bare)) return 'events';
  if (req.method === 'POST' && bare === '/v1/execute' && !(isRecord(req.json) && req.json.mode === 'task')) return 'turn';
  return undefined;
}

/** How long a generated read of an event stream may last: the answer's head and first events are what is judged. */
const STREAM_READ_MS = 10_000;

function answerOfStream(res: StreamResponse): Answer {
  const answer: Answer = { status: res.status, headers: res.headers, contentType: res.contentType, json: res.json, text: res.text ?? '' };
  if (res.end === 'byte-limit' && res.text !== undefined) answer.cut = true;
  if (res.invalidUtf8) answer.malformed = 'is an event stream that is not valid UTF-8';
  return answer;
}

/**
 * Sends one request; a 429 or 503 is sent again after the wait it asks for, bounded as the
 * catalogue bounds it (src/checks/shared/limited-wait.ts: at most LIMITED_RESENDS times, a wait up
 * to a minute, within the run's resend window ending at `until`), and is otherwise left unjudged.
 */
async function sendOnce(ctx: CheckContext, g: Generated, until: number): Promise<{ answer: Answer; evidence: EvidenceEntry } | 'limited'> {
  const kind = streams(g.request);
  const terminal = kind === 'turn' ? terminalKinds(ctx) : undefined;
  for (let resends = 0; ; resends += 1) {
    const req = { ...g.request, headers: { ...g.request.headers } };
    let answer: Answer;
    let subject: object;
    if (kind) {
      // A turn stream is read to its terminal event and a run's stream to its first: the close is another rule's judgement.
      const res = await ctx.http.stream({ ...req, maxMs: Math.min(STREAM_READ_MS, ctx.profile.safety.streamTimeoutMs), onEvent: (e) => (terminal === undefined || terminal.has(eventKind(e) ?? '') ? afterTerminal(false) : 'continue') });
      answer = answerOfStream(res);
      subject = res;
    } else {
      const res = await ctx.http.send(req);
      answer = res;
      subject = res;
    }
    const at = ctx.http.exchangeOf(subject);
    if (!isLimited(answer)) return { answer, evidence: ctx.http.evidence[at ?? ctx.http.evidence.length - 1]! };
    if (resends >= LIMITED_RESENDS) return 'limited';
    const wait = limitedWaitMs(answer);
    if (!waitFits(wait, until)) return 'limited';
    await ctx.sleep(wait);
  }
}

/** Sends a case and judges its answer against the expectation of the request as sent. */
async function sendAndJudge(s: Sender, g: Generated, phase: Judged['phase']): Promise<Judged | 'limited'> {
  const got = await sendOnce(s.ctx, g, s.resendsUntil);
  if (got === 'limited') return 'limited';
  const sent = sentOf(g.request);
  const expectation = expectationOf(sent, s.known);
  return { g, sent, expectation, judgement: judgeAnswer(sent, expectation, got.answer), evidence: got.evidence, phase };
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
  // Webhook bodies built on the profile's public receiver, so that each case's own constraint decides it.
  const receiver = ctx.profile.fixtures.webhooks.publicReceiverUrl;
  if (receiver) out['v1.webhooks'] = { url: receiver };
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
  /**
   * Each case as sent and judged, for the run's coverage. Kept by the sender, not the run: the run
   * is shared until the certification ends, and these hold every request as generated (bodies of
   * up to a megabyte among them).
   */
  judged: Judged[];
  known: Known;
  cap: number;
  /** Every generated request in generation order, for the digest. */
  hash: Hash;
  existing: string[];
  /** The token of the probes' credential, masked in the digest. */
  token: string;
  /** Until when (performance.now()) a request a limiter refused is sent again. */
  resendsUntil: number;
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
      stopped = await sendCase(s, g, phase);
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  if (next < requests.length) s.run.skipped.push(leftOut(requests.slice(next), phase, stopped ?? `safety.generatedRequests (${s.cap}) reached`));
}

function leftOut(left: readonly Generated[], phase: Judged['phase'], why: string): ProbeRun['skipped'][number] {
  const constraints = new Set(left.map((g) => g.constraint));
  return { endpoint: `${constraints.size} constraint(s) in the ${phase} phase`, reason: `${why}: ${[...constraints].slice(0, 20).join('; ')}` };
}

/** Sends and judges one case; says why the run must stop, if it must. */
async function sendCase(s: Sender, g: Generated, phase: Judged['phase']): Promise<string | undefined> {
  s.run.sent += 1;
  try {
    const judged = await sendAndJudge(s, g, phase);
    if (judged === 'limited') s.run.limited += 1;
    else s.judged.push(judged);
  } catch (error) {
    if (budgetSpent(error)) return 'safety.requestBudget used up';
    // A request the target did not answer (reset, timeout) judges nothing; the count is reported.
    if (error instanceof TransportError) s.run.unanswered.push(`${g.request.method} ${g.request.path.slice(0, 200)} (${g.label}): ${error.message}`);
    else throw error;
  }
  return undefined;
}

/** The most runs parked for approve cases: each must-accept approve un-parks its own run. */
const MAX_PARKED = 8;

/**
 * The approve cases, one by one: every must-refuse and open case to the first parked run, then each
 * must-accept case to a parked run of its own (the first one's run is that same run, still parked).
 */
async function sendApproves(s: Sender, cases: readonly Generated[], first: string): Promise<void> {
  const kinds = new Map(cases.map((g) => [g, expectationOf(sentOf(g.request), s.known).kind]));
  const accepts = cases.filter((g) => kinds.get(g) === 'accept');
  // Must-refuse cases while the run is parked, then its must-accept case; open ones (which a deployment may take) only after it.
  const order = [...cases.filter((g) => kinds.get(g) === 'refuse'), ...accepts.slice(0, 1), ...cases.filter((g) => kinds.get(g) === 'open'), ...accepts.slice(1)];
  const shared: string[] = [];
  // A must-refuse approve the deployment took un-parked the shared run: its must-accept case then gets a run of its own, so one defect is not reported twice.
  let taken = false;
  for (const [i, g] of order.entries()) {
    if (s.run.sent >= s.cap) return void s.run.skipped.push(leftOut(order.slice(i), 'deterministic', `safety.generatedRequests (${s.cap}) reached`));
    const acceptIndex = accepts.indexOf(g);
    let req = g;
    if (acceptIndex > 0 || (acceptIndex === 0 && taken)) {
      const parked = acceptIndex < MAX_PARKED ? await parkOne(s.ctx, 'v1', false) : undefined;
      if (!parked) {
        s.run.skipped.push({ endpoint: `POST /v1/runs/{id}/approve: ${accepts.length - acceptIndex} must-accept case(s)`, reason: acceptIndex < MAX_PARKED ? 'no further run could be parked' : `at most ${MAX_PARKED} runs are parked for the approve cases` });
        return;
      }
      (s.known.parked as string[]).push(parked.id);
      (s.known.approvals as Record<string, unknown>)[parked.id] = parked.body;
      s.existing.push(parked.id);
      // Its own run, and that run's own digest in place of the first run's.
      const digest = (body: unknown) => (isRecord(body) ? String(body.action_digest) : '');
      const swap = (text: string) => text.split(digest(s.known.approvals?.[first])).join(digest(parked.body));
      const request: ProbeRequest = { ...g.request, path: g.request.path.split(encodeURIComponent(first)).join(encodeURIComponent(parked.id)) };
      if (g.request.json !== undefined) request.json = JSON.parse(swap(JSON.stringify(g.request.json))) as unknown;
      if (g.request.rawBody !== undefined) request.rawBody = swap(g.request.rawBody);
      req = { ...g, request };
    } else shared.push(g.label);
    const judged = s.judged.length;
    const stop = await sendCase(s, req, 'deterministic');
    if (stop) return void s.run.skipped.push(leftOut(order.slice(i + 1), 'deterministic', stop));
    const status = s.judged[judged]?.evidence.response?.status;
    if (acceptIndex < 0 && status !== undefined && status >= 200 && status < 300) taken = true;
  }
  const firstAccept = taken ? `no must-accept case (a must-refuse one was taken, so "${accepts[0]?.label ?? '-'}" had a run of its own)` : `the must-accept "${accepts[0]?.label ?? '-'}"`;
  s.run.setup.push(`${shared.length} approve cases shared the parked run ${first}: the must-refuse ones while it was parked, then ${firstAccept}, then the open ones; ${Math.max(0, accepts.length - (taken ? 0 : 1))} must-accept case(s) had a parked run of their own`);
}

/** A random-phase request: the template's endpoint and headers (a fresh idempotency key), a generated body. */
export function randomCase(template: Generated, spec: BodySpec, value: unknown): Generated {
  return {
    ...template,
    constraint: `${template.constraint.split(' (body)')[0]} (random)`,
    label: `random ${spec.name} body`,
    request: { ...template.request, headers: { ...template.request.headers, ...(template.request.headers?.['idempotency-key'] ? { 'idempotency-key': newKey() } : {}) }, json: value, label: `generated: random ${spec.name} body` },
  };
}

/** Aspects the random phase shrinks on: a valid body is never a 5xx, a must-accept one is accepted, a refusal is in the error format. */
const RANDOM_ASPECTS: readonly Aspect[] = ['no-5xx', 'accepts-valid', 'problem-json'];

async function randomPhase(s: Sender, endpoint: Endpoint, spec: BodySpec, template: Generated, base: unknown): Promise<void> {
  const examples = s.ctx.profile.safety.generatedExamples;
  if (examples === 0) return;
  const seed = seedOf(s.ctx.seed, `${endpoint.method} ${endpoint.path} ${spec.name}`);
  let failing: Judged | undefined;
  const property = fc.asyncProperty(arbitraryOf(spec.schema, base), async (value) => {
    if (s.run.sent >= s.cap) return;
    const g = randomCase(template, spec, value);
    digestOf(s, g);
    s.run.sent += 1;
    let judged: Judged | 'limited';
    try {
      judged = await sendAndJudge(s, g, 'random');
    } catch (error) {
      if (budgetSpent(error)) s.run.sent = s.cap;
      else if (error instanceof TransportError) s.run.unanswered.push(`${g.request.method} ${g.request.path} (${g.label}): ${error.message}`);
      else throw error;
      return;
    }
    if (judged === 'limited') {
      s.run.limited += 1;
      return;
    }
    // Each shrunk value is judged by the expectation of what was sent: a shrink that became open or valid is no failure.
    const broken = RANDOM_ASPECTS.map((a) => judged.judgement.findings[a]).find((f) => f && !f.ok);
    if (broken) {
      failing = judged;
      throw new Error(broken.reason);
    }
    s.judged.push(judged);
  });
  const details = await fc.check(property, { seed, numRuns: examples, endOnFailure: false, interruptAfterTimeLimit: 20_000 });
  if (details.failed && failing) {
    // Shrinking ends on its smallest failing value: the last failing exchange is the shrunk counterexample.
    s.judged.push({ ...failing, counterexample: { seed, path: details.counterexamplePath, numRuns: details.numRuns } });
  }
}

function coverageOf(plan: Plan, judged: readonly Judged[]): Map<string, CoverageRow[]> {
  const seen = new Map<string, Omit<CoverageRow, 'constraint' | 'detail'>>();
  for (const j of judged) {
    const row = seen.get(j.g.constraint) ?? { accept: 0, refuse: 0, open: 0, sentences: [] };
    row[j.expectation.kind] += 1;
    if (j.expectation.kind !== 'open') {
      const text = sentenceText(j.expectation.because);
      if (!row.sentences.includes(text)) row.sentences.push(text);
    }
    seen.set(j.g.constraint, row);
  }
  const out = new Map<string, CoverageRow[]>();
  const endpointKeyOf = (key: string) => key.split(' ').slice(0, 2).join(' ');
  const empty = () => ({ accept: 0, refuse: 0, open: 0, sentences: [] });
  for (const [key, c] of plan.constraints) {
    const list = out.get(endpointKeyOf(key)) ?? [];
    list.push({ constraint: key.slice(endpointKeyOf(key).length + 1), detail: c.detail, ...(seen.get(key) ?? empty()) });
    out.set(endpointKeyOf(key), list);
  }
  for (const [key, row] of seen) {
    if (plan.constraints.has(key)) continue;
    const list = out.get(endpointKeyOf(key)) ?? [];
    const constraint = key.slice(endpointKeyOf(key).length + 1);
    list.push({ constraint, detail: constraint.includes('(body)') ? 'the body as a whole' : constraint.includes('(random)') ? 'random valid bodies' : 'header, path, query or method', ...row });
    out.set(endpointKeyOf(key), list);
  }
  return out;
}

function caseCounts(plan: Plan, known: Known): ProbeRun['cases'] {
  const out: ProbeRun['cases'] = new Map();
  for (const g of plan.requests) {
    const key = g.endpoint ? `${g.endpoint.method} ${g.endpoint.path}` : g.constraint;
    const row = out.get(key) ?? { accept: 0, refuse: 0, open: 0 };
    row[expectationOf(sentOf(g.request), known).kind] += 1;
    out.set(key, row);
  }
  return out;
}

/** A parked /v1 run for the approve cases: every approve case goes to it, the one that approves it last. */
async function parkOne(ctx: CheckContext, surface: EndpointSurface, readOnly: boolean): Promise<PlanContext['parked']> {
  if (surface !== 'v1' || readOnly || !ctx.profile.fixtures.v1.tasks.parks || !ctx.profile.fixtures.v1.approval) return undefined;
  try {
    const parked = await parkedRun(ctx);
    return { id: parked.runId, body: { action_digest: parked.digest, decision: parked.decision } };
  } catch (error) {
    if (error instanceof Error && ['Inconclusive', 'Untestable', 'CheckFailure', 'TransportError'].includes(error.name)) return undefined;
    if (error instanceof Inconclusive) return undefined;
    throw error;
  }
}

/** The whole generated probe run of a surface, sent from `ctx`'s probe. */
export async function runProbes(ctx: CheckContext, surface: EndpointSurface): Promise<ProbeRun> {
  const resendsUntil = performance.now() + LIMITED_RESENDS_UNTIL_MS;
  const readOnly = !ctx.profile.safety.allowMutations;
  const credential = ctx.primary(surface);
  const existing = await existingResources(ctx, surface, readOnly);
  const parked = await parkOne(ctx, surface, readOnly);
  const fixtures = bodyFixtures(ctx);
  if (parked) fixtures['v1.approve'] = parked.body;
  const planContext: PlanContext = { surface, credential, fixtures, existing, readOnly };
  if (parked) planContext.parked = parked;
  const plan = deterministicPlan(planContext);
  const known: Known = { existing: Object.values(existing), parked: parked ? [parked.id] : [], bases: fixtures, approvals: parked ? { [parked.id]: parked.body } : {} };
  const receiver = ctx.profile.fixtures.webhooks.publicReceiverUrl;
  if (receiver) known.publicReceiverUrl = receiver;
  const setup: string[] = [];
  if (!parked && surface === 'v1') setup.push('no parked run (read-only, or fixtures.v1.tasks.parks / fixtures.v1.approval not given): approve cases went to a run id that names nothing and are open');
  if (surface === 'v1') setup.push(receiver ? `webhook bodies built on fixtures.webhooks.publicReceiverUrl` : 'no fixtures.webhooks.publicReceiverUrl: webhook bodies are open');
  const run: ProbeRun = { limited: 0, unanswered: [], skipped: [...plan.skipped], coverage: new Map(), cases: caseCounts(plan, known), setup, seed: ctx.seed, sent: 0, digest: '', exchanges: [] };
  const sender: Sender = { ctx, run, judged: [], known, cap: ctx.profile.safety.generatedRequests, hash: createHash('sha256'), existing: [...Object.values(existing), ...(parked ? [parked.id] : [])], token: credential.token, resendsUntil };
  for (const g of plan.requests) digestOf(sender, g);
  const approves = parked ? plan.requests.filter(toParked) : [];
  await sendAll(sender, plan.requests.filter((g) => !approves.includes(g)), 'deterministic');
  if (parked) await sendApproves(sender, approves, parked.id);
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
  run.coverage = coverageOf(plan, sender.judged);
  run.digest = sender.hash.digest('hex');
  run.exchanges = [...ctx.http.exchanges];
  return run;
}
/** The rule whose check sends each shared run: a rule that finds the run stopped names it. */
const senders = new WeakMap<Promise<unknown>, string>();

/**
 * A run sent once per certification and shared by several rules: the first rule to ask sends it
 * from its own check, under that check's deadline. A rule that finds it stopped (that deadline, the
 * run's --deadline) is inconclusive, naming the run and why it stopped: it judged nothing, and its
 * own check did nothing wrong.
 */
export function sharedRun<T>(ctx: CheckContext, key: string, what: string, send: () => Promise<T>): Promise<T> {
  const memo = ctx.service(RUN_MEMO);
  if (!memo) return send();
  const known = memo.get(key) as Promise<T> | undefined;
  if (!known) {
    // A stopped sender's requests fail as transport trouble, which the run takes for answers that did not
    // come and goes on: it may end with a part of its cases. Its context's sleep says whether it was stopped.
    const run = send().then(async (done) => {
      await ctx.sleep(0);
      return done;
    });
    senders.set(run, ctx.rule.id);
    memo.set(key, run);
    return run;
  }
  return known.catch((error: unknown) => {
    if (error instanceof Stopped) throw new Inconclusive(`${what}, sent by ${senders.get(known) ?? 'another rule'}'s check, was stopped: ${error.message}`);
    throw error;
  });
}

/** The surface's probe run, sent once per certification and shared by its oracle rules. */
export function sharedProbes(ctx: CheckContext, surface: EndpointSurface): Promise<ProbeRun> {
  return sharedRun(ctx, `contract.generated:${surface}`, `the shared generated probe run of /${surface}`, () => runProbes(ctx, surface));
}
