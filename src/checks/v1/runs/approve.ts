/** POST /v1/runs/{id}/approve: a parked run resumes, and only with the digest of the proposed action. */
import { type CheckContext, type Exchange, type Judge, type Prerequisite, section, type ProbeResponse, type SseEvent, type StreamEnd, TransportError } from '../../../rule/index.ts';
import { approveRequest, CANCELLED, openObject } from '../../../contract/v1/runs.ts';
import { RUN_FAILED } from '../../../contract/v1/event-kinds.ts';
import { dataOf, eventsOf, idAfter, openWireForm, operation, parsedAs, recordOf, requestJson, responseJson, startsAfterEnd, wholeBody } from '../../../traffic/read.ts';
import { admittedCaller, kindOf, limiterRefused, endsRun, terminalKindsOf } from '../support/traffic.ts';
import { isRecord } from '../../../util/json.ts';
import { eventData, eventKind, followRun, primaryKey, problemCode, runPath, startRun, terminalKinds, type FollowOptions } from '../support/fabric.ts';

const rule = section({ destructive: 'mutate', surface: 'v1', document: 'v1-execution-fabric.md', needs: { credentials: ['v1:key'], fixtures: ['v1.approval', 'v1.tasks.parks'] } });

export interface ParkedRun {
  runId: string;
  digest: string;
  /** The SSE id of the event that announced the parked action: resume reads start after it (`resumeCursor`). */
  cursor: string | undefined;
  decision: string;
}

export function readPath(value: unknown, path: string): unknown {
  let node = value;
  for (const part of path.split('.')) node = isRecord(node) ? node[part] : undefined;
  return node;
}

/** The spec does not show where a parked run exposes its action_digest: the profile says (fixtures.v1.approval). */
export const APPROVAL_MISSING: Prerequisite = { need: 'fixture', path: 'v1.approval', remedy: 'the spec does not show where a parked run exposes its action_digest: give the event kind and digestField for this deployment' };

/** Starts the `parks` run and reads its digest where the profile says the target exposes it. */
export async function parkedRun(ctx: CheckContext): Promise<ParkedRun> {
  const where = ctx.profile.fixtures.v1.approval;
  if (!where) {
    ctx.untestable(APPROVAL_MISSING);
  }
  const runId = await startRun(ctx, 'parks');
  let found: SseEvent | undefined;
  const stream = await followRun(ctx, runId, {
    label: `follow the parked run until ${where.event}`,
    maxMs: 10_000,
    onEvent: (e) => {
      if (eventKind(e) !== where.event) return undefined;
      found = e;
      return 'disconnect';
    },
  });
  if (!found) ctx.inconclusive(`setup failed: the "parks" run sent no ${where.event} event (events: ${stream.events.map(eventKind).join(', ') || 'none'})`);
  const digest = readPath(eventData(found), where.digestField);
  if (typeof digest !== 'string' || digest.length === 0) ctx.inconclusive(`setup failed: the ${where.event} event has no string at ${where.digestField} (fixtures.v1.approval.digestField)`);
  return { runId, digest, cursor: found.id === '' ? undefined : found.id, decision: where.approveDecision };
}

/**
 * Where a rule that reads what followed the parked event resumes the run's stream: after the parked event's
 * SSE id. That every run event carries its sequence as SSE id is v1.runs.events.resume's one judgement
 * ("Resume: `Last-Event-ID` carries the `sequence` value of the stored run event."): without one the rule
 * is inconclusive, naming that rule, and does not leave the run parked.
 */
export async function resumeCursor(ctx: CheckContext, parked: ParkedRun): Promise<string> {
  if (parked.cursor !== undefined) return parked.cursor;
  await ctx.http.send({ method: 'POST', path: runPath(parked.runId, '/cancel'), credential: primaryKey(ctx), label: 'cleanup: cancel the parked run' });
  ctx.inconclusive(`the ${ctx.profile.fixtures.v1.approval?.event ?? 'parked'} event carries no SSE id, so the run's stream could not be resumed after it with Last-Event-ID to read what followed (v1.runs.events.resume judges that)`);
}

export function postApprove(ctx: CheckContext, runId: string, body: unknown, label: string): Promise<ProbeResponse> {
  return ctx.http.send({ method: 'POST', path: runPath(runId, '/approve'), credential: primaryKey(ctx), json: body, label });
}

export const approveResumes = rule({
  id: 'v1.runs.approve.resumes',
  title: 'Approving a parked run with its action_digest answers 200 with a JSON object and the run resumes',
  level: 'required',
  activeOnly: "needs the parked run's digest where the profile says it is exposed, and what the run sent while parked before the approval",
  spec: {
    section: 'States and transitions; Endpoints',
    quote: 'run is parked awaiting approval | the resume is delivered and confirmed; the response is `200` … `200` JSON object with open properties',
  },
  async check(ctx) {
    const parked = await parkedRun(ctx);
    const cursor = await resumeCursor(ctx, parked);
    // Event kinds beyond the known ones are not shown: a parked run may keep sending some. Only a
    // kind it did not send while parked shows that it resumed. Known limit: one it sends at a longer
    // interval than the read before the approve (v1.runs/parked-reminders) would pass a run that never
    // resumed; digest-binds, which must not fail a legal run, judges by how the run ended instead.
    // The deployment's own bound, where its profile declares one; apicert's patience otherwise.
    const declared = ctx.profile.fixtures.v1.approval?.resumesWithinMs;
    const watchMs = declared ?? ctx.profile.safety.approvalWatchMs;
    const idle = await watchParked(ctx, parked.runId, cursor, 'events while parked, before the approval', ctx.profile.safety.approvalWatchMs);
    const idleKinds = new Set(idle.events.map(eventKind));
    const res = await postApprove(ctx, parked.runId, { action_digest: parked.digest, decision: parked.decision }, 'approve with the digest of the proposed action');
    ctx.check(res.status === 200, `approving the parked run answered ${res.status} ${problemCode(res) ?? ''}, expected 200`);
    ctx.observe('approve response', ctx.checkShape(openObject, res.json, 'the approve response') ?? null);
    // The first kind it did not send while parked shows the resume: the watch ends there, so a long one costs a resuming run nothing.
    const after = await watchRun(ctx, parked.runId, { lastEventId: cursor, label: 'events after the approval', maxMs: watchMs, onEvent: (e) => (idleKinds.has(eventKind(e)) ? undefined : 'disconnect') });
    const kinds = after.events.map(eventKind);
    ctx.observe('events after the approval', kinds);
    if (kinds.some((k) => !idleKinds.has(k))) return;
    // Watched for the whole bound the deployment declares: its own promise is broken.
    if (declared !== undefined && after.end === 'timeout') {
      ctx.fail(`no event but those sent while parked (${[...idleKinds].join(', ') || 'none'}) followed the approval within ${declared} ms${after.headless === undefined ? '' : ` (the server sent not even the stream's response headers for ${after.headless} ms)`}, the time its profile declares an approved run resumes in (fixtures.v1.approval.resumesWithinMs): the run did not resume`);
    }
    ctx.inconclusive(undecided(`no event but those sent while parked (${[...idleKinds].join(', ') || 'none'}) followed the approval`, after, watchMs));
  },
});

/**
 * What a parked run sends while parked, read for the same watch as what follows an approve: a read
 * shorter than the time a loaded deployment takes to replay its stored events would take a kind sent
 * while parked for a sign of the resume (a wrong digest "resumed" it).
 */
function watchParked(ctx: CheckContext, runId: string, cursor: string, label: string, watchMs: number): Promise<Watched> {
  return watchRun(ctx, runId, { lastEventId: cursor, label, maxMs: Math.min(watchMs, IDLE_READ_MS) });
}

/** What a watch of a parked run's stream showed; `headless`, how long the server sent not even the stream's head (then no event came). */
interface Watched {
  events: readonly SseEvent[];
  end: StreamEnd;
  headless?: number;
}

/**
 * Watches a parked run's stream (after its parked event) for `maxMs`. A parked run has nothing to send,
 * and a server may send a stream's head only with its first byte (Node's default for a body written
 * later, as Koa's `ctx.body = new PassThrough()`): no head within the watch is no event within it, what
 * the watch is for, not a transport failure. The head is waited for at least a request's time
 * (safety.requestTimeoutMs), as any answer's is, and for the whole watch.
 */
async function watchRun(ctx: CheckContext, runId: string, options: FollowOptions & { maxMs: number }): Promise<Watched> {
  const headMs = Math.max(options.maxMs, ctx.profile.safety.requestTimeoutMs);
  try {
    return await followRun(ctx, runId, { ...options, timeoutMs: headMs });
  } catch (error) {
    if (!(error instanceof TransportError && /HEADERS_TIMEOUT|Headers Timeout/i.test(error.message))) throw error;
    ctx.observe(`${options.label ?? 'a read of the parked run'}: no response headers`, `none within ${headMs} ms: the server sent not even the stream's head, as one that sends it with its first event does while the run sends none`);
    return { events: [], end: 'timeout', headless: headMs };
  }
}

/** The most a read of a parked run's idle events lasts: ample for a loaded deployment to replay what it stored, whatever the watch after the approve. */
const IDLE_READ_MS = 3_000;

/**
 * Why a watch that saw nothing decisive decides nothing: the description bounds no time for "the resume
 * is delivered" (nor for what a wrong digest does), so the end of apicert's watch, or a server closing a
 * stream a later read may continue, is no evidence that nothing will come.
 */
function undecided(what: string, { end, headless }: Watched, watchMs: number): string {
  const how =
    end === 'server'
      ? 'before the server closed the stream, which a later read may continue'
      : headless !== undefined
        ? `within apicert's watch of ${headless} ms (the server sent not even the stream's response headers, which it sends with its first event)`
        : `within apicert's watch of ${watchMs} ms (the stream read ended by ${end})`;
  return `${what} ${how}; the description bounds no time for it: lengthen the watch with safety.approvalWatchMs, or declare the deployment's bound in fixtures.v1.approval.resumesWithinMs`;
}

/** The digest with its last character changed: the same format, another action. */
export function tampered(digest: string): string {
  const last = digest.at(-1)!;
  return `${digest.slice(0, -1)}${last === '0' ? '1' : '0'}`;
}

/**
 * Terminal kinds that end a run without carrying out its proposed action: request.cancelled, and
 * run.failed ("Event types named: `run.completed`, `run.failed`."). What a wrong digest does to a
 * parked run is not shown ("Transitions: not shown."): it may stay parked, or end failed.
 */
export const ENDS_WITHOUT_ACTION: ReadonlySet<string> = new Set([CANCELLED, RUN_FAILED]);

/**
 * What a parked run's events after a wrong approval show: `ended`, the terminal kind that ended it
 * without its action; `resumed`, the terminal kind that shows it went on with its action (any other).
 * A kind it had not sent before shows neither: "Event kinds beyond `request.accepted` and
 * `request.cancelled` ... not shown", so a parked run may send one of its own at any interval (a
 * reminder that it waits) without resuming; only how the run ended tells what the approval did.
 */
export function afterWrongDigest(kinds: ReadonlyArray<string | undefined>, terminal: ReadonlySet<string>): { ended?: string; resumed?: string } {
  const end = kinds.find((k) => k !== undefined && terminal.has(k));
  if (end !== undefined && ENDS_WITHOUT_ACTION.has(end)) return { ended: end };
  return end !== undefined ? { resumed: `it went on to ${end}` } : {};
}

export const digestBinds = rule({
  id: 'v1.runs.approve.digest-binds',
  title: 'An approve with a wrong action_digest does not resume the run (it may end it failed); while it stays parked, the right digest still approves it',
  level: 'required',
  activeOnly: 'needs a digest known to be wrong for a run known to be parked, then watches the run for a time',
  spec: { section: 'Resources > ApproveRequest', quote: 'binds the decision to the proposed action' },
  async check(ctx) {
    const parked = await parkedRun(ctx);
    const cursor = await resumeCursor(ctx, parked);
    const watchMs = ctx.profile.safety.approvalWatchMs;
    const wrong = await postApprove(ctx, parked.runId, { action_digest: tampered(parked.digest), decision: parked.decision }, 'approve with a wrong digest');
    ctx.observe('answer to a wrong digest', { status: wrong.status, code: problemCode(wrong) ?? null });
    const terminal = terminalKinds(ctx);
    // Read to the run's end, or for the watch: what it sends on the way decides nothing (afterWrongDigest).
    const ends = endsRun(terminal);
    const untilEnd = (e: SseEvent) => (ends(e) ? 'disconnect' : undefined);
    const after = await watchRun(ctx, parked.runId, { lastEventId: cursor, label: 'events after the wrong approval', maxMs: watchMs, onEvent: untilEnd });
    const afterKinds = after.events.map(eventKind);
    ctx.observe('events after the wrong approval', afterKinds);
    const seen = afterWrongDigest(afterKinds, terminal);
    if (!ctx.check(seen.resumed === undefined, `after an approve with a wrong digest the run resumed: ${seen.resumed}`)) return;
    // A run the wrong digest ended is parked no more: the right digest has nothing left to approve.
    if (seen.ended !== undefined) {
      ctx.observe('what a wrong digest did to the parked run', `ended it with ${seen.ended}`);
      return;
    }
    const right = await postApprove(ctx, parked.runId, { action_digest: parked.digest, decision: parked.decision }, 'approve with the right digest');
    if (right.status !== 200) {
      // The ending may have come after the first read's bound: read the run again before blaming the approve.
      const later = await watchRun(ctx, parked.runId, { lastEventId: cursor, label: 'events after the right approval was refused', maxMs: watchMs, onEvent: untilEnd });
      const since = afterWrongDigest(later.events.map(eventKind), terminal);
      if (!ctx.check(since.resumed === undefined, `after an approve with a wrong digest the run resumed: ${since.resumed}`) || since.ended !== undefined) {
        if (since.ended !== undefined) ctx.observe('what a wrong digest did to the parked run', `ended it with ${since.ended}`);
        return;
      }
      // "Transitions: not shown": the wrong digest may have ended the run, its ending not yet on the stream. Only a run shown still parked owes the 200.
      ctx.observe('answer to the right digest after the wrong one', { status: right.status, code: problemCode(right) ?? null });
      ctx.inconclusive(undecided(`the right digest answered ${right.status} ${problemCode(right) ?? ''} after the wrong one, and the run showed no ending`, later, watchMs));
    }
    ctx.observe('what a wrong digest did to the parked run', 'left it parked');
  },
});

/**
 * Walks the exchanges with, for each approve, the parked state its run showed before it: the
 * parked event (the profile's `fixtures.v1.approval.event`) on the run's stream, with its digest,
 * until an approve of that run was accepted, a cancel of it was accepted, or a read of its stream
 * showed it ended (a terminal event): a run no longer parked owes no approve its 200.
 */
function withParkedBefore(j: Judge, each: (ex: Exchange, parked: { digest: unknown; seenOn: Exchange } | undefined) => void): void {
  const where = j.profile?.fixtures.v1.approval;
  const terminal = terminalKindsOf(j.profile);
  const parked = new Map<string, { digest: unknown; seenOn: Exchange }>();
  for (const ex of j.exchanges) {
    const op = operation(ex);
    if (op === 'v1.runs.cancel') {
      if (ex.status !== undefined && ex.status >= 200 && ex.status < 300) parked.delete(idAfter(ex, '/v1/runs/')!);
      continue;
    }
    if (op !== 'v1.runs.events' && op !== 'v1.runs.approve') continue;
    // Where a parked run exposes its digest is not shown: the profile says (untestable without it, once an approve is there to judge).
    if (!where) {
      if (op === 'v1.runs.approve') j.untestable(APPROVAL_MISSING);
      continue;
    }
    const run = idAfter(ex, '/v1/runs/')!;
    if (op === 'v1.runs.events') {
      const events = eventsOf(ex) ?? [];
      const found = events.find((e) => kindOf(e) === where.event);
      if (events.some(endsRun(terminal))) parked.delete(run);
      else if (found) parked.set(run, { digest: readPath(dataOf(found), where.digestField), seenOn: ex });
      continue;
    }
    const before = parked.get(run);
    each(ex, before && startsAfterEnd(ex, before.seenOn) ? before : undefined);
    if (ex.status !== undefined && ex.status >= 200 && ex.status < 300) parked.delete(run);
  }
}

/**
 * A malformed approve may carry a second fault: its run, last shown parked, may have left that state
 * unseen ("Transitions: not shown."; an approval may time out). No sentence orders the two causes, and
 * "Mapping of each `code` to an HTTP status: not shown.": a refusal for the run's state (`conflict`)
 * is as legal as one for the body (`invalid_request`). Whether the run was parked is shown only by
 * what follows: the valid approve with its digest answered 200 (it was), or refused (it was not).
 */
const STATE_REFUSAL = 'conflict';

/** A run's malformed approves since its last valid one: those refused for the run's state, and whether the first refused one was. */
interface RefusedBodies {
  forState: Exchange[];
  firstForState: boolean;
}

export const approveRequestShape = rule({
  id: 'v1.runs.approve.request-shape',
  title: 'An approve body with an extra property or without action_digest is refused with invalid_request (or, to a run no longer parked, conflict) and approves nothing',
  level: 'required',
  spec: { section: 'Resources > ApproveRequest', quote: '### ApproveRequest (no extra properties) … | action_digest | string | yes |' },
  judgement: {
    record: "a POST /v1/runs/{id}/approve to a run its stream showed parked (fixtures.v1.approval), with a body that is no ApproveRequest, and the valid approve after it",
    judge(j) {
      const refusedBefore = new Map<string, RefusedBodies>();
      const admitted = admittedCaller(j);
      withParkedBefore(j, (ex, parked) => {
        // A caller the deployment may refuse for who it is (no key, a key lacking a scope) shows nothing of the body rule.
        if (!parked || ex.status === undefined || limiterRefused(ex) || !admitted(ex)) return;
        // A BOM, another media type, coding or charset: the deployment may take or refuse it.
        if (openWireForm(ex)) return;
        const run = idAfter(ex, '/v1/runs/')!;
        const body = requestJson(ex);
        if (!parsedAs(approveRequest, body).success) {
          const first = !refusedBefore.has(run);
          const refused = refusedBefore.get(run) ?? { forState: [], firstForState: false };
          refusedBefore.set(run, refused);
          if (!j.check(ex, ex.status >= 400 && ex.status < 500, `an approve body that is no ApproveRequest answered ${ex.status}, expected a 4xx refusal`, [parked.seenOn])) return;
          if (wholeBody(j, ex) === undefined) return;
          const code = recordOf(responseJson(ex))?.code;
          // Refused for the run's state: judged by the valid approve after it, which shows whether the run was parked.
          if (code === STATE_REFUSAL) {
            refused.forState.push(ex);
            if (first) refused.firstForState = true;
            return;
          }
          j.check(ex, code === 'invalid_request', `an approve body that is no ApproveRequest was refused with code ${JSON.stringify(code)}, expected invalid_request (or ${STATE_REFUSAL}, for a run no longer parked)`);
          return;
        }
        const refused = refusedBefore.get(run);
        refusedBefore.delete(run);
        if (!refused || recordOf(body)?.action_digest !== parked.digest) {
          for (const r of refused?.forState ?? []) j.lacks(r, `whether the run was still parked when its malformed approve was refused with ${STATE_REFUSAL}: no approve with its digest followed`);
          return;
        }
        // The run was parked: a conflict for a malformed body was not its state's, and the body owed invalid_request.
        for (const r of refused.forState) {
          j.check(r, ex.status !== 200, `an approve body that is no ApproveRequest was refused with code ${STATE_REFUSAL}, expected invalid_request: the run was parked (the valid approve after it answered 200)`, [parked.seenOn, ex]);
        }
        // The refused bodies approved nothing: the run's own digest is still accepted after them. A first refusal for the
        // run's state says it was parked no more before any of them, so none of them can have ended its parking.
        if (refused.firstForState) {
          if (ex.status !== 200) j.observe('a malformed approve to a run no longer parked refused with', STATE_REFUSAL, "no sentence orders the body's and the run's state's refusals");
          return;
        }
        j.check(ex, ex.status === 200, `after the refused bodies a valid approve answered ${ex.status}: the run was no longer parked`, [parked.seenOn]);
      });
      for (const refused of refusedBefore.values()) {
        for (const r of refused.forState) j.lacks(r, `whether the run was still parked when its malformed approve was refused with ${STATE_REFUSAL}: no approve with its digest followed`);
      }
    },
  },
  async provoke(ctx) {
    const parked = await parkedRun(ctx);
    const bad = [
      { body: { action_digest: parked.digest, decision: parked.decision, apicertExtra: true }, why: 'an extra property' },
      { body: { decision: parked.decision }, why: 'no action_digest' },
    ];
    for (const { body, why } of bad) await postApprove(ctx, parked.runId, body, `approve with ${why}`);
    await postApprove(ctx, parked.runId, { action_digest: parked.digest, decision: parked.decision }, 'approve with a valid body');
  },
});

export const approveDecisions = rule({
  id: 'v1.runs.approve.decisions',
  title: 'What the target does with decision "rejected" and with an unconventional decision',
  level: 'observation',
  activeOnly: 'an observation of decisions apicert chooses to send to a parked run',
  spec: {
    section: 'Resources > ApproveRequest',
    quote: '`approved` and `rejected` are expected by convention, unconfirmed … Format of `action_digest` and the allowed values of `decision`: not shown.',
  },
  async check(ctx) {
    const parked = await parkedRun(ctx);
    const cursor = await resumeCursor(ctx, parked);
    ctx.observe('action_digest format', /^sha256:[0-9a-f]{64}$/.test(parked.digest) ? 'sha256:<64 hex>' : `${parked.digest.length} characters`);
    const odd = await postApprove(ctx, parked.runId, { action_digest: parked.digest, decision: 'apicert-maybe' }, 'approve with decision "apicert-maybe"');
    ctx.observe('decision "apicert-maybe"', { status: odd.status, code: problemCode(odd) ?? null });
    if (odd.status >= 200 && odd.status < 300) ctx.notApplicable('the target accepted an unconventional decision, so "rejected" could not be tried on the same parked run');
    const rejected = await postApprove(ctx, parked.runId, { action_digest: parked.digest, decision: 'rejected' }, 'approve with decision "rejected"');
    ctx.expect(rejected.status > 0, 'the rejection was answered');
    const after = await watchRun(ctx, parked.runId, { lastEventId: cursor, label: 'events after the rejection', maxMs: 2_000 });
    ctx.observe('decision "rejected"', { status: rejected.status, code: problemCode(rejected) ?? null, eventsAfter: after.events.map(eventKind) });
  },
});
