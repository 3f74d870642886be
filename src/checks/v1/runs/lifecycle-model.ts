/**
 * A model of /v1 task runs as the seeds describe them: in flight, parked awaiting approval,
 * finished. The run resource's fields are not shown, so the model judges what is shown: answers to
 * execute, approve and cancel, and the run's event stream (sequence ids, resume, terminal events).
 */
import fc from 'fast-check';
import { canonicalJson } from '../../../util/json.ts';
import { CANCELLED, openObject } from '../../../contract/v1/runs.ts';
import { taskResponse } from '../../../contract/v1/task.ts';
import type { CheckContext, ProbeResponse, SseEvent, StreamResponse } from '../../../rule/index.ts';
import { answer, sameAnswer, summary, type Answer } from '../../stateful/answers.ts';
import { make, making, pickOne, picking, pickingWith, racing, readEvents, resuming, type Command, type MakeAction, type PickAction, type RacePlan, type Things } from '../../stateful/commands.ts';
import { pauses, type ModelCommand, type ModelSpec, type Real } from '../../stateful/driver.ts';
import { EventLog } from '../../stateful/event-log.ts';
import { eventData, eventKind, newKey, postExecute, primaryKey, problemCode, runPath, taskBody, terminalKinds } from '../support/fabric.ts';
import { APPROVAL_MISSING, ENDS_WITHOUT_ACTION, readPath, tampered } from './approve.ts';

/** `parks` stays parked until approved or cancelled; `completes` finishes by itself. */
export type RunFixture = 'parks' | 'completes';

interface RunModel {
  label: string;
  fixture: RunFixture;
  runId: string;
  key: string;
  body: Record<string, unknown>;
  /** Another fixture's body to send under this run's key (a conflict), when the profile gives one. */
  conflictBody: Record<string, unknown> | undefined;
  original: Answer;
  log: EventLog;
  /** The digest announced by the approval event, and where that event is in the log. */
  digest?: string;
  approvalAt?: number;
  cancelSent: boolean;
  /** An approve with the announced digest answered 200. */
  approved: boolean;
  /** An approve with a wrong digest was sent: it may have ended the run ("Transitions: not shown."). */
  wrongDigestSent: boolean;
}

export interface RunsModel {
  fixtures: Partial<Record<RunFixture, Record<string, unknown>>>;
  approval: { event: string; digestField: string; decision: string };
  terminal: ReadonlySet<string>;
  runs: RunModel[];
  step: number;
  /** Approves sent (right or wrong digest, alone or racing): none when no run ever announced a digest. */
  approvesSent: number;
  /** Reads with Last-Event-ID: none when no event read carried an SSE id to resume after. */
  resumesSent: number;
}

/** Whether the run may have finished by now: the model cannot rule it out. */
function mayHaveFinished(r: RunModel): boolean {
  return r.fixture !== 'parks' || r.approved || r.cancelSent || r.wrongDigestSent || r.log.terminalAt() >= 0;
}

/** Parked for sure: the approval event was read and nothing since could have moved the run. */
function knownParked(r: RunModel): boolean {
  return r.fixture === 'parks' && r.approvalAt !== undefined && !r.cancelSent && !r.approved && !r.wrongDigestSent;
}

// ---- judging the event stream ----

const NO_ID = Symbol('no SSE id');

function hasSseId(e: SseEvent): boolean {
  return e.id !== undefined && e.id !== '';
}

function sequenceOf(e: SseEvent): number | undefined {
  return e.id !== undefined && /^\d+$/.test(e.id.trim()) ? Number(e.id.trim()) : undefined;
}

/** Judges one read (from the start when `after` is -1), merges it into the log and checks the whole log. */
function seeStream(ctx: CheckContext, model: RunsModel, r: RunModel, s: StreamResponse | undefined, after: number, what: string): void {
  if (!s) return;
  ctx.expect(s.status === 200, `${what} answered ${s.status}, expected 200`);
  // An event without an SSE id is v1.runs.events.resume's one judgement: the model only cannot resume after it
  // (EventLog.cursors), and says so when no sequence resumed (runsPromised). Ids it carries are held to the sequence.
  const sequences = s.events.map((e) => (hasSseId(e) ? sequenceOf(e) : NO_ID));
  const cursor = after >= 0 ? Number(r.log.events[after]!.id) : -Infinity;
  let before: number | undefined = cursor;
  sequences.forEach((n, i) => {
    if (n === NO_ID) return;
    ctx.expect(n !== undefined, `${what}: event #${i + 1} (${eventKind(s.events[i]!)}) has SSE id "${s.events[i]!.id ?? ''}", not the integer sequence Last-Event-ID carries`);
    ctx.expect(before === undefined || n! > before, `${what}: sequence ${n} follows ${before}: sequence never decreases and every event has its own`);
    before = n;
  });
  const kinds = s.events.map(eventKind);
  const first = kinds.findIndex((k) => k !== undefined && model.terminal.has(k));
  const wrong = r.log.merge(s.events, after, s.end, what);
  ctx.expect(wrong === undefined, wrong ?? '');
  s.events.forEach((e, i) => {
    if (eventKind(e) !== model.approval.event || r.digest !== undefined) return;
    const digest = readPath(eventData(e), model.approval.digestField);
    if (typeof digest === 'string' && digest.length > 0) {
      r.digest = digest;
      r.approvalAt = after + 1 + i;
    }
  });
  const log = r.log.events;
  const end = r.log.terminalAt();
  if (end >= 0) {
    ctx.expect(end === log.length - 1, `${what}: the run's events go on after ${log[end]!.kind} (event #${end + 1}) with ${log.slice(end + 1).map((e) => e.kind).join(', ')}: a terminal event ends the run`);
    // A wrong digest may end a parked run without its action, request.cancelled included, as v1.runs.approve.digest-binds reads it.
    const endedByWrongDigest = r.wrongDigestSent && ENDS_WITHOUT_ACTION.has(CANCELLED);
    ctx.expect(log[end]!.kind !== CANCELLED || r.cancelSent || endedByWrongDigest, `${what}: ${CANCELLED} ended run ${r.label}, which nobody cancelled (and no approve with a wrong digest could have ended)`);
  }
  if (first >= 0) ctx.expect(first === kinds.length - 1, `${what} carried ${kinds.slice(first + 1).join(', ')} after ${kinds[first]} on the same stream: a terminal event ends it`);
  // A parked run may still send events of kinds the seed does not name (they are not shown), so
  // resuming shows in how it ends: while no approve carried the digest, only an ending without the
  // action (request.cancelled, run.failed: a wrong digest may end it) may end it.
  if (r.approvalAt !== undefined && end > r.approvalAt && !r.approved) {
    ctx.expect(ENDS_WITHOUT_ACTION.has(log[end]!.kind ?? ''), `${what}: run ${r.label} went on to ${log[end]!.kind} after ${model.approval.event} though no approve carried its action_digest: the digest binds the decision to the proposed action`);
  }
}

// ---- requests ----

/**
 * Reads a run's stream for a moment: undefined when no headers came in time while the run is not
 * known finished (a parked run, a resume after its last event, may hold them back: `readEvents`).
 */
function readStream(ctx: CheckContext, r: RunModel, model: RunsModel, label: string, lastEventId?: string): Promise<StreamResponse | undefined> {
  return readEvents(ctx, { path: runPath(r.runId, '/events'), credential: primaryKey(ctx), label }, (event) => model.terminal.has(eventKind(event) ?? ''), r.log.terminalAt() >= 0, lastEventId);
}

function sendCancel(ctx: CheckContext, r: RunModel, label: string): Promise<ProbeResponse> {
  return ctx.http.send({ method: 'POST', path: runPath(r.runId, '/cancel'), credential: primaryKey(ctx), label });
}

function sendApprove(ctx: CheckContext, model: RunsModel, r: RunModel, digest: string, label: string): Promise<ProbeResponse> {
  return ctx.http.send({ method: 'POST', path: runPath(r.runId, '/approve'), credential: primaryKey(ctx), json: { action_digest: digest, decision: model.approval.decision }, label });
}

/**
 * "| `POST /v1/runs/{id}/cancel` | cancellation accepted | a terminal `request.cancelled` event is
 * emitted ... |" binds what an accepted cancellation does, not which cancels are accepted
 * ("Transitions: not shown."; "Mapping of each `code` to an HTTP status: not shown."): a finished
 * run's cancel, or a parked run's that only approve may resolve (decision rejected), may be refused.
 * 200 or a refusal of the request itself (409, 400, 422, ...) are readings; auth, not-found and
 * rate-limit answers are not.
 */
function refusesCancel(a: Answer): boolean {
  return a.status >= 400 && a.status < 500 && ![401, 403, 404, 405, 429].includes(a.status);
}

/** The refusals seen, each kind recorded once per rule run: many sequences send many cancels. */
const refusalsSeen = new WeakMap<CheckContext, Set<string>>();

/**
 * A refused cancel was not accepted: the run goes on as it was (a parked run stays parked, and its
 * approve must still resume it), and a request.cancelled it then shows was no accepted cancel's.
 */
function noteRefusal(ctx: CheckContext, r: RunModel, a: Answer, mayHaveEnded: boolean): void {
  const state = mayHaveEnded ? 'a run that may have finished' : knownParked(r) ? 'a run parked awaiting approval' : 'a run not known finished (in flight or parked)';
  const code = problemCode(a);
  const kind = `${state}: ${a.status}${code === undefined ? '' : ` ${code}`}`;
  const seen = refusalsSeen.get(ctx) ?? new Set<string>();
  refusalsSeen.set(ctx, seen);
  if (seen.has(kind)) return;
  seen.add(kind);
  ctx.observe(`cancel of ${state} refused`, { status: a.status, code: code ?? null }, 'no sentence says which cancels are accepted ("cancellation accepted" is the condition of the cancel row): the run is taken as not cancelled');
}

function seeCancel(ctx: CheckContext, model: RunsModel, r: RunModel, a: Answer, where: string): void {
  const mayHaveEnded = mayHaveFinished(r);
  const what = mayHaveEnded ? `cancelling run ${r.label}` : `cancelling run ${r.label}, parked or in flight and not finished,`;
  ctx.expect(a.status === 200 || refusesCancel(a), `${where}: ${what} answered ${summary(a)}, expected 200 or a refusal of the cancel (a 4xx but 401, 403, 404, 405, 429)`);
  if (a.status === 200) ctx.expectShape(openObject, a.json, `${where}: the cancel response`);
  if (refusesCancel(a)) noteRefusal(ctx, r, a, mayHaveEnded);
  else r.cancelSent = true;
}

function seeApprove(ctx: CheckContext, r: RunModel, a: Answer, wasParked: boolean, where: string): void {
  if (wasParked) ctx.expect(a.status === 200, `${where}: approving run ${r.label}, parked with the digest it announced, answered ${summary(a)}, expected 200`);
  if (a.status === 200) r.approved = true;
}

/**
 * A replay answers with the original's status and run: the task response is open ("Other
 * properties are allowed"), so a replay may say more (a `replayed` flag) than the original did.
 */
function seeReplay(ctx: CheckContext, r: RunModel, a: Answer, where: string): void {
  const runOf = (x: Answer) => taskResponse.safeParse(x.json).data?.run_id;
  const same = runOf(r.original) === undefined ? sameAnswer(a, r.original) : a.status === r.original.status && runOf(a) === runOf(r.original);
  ctx.expect(same, `${where}: re-sending the execute of run ${r.label} (same key, same body) answered ${summary(a)}, the original ${summary(r.original)}: the same key with the same request replays`);
}

// ---- commands: what each sends, and what it judges and learns ----

const runs: Things<RunsModel, RunModel> = { noun: 'run', items: (model) => model.runs };

const start: MakeAction<RunsModel, RunFixture> = {
  name: 'start',
  has: (model, fixture) => model.fixtures[fixture] !== undefined,
  async act(model, { ctx, transcript }, label, fixture) {
    transcript.retitle(`start task run ${label} from fixture "${fixture}" with a new Idempotency-Key`);
    const body = structuredClone(model.fixtures[fixture]!);
    const key = newKey();
    const res = await postExecute(ctx, body, { key, label: `start run ${label}` });
    ctx.expect(res.status === 200, `starting run ${label} from fixture "${fixture}" answered ${summary(answer(res))}, expected 200`);
    const parsed = ctx.expectShape(taskResponse, res.json, `the task response of run ${label}`);
    model.runs.push({
      label,
      fixture,
      runId: parsed.run_id,
      key,
      body,
      conflictBody: conflictBodyOf(model, fixture, body),
      original: answer(res),
      log: new EventLog(eventKind, (k) => k !== undefined && model.terminal.has(k)),
      cancelSent: false,
      approved: false,
      wrongDigestSent: false,
    });
  },
};

const replay: PickAction<RunsModel, RunModel> = {
  name: 'replay',
  verb: 're-send the execute (same key, same body) of',
  async act(r, model, { ctx }) {
    const res = await postExecute(ctx, r.body, { key: r.key, label: `replay the execute of run ${r.label}` });
    seeReplay(ctx, r, answer(res), `step ${model.step}`);
  },
};

/**
 * The other fixture's body (parks for a completes run, completes for a parks run) when it is another
 * request: a body the deployment takes under a fresh key, so only the key can refuse it. A change
 * inside `task` could be refused for itself: "Sub-field shapes of `task` ...: not shown."
 */
function conflictBodyOf(model: RunsModel, fixture: RunFixture, body: Record<string, unknown>): Record<string, unknown> | undefined {
  const other = model.fixtures[fixture === 'parks' ? 'completes' : 'parks'];
  return other === undefined || canonicalJson(other) === canonicalJson(body) ? undefined : structuredClone(other);
}

const conflict: PickAction<RunsModel, RunModel> = {
  name: 'conflict',
  verb: "reuse the execute key with the other fixture's task body for",
  applies: (r) => r.conflictBody !== undefined,
  async act(r, model, { ctx }) {
    const res = await postExecute(ctx, r.conflictBody, { key: r.key, label: `the key of run ${r.label} with the other fixture's body` });
    ctx.expect(res.status === 409 && problemCode(res) === 'conflict', `step ${model.step}: the key of run ${r.label} with the other fixture's task body answered ${summary(answer(res))}, expected 409 with code conflict`);
    // A deployment that wrongly started a run for it: that run is not left parked.
    const started = res.status === 200 ? taskResponse.safeParse(res.json).data?.run_id : undefined;
    if (started !== undefined) await ctx.http.send({ method: 'POST', path: runPath(started, '/cancel'), credential: primaryKey(ctx), label: `cleanup: cancel the run the conflicting body of run ${r.label} started` });
  },
};

const get: PickAction<RunsModel, RunModel> = {
  name: 'get',
  verb: 'read back',
  async act(r, model, { ctx }) {
    const res = await ctx.http.send({ method: 'GET', path: runPath(r.runId), credential: primaryKey(ctx), label: `read run ${r.label}` });
    ctx.expect(res.status === 200, `step ${model.step}: reading run ${r.label} back answered ${summary(answer(res))}, expected 200`);
    ctx.expectShape(openObject, res.json, `step ${model.step}: the run resource`);
  },
};

const cancel: PickAction<RunsModel, RunModel> = {
  name: 'cancel',
  verb: 'cancel',
  async act(r, model, { ctx }) {
    const res = await sendCancel(ctx, r, `cancel run ${r.label}`);
    seeCancel(ctx, model, r, answer(res), `step ${model.step}`);
  },
};

/** `right`: with the action_digest the run announced; else with a wrong one. */
const approve: PickAction<RunsModel, RunModel, boolean> = {
  name: 'approve',
  args: (right) => (right ? 'digest given' : 'wrong digest'),
  verb: (right) => (right ? 'approve, with the action_digest it announced,' : 'approve, with a wrong action_digest,'),
  applies: (r) => r.digest !== undefined,
  async act(r, model, { ctx }, right) {
    const wasParked = knownParked(r);
    model.approvesSent += 1;
    const res = await sendApprove(ctx, model, r, right ? r.digest! : tampered(r.digest!), `approve run ${r.label}${right ? '' : ' (wrong digest)'}`);
    // The answer to a wrong digest is not shown; what counts is that the run does not resume (judged on its stream).
    if (right) seeApprove(ctx, r, answer(res), wasParked, `step ${model.step}`);
    else r.wrongDigestSent = true;
  },
};

/**
 * Reads the run from the start; once it shows the terminal event, also resumes after it: nothing
 * may follow a terminal event, whatever was sent to the run since.
 */
async function readAndProbe(ctx: CheckContext, model: RunsModel, r: RunModel, what: string): Promise<void> {
  const s = await readStream(ctx, r, model, `events of run ${r.label} from the start`);
  seeStream(ctx, model, r, s, -1, `step ${model.step}: ${what}`);
  const end = r.log.terminalAt();
  const id = end >= 0 ? r.log.events[end]!.id : undefined;
  if (id === undefined) return;
  model.resumesSent += 1;
  const after = await readStream(ctx, r, model, `resume run ${r.label} after its terminal event`, id);
  seeStream(ctx, model, r, after, end, `step ${model.step}: resuming run ${r.label} after its terminal event (sequence ${id})`);
}

const readAll: PickAction<RunsModel, RunModel> = {
  name: 'readEvents',
  verb: 'read the events (from the start, then after the terminal event) of',
  act: (r, model, { ctx }) => readAndProbe(ctx, model, r, `the stream of run ${r.label} from the start`),
};

async function resume(r: RunModel, model: RunsModel, { ctx }: Real, after: number, id: string): Promise<void> {
  model.resumesSent += 1;
  const s = await readStream(ctx, r, model, `resume run ${r.label} after sequence ${id}`, id);
  seeStream(ctx, model, r, s, after, `step ${model.step}: resuming run ${r.label} after sequence ${id}`);
}

type RaceOp = 'cancel' | 'approve' | 'replay';

/** Every answer of a race must be one some order allows. */
function race(r: RunModel, model: RunsModel, drawn: readonly RaceOp[], { ctx }: Real): RacePlan<RaceOp> {
  const ops = drawn.filter((op) => op !== 'approve' || r.digest !== undefined);
  const wasParked = knownParked(r);
  const finishedBefore = mayHaveFinished(r);
  return {
    ops,
    send(op, _i, label) {
      if (op === 'cancel') return sendCancel(ctx, r, label);
      if (op === 'approve') {
        model.approvesSent += 1;
        return sendApprove(ctx, model, r, r.digest!, label);
      }
      return postExecute(ctx, r.body, { key: r.key, label });
    },
    async judge(answers) {
      let cancelTaken = false;
      answers.forEach((res, i) => {
        const op = ops[i]!;
        const where = `step ${model.step}, ${op} #${i + 1}`;
        const a = answer(res);
        if (op === 'replay') seeReplay(ctx, r, a, where);
        else if (op === 'cancel') {
          // Any cancel may be refused (refusesCancel): the run parked, or another operation of the race having finished it.
          ctx.expect(a.status === 200 || refusesCancel(a), `${where}: cancelling run ${r.label} answered ${summary(a)}, expected 200 or a refusal of the cancel (a 4xx but 401, 403, 404, 405, 429)`);
          if (refusesCancel(a)) noteRefusal(ctx, r, a, finishedBefore || ops.filter((o) => o !== 'replay').length > 1);
          else cancelTaken = true;
        } else {
          // A cancel of the same race may have ended the parking first.
          const alone = ops.filter((o) => o !== 'replay').length === 1;
          ctx.expect(a.status === 200 || !wasParked || !alone, `${where}: approving parked run ${r.label} answered ${summary(a)}, expected 200`);
          if (a.status === 200) r.approved = true;
        }
      });
      if (cancelTaken) r.cancelSent = true;
      await readAndProbe(ctx, model, r, `the stream of run ${r.label} after the race`);
    },
  };
}

export function runCommands(): Array<fc.Arbitrary<Command<RunsModel>>> {
  const twice = <T>(a: T): T[] => [a, a];
  return [
    making(runs, start, ['parks', 'parks', 'completes']),
    picking(runs, replay),
    picking(runs, conflict),
    picking(runs, get),
    ...twice(picking(runs, cancel)),
    ...twice(pickingWith(runs, fc.boolean(), approve)),
    ...twice(picking(runs, readAll)),
    ...twice(resuming(runs, resume)),
    pauses<RunsModel>(),
    racing(runs, ['cancel', 'approve', 'replay'], race),
  ];
}

/** Every sequence starts with a parked run, read once, so generated steps have something to act on. */
export function runsStart(): Array<ModelCommand<RunsModel>> {
  return [make(runs, start, 'parks'), pickOne(runs, readAll, 0)];
}

export function runsModel(ctx: CheckContext): RunsModel {
  const tasks = ctx.profile.fixtures.v1.tasks;
  const approval = ctx.profile.fixtures.v1.approval;
  if (!approval) ctx.untestable(APPROVAL_MISSING);
  const fixtures: RunsModel['fixtures'] = { parks: taskBody(ctx, 'parks') };
  if (tasks.completes) fixtures.completes = taskBody(ctx, 'completes');
  return { fixtures, approval: { event: approval.event, digestField: approval.digestField, decision: approval.approveDecision }, terminal: terminalKinds(ctx), runs: [], step: 0, approvesSent: 0, resumesSent: 0 };
}

/**
 * The rule promises approvals ("run is parked awaiting approval | the resume is delivered and
 * confirmed"); an approve is sent only for a digest read where the profile says a parked run shows it.
 */
export function runsPromised(ctx: CheckContext): NonNullable<ModelSpec<RunsModel>['promised']> {
  const approval = ctx.profile.fixtures.v1.approval;
  const where = approval ? `a ${approval.event} event with a string at ${approval.digestField}` : 'the approval event';
  return [
    { what: 'approve', done: (model) => model.approvesSent > 0, why: `no run's stream showed ${where} (fixtures.v1.approval), so no approve was sent: check the fixture` },
    { what: 'resume', done: (model) => model.resumesSent > 0, why: "no run's stream was resumed with Last-Event-ID: no event the sequences read carried an SSE id to resume after (v1.runs.events.resume judges that), or they ended before a resume" },
  ];
}

/** Cancels what a sequence left parked or in flight. */
export async function cancelLeftovers(model: RunsModel, { ctx }: Real): Promise<void> {
  for (const r of model.runs) {
    if (r.cancelSent || r.log.terminalAt() >= 0) continue;
    await sendCancel(ctx, r, `cleanup: cancel run ${r.label}`);
  }
}
