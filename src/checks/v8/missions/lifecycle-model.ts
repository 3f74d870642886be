/**
 * A model of /v8 missions as the seeds describe them: not one choice of a server, but the set of
 * answers the seeds allow after everything a sequence did. Each command sends its requests and
 * judges every answer against that set, then narrows the model with what it learnt.
 */
import fc from 'fast-check';
import { missionProjection, TERMINAL_EVENT_STATUS, TERMINAL_STATUSES, type MissionStatus } from '../../../contract/v8/missions.ts';
import type { CheckContext, ProbeResponse, StreamResponse } from '../../../rule/index.ts';
import type { MissionRequest } from '../../../profile/schema.ts';
import { accepted, answer, sameAnswer, summary, type Answer } from '../../stateful/answers.ts';
import { EventLog } from '../../stateful/event-log.ts';
import { headersMs, make, making, pickOne, picking, racing, readEvents, resuming, type Command, type MakeAction, type PickAction, type RacePlan, type Things } from '../../stateful/commands.ts';
import { pauses, type ModelCommand, type Real } from '../../stateful/driver.ts';
import { uuidv7 } from '../../../util/uuid.ts';
import { isRecord } from '../../../util/json.ts';
import { oneTerminalCase } from '../../../traffic/answer-cases.ts';
import { getMission, isTerminalEvent, MISSIONS, newKey, postMission, writer } from '../support/missions.ts';

/**
 * The fixtures a sequence creates missions from: `waits` stays waiting until cancelled or signalled
 * ("Transitions out of `waiting` (for example on receipt of a signal): not shown"), `succeeds` ends by itself.
 */
export type ModelFixture = 'waits' | 'succeeds';

interface MissionModel {
  label: string;
  fixture: ModelFixture;
  runId: string;
  key: string;
  body: MissionRequest;
  original: Answer;
  /** The latest projection read, and where. */
  sequence: number;
  status: MissionStatus;
  seenAt: string;
  /** Known to have ended: from a projection, a terminal event, or a refusal while no cancel was accepted. */
  terminal?: { status: MissionStatus | 'terminal'; how: string };
  /**
   * A cancel was accepted. Until a projection or terminal event shows the end, the mission may still
   * be ending ("Cancel request body and response body: not shown": a cancel may complete later), so
   * a refusal after it says "ended or ending", not "ended".
   */
  cancelRequested: boolean;
  /** A signal was accepted (200): after it a `waits` mission may leave `waiting` and end any way. */
  signalled: boolean;
  log: EventLog;
  signals: Array<{ key: string; body: unknown; answer: Answer }>;
  cancels: Array<{ key: string; answer: Answer }>;
}

export interface MissionsModel {
  fixtures: Partial<Record<ModelFixture, MissionRequest>>;
  missions: MissionModel[];
  step: number;
}

function isTerminalStatus(status: string): status is MissionStatus {
  return (TERMINAL_STATUSES as readonly string[]).includes(status);
}

// ---- what the model learns, and the answers it allows ----

/** The mission is known to have ended in `status`; a second, different ending is a violation. */
function learnTerminal(ctx: CheckContext, m: MissionModel, status: MissionStatus, how: string): void {
  if (m.terminal && m.terminal.status !== 'terminal') {
    ctx.expect(m.terminal.status === status, `mission ${m.label} ended ${m.terminal.status} (${m.terminal.how}) and now ${status} (${how}): the terminal event matches the status read back, and terminal states absorb`);
    return;
  }
  if (m.fixture === 'waits' && !m.signalled) {
    ctx.expect(m.cancelRequested, `mission ${m.label} (fixture "waits", which stays waiting until cancelled) ended ${status} (${how}) though nothing cancelled it`);
    ctx.expect(status === 'cancelled', `mission ${m.label} was cancelled while waiting and ended ${status} (${how}): cancel leads to cancelled`);
  }
  m.terminal = { status, how };
}

/** Judges a projection from create or get against everything known of the mission. */
function seeProjection(ctx: CheckContext, model: MissionsModel, m: MissionModel, json: unknown, where: string): void {
  const p = ctx.expectShape(missionProjection, json, `the projection of mission ${m.label} (${where})`);
  ctx.expect(p.runId === m.runId, `${where} returned runId ${p.runId}, not mission ${m.label}'s ${m.runId}`);
  ctx.expect(p.sequence >= m.sequence, `${where}: mission ${m.label} reads sequence ${p.sequence} (${p.status}), lower than ${m.sequence} (${m.status}) read at ${m.seenAt}: sequence never decreases`);
  if (p.status !== m.status) {
    ctx.expect(p.sequence > m.sequence, `${where}: mission ${m.label} moved ${m.status} -> ${p.status} but its sequence stayed ${p.sequence}: a later state carries a higher sequence`);
  }
  if (m.terminal) {
    const was = m.terminal.status === 'terminal' ? 'terminal' : m.terminal.status;
    ctx.expect(isTerminalStatus(p.status) && (m.terminal.status === 'terminal' || p.status === m.terminal.status), `${where}: mission ${m.label} reads ${p.status}, but it was ${was} (${m.terminal.how}): terminal states absorb`);
  }
  if (isTerminalStatus(p.status)) learnTerminal(ctx, m, p.status, where);
  m.sequence = p.sequence;
  m.status = p.status;
  m.seenAt = `step ${model.step}`;
}

/**
 * Judges a signal answer: 409 once terminal, else 200 or 409. A 409 before any accepted cancel says
 * the mission ended; after one it may say the mission is ending, so it teaches nothing.
 */
function seeSignal(ctx: CheckContext, model: MissionsModel, m: MissionModel, a: Answer, where: string): void {
  if (m.terminal) {
    ctx.expect(a.status === 409, `${where}: a signal to mission ${m.label}, which ended (${m.terminal.how}), answered ${summary(a)}: a terminal mission answers 409`);
    return;
  }
  ctx.expect(a.status === 200 || a.status === 409, `${where}: a signal to mission ${m.label} answered ${summary(a)}, expected 200 (recorded) or 409 (terminal)`);
  if (a.status === 200) m.signalled = true;
  if (a.status === 409 && !m.cancelRequested) m.terminal = { status: 'terminal', how: `a signal answered 409 at step ${model.step}` };
}

/** Whether the mission may have ended by now, as far as the model knows. */
function mayHaveEnded(m: MissionModel): boolean {
  return m.terminal !== undefined || m.cancelRequested || m.signalled || m.fixture !== 'waits';
}

/**
 * Judges a cancel answer. "Cancel request body and response body: not shown", the cancel row says
 * "see note" and the Errors table has no cancel row: any 2xx accepts, and a mission that ended may
 * be refused with any 4xx problem. Auth, not-found, method and rate-limit answers (401, 403, 404, 405,
 * 429) say something else than "it ended" (as v1.runs.lifecycle.model reads a refused cancel).
 */
function seeCancel(ctx: CheckContext, model: MissionsModel, m: MissionModel, a: Answer, where: string): void {
  if (a.status >= 200 && a.status < 300) {
    m.cancelRequested = true;
    return;
  }
  const refused = a.status >= 400 && a.status < 500 && ![401, 403, 404, 405, 429].includes(a.status) && isRecord(a.json);
  ctx.expect(refused, `${where}: cancelling mission ${m.label} answered ${summary(a)}, expected a 2xx (or a 4xx problem for an ended mission)`);
  if (!refused) return;
  ctx.observe('cancel of an ended mission refused with status', a.status, 'no status is shown for it');
  // A refusal before any accepted cancel says the mission had ended: later reads must agree (terminal states absorb).
  if (!m.terminal && !m.cancelRequested) m.terminal = { status: 'terminal', how: `a cancel answered ${a.status} at step ${model.step}` };
}

function seeReplay(ctx: CheckContext, m: MissionModel, a: Answer, where: string): void {
  ctx.expect(sameAnswer(a, m.original), `${where}: replaying the create of mission ${m.label} (same key, same body) answered ${summary(a)}, but the original answer was ${summary(m.original)}: a replay returns the original response`);
}

/** Judges one read of the stream (from the start when `after` is -1) and merges it into the mission's log. */
function seeStream(ctx: CheckContext, model: MissionsModel, m: MissionModel, s: StreamResponse | undefined, after: number, what: string): void {
  if (!s) return;
  ctx.expect(s.status === 200, `${what} answered ${s.status}, expected 200`);
  const kinds = s.events.map((e) => e.event);
  const first = kinds.findIndex((k) => isTerminalEvent(k));
  const cursorWasTerminal = after >= 0 && isTerminalEvent(m.log.events[after]?.kind);
  if (!cursorWasTerminal) {
    // "The stream closes after a terminal event" (not right after): informational events may follow, never another terminal one.
    const once = oneTerminalCase(s.events, isTerminalEvent);
    ctx.expect(once?.ok !== false, `${what}: ${once?.why ?? ''}`);
  }
  const wrong = m.log.merge(s.events, after, s.end, what);
  ctx.expect(wrong === undefined, wrong ?? '');
  if (first >= 0 && !cursorWasTerminal) learnTerminal(ctx, m, TERMINAL_EVENT_STATUS[kinds[first]!]!, `${kinds[first]} in ${what}`);
  const terminalAt = m.log.terminalAt();
  const terminalAtOrBeforeCursor = terminalAt >= 0 && terminalAt <= after;
  if (m.terminal && first === -1 && s.end === 'server' && !terminalAtOrBeforeCursor) {
    ctx.fail(`${what}: mission ${m.label} ended (${m.terminal.how}), yet the server closed the stream without a terminal event after the cursor: a resume neither repeats nor skips`);
  }
  m.seenAt = `step ${model.step}`;
}

// ---- requests ----

/**
 * Reads a mission's stream for a moment (a mission that has not ended keeps it open): undefined
 * when no headers came in time while it is not known to have ended (`readEvents`).
 */
function readStream(ctx: CheckContext, m: MissionModel, label: string, lastEventId?: string): Promise<StreamResponse | undefined> {
  const path = `${MISSIONS}/${encodeURIComponent(m.runId)}/events`;
  return readEvents(ctx, { path, credential: writer(ctx), label }, (event) => isTerminalEvent(event.event), m.terminal !== undefined, lastEventId);
}

function sendSignal(ctx: CheckContext, m: MissionModel, key: string, body: unknown, label: string): Promise<ProbeResponse> {
  return ctx.http.send({ method: 'POST', path: `${MISSIONS}/${encodeURIComponent(m.runId)}/signals`, credential: writer(ctx), headers: { 'idempotency-key': key }, json: body, label });
}

function sendCancel(ctx: CheckContext, m: MissionModel, key: string, label: string): Promise<ProbeResponse> {
  return ctx.http.send({ method: 'POST', path: `${MISSIONS}/${encodeURIComponent(m.runId)}/cancel`, credential: writer(ctx), headers: { 'idempotency-key': key }, label });
}

// ---- commands: what each sends, and what it judges and learns ----

const missions: Things<MissionsModel, MissionModel> = { noun: 'mission', items: (model) => model.missions };

const create: MakeAction<MissionsModel, ModelFixture> = {
  name: 'create',
  has: (model, fixture) => model.fixtures[fixture] !== undefined,
  async act(model, { ctx, transcript }, label, fixture) {
    transcript.retitle(`create mission ${label} from fixture "${fixture}" with a new Idempotency-Key`);
    const body = structuredClone(model.fixtures[fixture]!);
    const key = newKey();
    const res = await postMission(ctx, body, { key, label: `create mission ${label}` });
    ctx.expect(res.status === 202, `creating mission ${label} from fixture "${fixture}" answered ${summary(answer(res))}, expected 202`);
    const p = ctx.expectShape(missionProjection, res.json, `the create response of mission ${label}`);
    ctx.expect(p.steps.length === 0, `the create response of mission ${label} lists ${p.steps.length} step(s): the projection has empty steps right after creation`);
    const m: MissionModel = {
      label,
      fixture,
      runId: p.runId,
      key,
      body,
      original: answer(res),
      sequence: p.sequence,
      status: p.status,
      seenAt: `step ${model.step}`,
      cancelRequested: false,
      signalled: false,
      log: new EventLog((e) => e.event, isTerminalEvent),
      signals: [],
      cancels: [],
    };
    if (isTerminalStatus(p.status)) learnTerminal(ctx, m, p.status, 'the create response');
    model.missions.push(m);
  },
};

const replayCreate: PickAction<MissionsModel, MissionModel> = {
  name: 'replayCreate',
  verb: 'replay the create (same key, same body) of',
  async act(m, model, { ctx }) {
    const res = await postMission(ctx, m.body, { key: m.key, label: `replay the create of mission ${m.label}` });
    seeReplay(ctx, m, answer(res), `step ${model.step}`);
  },
};

const conflictCreate: PickAction<MissionsModel, MissionModel> = {
  name: 'conflictCreate',
  verb: 'reuse the create key with another body for',
  async act(m, model, { ctx }) {
    const body = { ...m.body, goalSpec: { ...m.body.goalSpec, apicertVariant: `conflict-${model.step}` } };
    const res = await postMission(ctx, body, { key: m.key, label: `the create key of mission ${m.label} with another body` });
    ctx.expect(res.status === 409, `step ${model.step}: the create key of mission ${m.label} with another body answered ${summary(answer(res))}, expected 409`);
  },
};

const get: PickAction<MissionsModel, MissionModel> = {
  name: 'get',
  verb: 'read',
  async act(m, model, { ctx }) {
    const res = await getMission(ctx, m.runId, writer(ctx), `read mission ${m.label}`);
    ctx.expect(res.status === 200, `step ${model.step}: reading mission ${m.label} answered ${summary(answer(res))}, expected 200`);
    seeProjection(ctx, model, m, res.json, `step ${model.step} (read)`);
  },
};

const signal: PickAction<MissionsModel, MissionModel> = {
  name: 'signal',
  verb: 'signal',
  async act(m, model, { ctx }) {
    const key = newKey();
    const body = { signal: 'apicert.model', payload: { step: model.step } };
    const res = await sendSignal(ctx, m, key, body, `signal mission ${m.label}`);
    seeSignal(ctx, model, m, answer(res), `step ${model.step}`);
    m.signals.push({ key, body, answer: answer(res) });
  },
};

/**
 * A replayed signal returns the original answer; to a mission that may have ended since, 409 too:
 * "Replay with the same key and the same body returns the original response" and "A signal to a
 * mission in a terminal state gives `409`" do not say which a deployment checks first.
 */
const replaySignal: PickAction<MissionsModel, MissionModel> = {
  name: 'replaySignal',
  verb: 'replay the last accepted signal (same key, same body) of',
  applies: (m) => m.signals.some(accepted),
  async act(m, model, { ctx }) {
    const original = m.signals.filter(accepted).at(-1)!;
    const res = await sendSignal(ctx, m, original.key, original.body, `replay a signal of mission ${m.label}`);
    const ended = mayHaveEnded(m);
    ctx.expect(
      sameAnswer(answer(res), original.answer) || (ended && res.status === 409),
      `step ${model.step}: replaying a signal of mission ${m.label} answered ${summary(answer(res))}, the original ${summary(original.answer)}: a replay returns the original response${ended ? ' (or 409, the mission may have ended)' : ''}`,
    );
    if (res.status === 409) ctx.observe('a replayed signal to a mission that may have ended answered', 409, 'the terminal state checked before the idempotency record');
  },
};

const cancel: PickAction<MissionsModel, MissionModel> = {
  name: 'cancel',
  verb: 'cancel',
  async act(m, model, { ctx }) {
    const key = newKey();
    const res = await sendCancel(ctx, m, key, `cancel mission ${m.label}`);
    seeCancel(ctx, model, m, answer(res), `step ${model.step}`);
    m.cancels.push({ key, answer: answer(res) });
  },
};

const replayCancel: PickAction<MissionsModel, MissionModel> = {
  name: 'replayCancel',
  verb: 'replay the last accepted cancel (same key) of',
  applies: (m) => m.cancels.some(accepted),
  async act(m, model, { ctx }) {
    const original = m.cancels.filter(accepted).at(-1)!;
    const res = await sendCancel(ctx, m, original.key, `replay the cancel of mission ${m.label}`);
    ctx.expect(sameAnswer(answer(res), original.answer), `step ${model.step}: replaying the cancel of mission ${m.label} answered ${summary(answer(res))}, the original ${summary(original.answer)}: a replay returns the original response`);
  },
};

const readAll: PickAction<MissionsModel, MissionModel> = {
  name: 'readEvents',
  verb: 'read the events from the start of',
  async act(m, model, { ctx }) {
    const s = await readStream(ctx, m, `events of mission ${m.label} from the start`);
    seeStream(ctx, model, m, s, -1, `step ${model.step}: the stream of mission ${m.label} from the start`);
  },
};

async function resume(m: MissionModel, model: MissionsModel, { ctx }: Real, after: number, id: string): Promise<void> {
  const s = await readStream(ctx, m, `resume mission ${m.label} after event #${after + 1}`, id);
  if (s?.status === 409) {
    // "Size or duration of the replay window: not shown": any cursor may have left it.
    ctx.observe('resume answered 409 (outside the replay window)', { eventNumber: after + 1 });
    ctx.expect(true, 'a 409 is an answer the seeds allow for any cursor');
    return;
  }
  seeStream(ctx, model, m, s, after, `step ${model.step}: resuming mission ${m.label} after event #${after + 1}`);
}

/**
 * "A `Last-Event-ID` outside the window gives `409`": with the profile's stale cursor
 * (`fixtures.v8.staleEventCursor`) exactly 409, as v8.missions.events.replay-window-409 judges it;
 * without it a cursor never issued, which says nothing of a value that is no cursor at all: 400
 * refuses it as malformed.
 */
const resumeOutside: PickAction<MissionsModel, MissionModel> = {
  name: 'resumeOutside',
  verb: 'resume with a cursor outside the replay window',
  async act(m, model, { ctx }) {
    const stale = ctx.profile.fixtures.v8.staleEventCursor;
    const cursor = stale ?? `${m.log.events.at(-1)?.id ?? 'apicert'}-never-issued-${uuidv7().slice(-12)}`;
    const which = stale !== undefined ? 'the profile\'s stale cursor (fixtures.v8.staleEventCursor)' : 'a cursor it never issued';
    const s = await readStream(ctx, m, `resume mission ${m.label} from ${stale !== undefined ? 'the stale cursor' : 'a cursor never issued'}`, cursor);
    const allowed = stale !== undefined ? s?.status === 409 : s?.status === 409 || s?.status === 400;
    const expected = stale !== undefined ? 'expected 409 (outside the replay window)' : 'expected 409 (outside the replay window) or 400 (no cursor)';
    ctx.expect(allowed, `step ${model.step}: resuming mission ${m.label} from ${which} answered ${s ? s.status : `nothing within ${headersMs(ctx)} ms`}, ${expected}`);
    if (s && stale === undefined) ctx.observe('a cursor never issued answered', s.status);
  },
};

type RaceOp = 'cancel' | 'signal' | 'replay-create';

/**
 * The indexes of a race's answers in the order they are judged: replays (they change nothing),
 * accepted signals, accepted cancels, then refusals. Any other order would read a refusal caused
 * by an accepted operation of the same race as news that the mission had ended before it.
 */
export function serialization(ops: readonly RaceOp[], answers: ReadonlyArray<{ status: number }>): number[] {
  const rank = (i: number): number => {
    const ok = answers[i]!.status >= 200 && answers[i]!.status < 300;
    if (ops[i] === 'replay-create') return 0;
    if (!ok) return 3;
    return ops[i] === 'signal' ? 1 : 2;
  };
  return ops.map((_, i) => i).sort((x, y) => rank(x) - rank(y) || x - y);
}

/** Each answer of a race must be one some order allows, and the stream read afterwards must still tell one consistent story. */
function race(m: MissionModel, model: MissionsModel, ops: readonly RaceOp[], { ctx }: Real): RacePlan<RaceOp> {
  return {
    ops: [...ops],
    send(op, i, label) {
      if (op === 'cancel') return sendCancel(ctx, m, newKey(), label);
      if (op === 'signal') return sendSignal(ctx, m, newKey(), { signal: 'apicert.race', payload: { i } }, label);
      return postMission(ctx, m.body, { key: m.key, label });
    },
    async judge(answers) {
      // The target saw the operations in some order the answers do not tell: judge them in the one
      // order that explains most, accepted ones first (a signal while the mission ran, then a cancel
      // it took), refusals last (each may be due to an operation of the race accepted before it).
      for (const i of serialization(ops, answers)) {
        const op = ops[i]!;
        const a = answer(answers[i]!);
        const where = `step ${model.step}, ${op} #${i + 1} (racing ${ops.join(' + ')})`;
        if (op === 'cancel') seeCancel(ctx, model, m, a, where);
        else if (op === 'replay-create') seeReplay(ctx, m, a, where);
        else seeSignal(ctx, model, m, a, where);
      }
      const stream = await readStream(ctx, m, `events of mission ${m.label} after the race`);
      seeStream(ctx, model, m, stream, -1, `step ${model.step}: the stream of mission ${m.label} after the race`);
    },
  };
}

/** The command arbitraries, weighted so that sequences reach the interesting states within a dozen steps. */
export function missionCommands(): Array<fc.Arbitrary<Command<MissionsModel>>> {
  const twice = <T>(a: T): T[] => [a, a];
  return [
    making(missions, create, ['waits', 'waits', 'succeeds']),
    picking(missions, replayCreate),
    picking(missions, conflictCreate),
    ...twice(picking(missions, get)),
    ...twice(picking(missions, signal)),
    picking(missions, replaySignal),
    ...twice(picking(missions, cancel)),
    picking(missions, replayCancel),
    ...twice(picking(missions, readAll)),
    ...twice(resuming(missions, resume)),
    picking(missions, resumeOutside),
    pauses<MissionsModel>(),
    // Cancels dominate races: overlapping cancels, and a cancel overtaking a signal, are where sequences break.
    ...twice(racing(missions, ['cancel', 'cancel', 'signal', 'replay-create'], race)),
  ];
}

/** Every sequence starts with a waiting mission, read once, so generated steps have something to act on. */
export function missionsStart(): Array<ModelCommand<MissionsModel>> {
  return [make(missions, create, 'waits'), pickOne(missions, readAll, 0)];
}

export function missionsModel(ctx: CheckContext): MissionsModel {
  const fixtures = ctx.profile.fixtures.v8.missions;
  if (!fixtures.waits) ctx.untestable({ need: 'fixture', path: 'v8.missions.waits', remedy: 'give a create body for a mission that stays waiting until cancelled' });
  const chosen: MissionsModel['fixtures'] = { waits: fixtures.waits };
  if (fixtures.succeeds) chosen.succeeds = fixtures.succeeds;
  return { fixtures: chosen, missions: [], step: 0 };
}

/** Cancels what a sequence left running, so missions do not pile up on the target. */
export async function cancelLeftovers(model: MissionsModel, { ctx }: Real): Promise<void> {
  for (const m of model.missions) {
    if (m.terminal || m.cancelRequested) continue;
    await sendCancel(ctx, m, newKey(), `cleanup: cancel mission ${m.label}`);
  }
}
