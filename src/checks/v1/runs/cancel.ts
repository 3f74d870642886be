/** POST /v1/runs/{id}/cancel: a terminal request.cancelled event; cancelling is not rollback. */
import { type CheckContext, type Exchange, type Judge, section } from '../../../rule/index.ts';
import { eventsOf, idAfter, operation, parsedAs, requestJson, responseJson, startsAfterEnd, streamRead, wholeBody, type StreamRead } from '../../../traffic/read.ts';
import { canonicalJson } from '../../../util/json.ts';
import { callerOf, kindOf, endsRun, terminalKindsOf } from '../support/traffic.ts';
import { CANCELLED, openObject } from '../../../contract/v1/runs.ts';
import { eventKind, followRun, primaryKey, problemCode, runPath, startRun, terminalKinds } from '../support/fabric.ts';
import { parkedRun, postApprove } from './approve.ts';
import { withIssuedRun } from './get.ts';

const RUNS_PREFIX = '/v1/runs/';

const rule = section({ destructive: 'mutate', surface: 'v1', document: 'v1-execution-fabric.md', needs: { credentials: ['v1:key'] } });

export const cancelTerminalEvent = rule({
  id: 'v1.runs.cancel.terminal-event',
  title: "Cancelling a run in flight answers 200 and request.cancelled ends the run's stream",
  level: 'required',
  needs: { fixtures: ['v1.tasks.long'] },
  spec: {
    section: 'States and transitions; Endpoints',
    quote: "cancellation accepted | a terminal `request.cancelled` event is emitted on the run's stream … `200` JSON object with open properties",
  },
  judgement: {
    // "cancellation accepted" is the row's condition: the cancels it judges are those the deployment accepted (2xx).
    record: 'a POST /v1/runs/{id}/cancel accepted (2xx) for a run started with the profile\'s `long` task body (fixtures.v1.tasks.long) that an earlier read of its stream showed in flight, and a read of that stream from its start after the cancel',
    judge(j) {
      // A 200 to a cancel of a run that has just ended is no "cancellation accepted" (the answer's contents are not
      // shown), and a recording cannot say which came first: only runs the profile says stay in flight for
      // seconds (the `long` task) are judged.
      const long = j.profile?.fixtures.v1.tasks.long;
      const longBody = long === undefined ? undefined : canonicalJson(long);
      const bound = j.profile?.fixtures.v1.cancelledWithinMs;
      const accepted = new Map<string, Exchange>();
      const terminal = terminalKindsOf(j.profile);
      // Runs an earlier read of their stream showed in flight (events, none terminal) and none since showed ended.
      const inFlight = new Set<string>();
      // Per run, the reads after its cancel whose reader stopped before any terminal event, and the runs a read showed ended.
      const unended = new Map<string, Array<{ ex: Exchange; read: StreamRead }>>();
      const ended = new Set<string>();
      withIssuedRun(j.exchanges, (ex, issued) => {
        const op = operation(ex);
        const run = `${callerOf(ex)}\n${idAfter(ex, RUNS_PREFIX)}`;
        if (op === 'v1.runs.events' && !accepted.has(run)) {
          const seen = (eventsOf(ex) ?? []).map(kindOf);
          if (seen.some((k) => k !== undefined && terminal.has(k))) inFlight.delete(run);
          else if (seen.length > 0) inFlight.add(run);
          return;
        }
        if (op === 'v1.runs.cancel' && ex.status !== undefined && ex.status >= 200 && ex.status < 300 && inFlight.has(run)) {
          if (longBody === undefined) j.untestable({ need: 'fixture', path: 'v1.tasks.long', remedy: 'give the profile (--profile FILE) with a task-mode body for a run that stays in flight for several seconds' });
          const started = issued && requestJson(issued);
          if (started === undefined || canonicalJson(started) !== longBody) return;
          // A failure of the answer stands alone; its pass is half the case, judged with the stream that shows request.cancelled
          // (as `also`), never alone, were that stream stopped by its reader before its end.
          if (ex.status !== 200) j.check(ex, false, `an accepted cancel answered ${ex.status}, expected 200`);
          else if (wholeBody(j, ex) !== undefined && !parsedAs(openObject, responseJson(ex)).success) j.check(ex, false, 'the cancel answer is not a JSON object');
          if (!accepted.has(run)) accepted.set(run, ex);
          return;
        }
        const cancel = accepted.get(run);
        // A resume (Last-Event-ID) shows only what follows its cursor, which may be past request.cancelled already.
        if (op !== 'v1.runs.events' || ex.status !== 200 || !cancel || !startsAfterEnd(ex, cancel) || ex.requestHeaders['last-event-id'] !== undefined) return;
        const stream = streamRead(j, ex, endsRun(terminal));
        if (!stream) return;
        // A stream its reader stopped before any terminal event did not end: judged below, with the run's other reads.
        if (stream.unended !== undefined) {
          unended.set(run, [...(unended.get(run) ?? []), { ex, read: stream }]);
          return;
        }
        ended.add(run);
        // A terminal event read (request.cancelled or another) is the run's end.
        const kinds = stream.events.map(kindOf);
        const at = kinds.indexOf(CANCELLED);
        if (!j.check(ex, at !== -1, `no request.cancelled event on the run's stream after the cancel of exchange #${cancel.index} (events: ${kinds.join(', ')})`, [cancel])) return;
        j.check(ex, at === kinds.length - 1, `${kinds.length - at - 1} event(s) followed request.cancelled, which is terminal`);
        if (stream.closed !== undefined) j.check(ex, stream.closed, 'the stream stayed open after request.cancelled for the whole close grace');
      });
      for (const [run, reads] of unended) {
        // A read that showed the run's end judged it; one stopped earlier only had not seen it yet.
        if (ended.has(run)) continue;
        judgeUnended(j, accepted.get(run)!, reads, bound);
      }
    },
  },
  async provoke(ctx) {
    const runId = await startRun(ctx, 'long');
    const read = await readInFlight(ctx, runId);
    const res = await ctx.http.send({ method: 'POST', path: runPath(runId, '/cancel'), credential: primaryKey(ctx), label: 'cancel the run' });
    // Only the provoker knows the run is in flight (its read showed an event and no end): a refused cancel of it is the provocation's own verdict.
    if (res.status < 200 || res.status >= 300) ctx.fail(`cancelling a run in flight (its stream showed ${kindsText(read)}) answered ${res.status} ${problemCode(res) ?? ''}, expected 200`);
    ctx.observe('cancel response', openObject.safeParse(res.json).success ? res.json : null);
    // The deployment's own bound, where its profile declares one (a little past it: the journal's clock is the millisecond); apicert's patience otherwise.
    const bound = ctx.profile.fixtures.v1.cancelledWithinMs;
    const after = await followRun(ctx, runId, { label: "the run's stream after cancel", maxMs: bound === undefined ? ctx.profile.safety.streamTimeoutMs : bound + CLOCK_MARGIN_MS, awaitClose: true });
    const terminal = terminalKinds(ctx);
    // Past the bound with nothing: read the run once more before the judgement holds it to the bound, so a reader the machine
    // stalled past it (the answer unread in its socket) is not taken for a run that sent nothing. A run that shows its end there is judged by that read.
    if (bound !== undefined && after.end === 'timeout' && !after.events.some((e) => terminal.has(eventKind(e) ?? ''))) {
      await followRun(ctx, runId, { label: "the run's stream read again, past the declared bound", maxMs: bound, awaitClose: true });
    }
  },
});

/** How far past the declared bound the read after the cancel goes: the journal's times are whole milliseconds. */
const CLOCK_MARGIN_MS = 100;
/** The grain of the journal's times (read.ts's CLOCK_GRAIN_MS): a watch is taken as this much shorter than its times say. */
const CLOCK_GRAIN_MS = 2;

/** How long after `cancel` was answered `read` was still being read (ms), or undefined when either lacks its times. */
function watchedAfter(read: Exchange, cancel: Exchange): number | undefined {
  if (read.startedAt === undefined || read.durationMs === undefined || cancel.startedAt === undefined || cancel.durationMs === undefined) return undefined;
  return Date.parse(read.startedAt) + read.durationMs - (Date.parse(cancel.startedAt) + cancel.durationMs) - CLOCK_GRAIN_MS;
}

/**
 * A run whose reads after its accepted cancel all stopped before any terminal event. "No sentence
 * bounds the time" a request.cancelled takes: apicert's watch ending decides nothing, so they lack
 * the run's end, naming what would decide it. A deployment that declares its own bound
 * (fixtures.v1.cancelledWithinMs) is held to it: its latest read from the start, read until past the
 * bound after the cancel was answered (its reader's time bound, or its client letting go, not a size
 * bound that cut what came), showed no terminal event.
 */
function judgeUnended(j: Judge, cancel: Exchange, reads: ReadonlyArray<{ ex: Exchange; read: StreamRead }>, bound: number | undefined): void {
  const { ex, read } = reads.at(-1)!;
  const watched = watchedAfter(ex, cancel);
  const readToTheStop = ex.streamEnd === 'timeout' || ex.streamEnd === 'client-disconnect';
  if (bound !== undefined && watched !== undefined && watched >= bound && readToTheStop) {
    const kinds = read.events.map(kindOf).join(', ') || 'none';
    j.check(ex, false, `no request.cancelled (nor any terminal event) within ${bound} ms of the cancel of exchange #${cancel.index}, the time its profile declares an accepted cancel takes (fixtures.v1.cancelledWithinMs): the run's stream, read from its start until ${watched} ms after the cancel was answered, showed ${kinds}`, [cancel, ...reads.slice(0, -1).map((r) => r.ex)]);
    return;
  }
  for (const r of reads) j.lacks(r.ex, `the end of the event stream: ${r.read.unended}${undecidedBy(r.ex, watchedAfter(r.ex, cancel), bound)}`);
}

/** Why an unended read after an accepted cancel decides nothing, and what would decide it. */
function undecidedBy(ex: Exchange, watched: number | undefined, bound: number | undefined): string {
  const when = watched === undefined ? '' : `, ${Math.max(0, watched)} ms after the cancel was answered`;
  if (ex.streamEnd !== 'timeout' && ex.streamEnd !== 'client-disconnect') return `${when}: what followed the cut is unread`;
  if (bound === undefined) return `${when}; no sentence bounds how soon request.cancelled follows an accepted cancel: declare the deployment's bound in fixtures.v1.cancelledWithinMs (a run that shows no request.cancelled within it fails), or lengthen the watch with safety.streamTimeoutMs`;
  if (watched === undefined) return `; the recording keeps no time of the cancel's answer or of the stream's end to hold it to fixtures.v1.cancelledWithinMs (${bound} ms)`;
  return `${when}, short of the ${bound} ms its profile declares (fixtures.v1.cancelledWithinMs)`;
}

/** How long the read before the cancel goes on after the run's first event: what came in the same burst is read too. */
const BURST_MS = 250;
/** How long the read before the cancel waits for the run's first event once the stream's head came. */
const FIRST_EVENT_MS = 3_000;

/**
 * Reads the run's stream until it shows the run in flight (an event, none terminal), and returns the
 * kinds it read; inconclusive when it shows no such thing. A deployment may write an event stream
 * whole when it ends (an ETag middleware hashing the body, a buffering proxy): its first event then
 * arrives with the run's end, which the read keeps reading for BURST_MS after the first event, so a
 * run that had already ended is never cancelled "in flight".
 */
async function readInFlight(ctx: CheckContext, runId: string): Promise<string[]> {
  const terminal = terminalKinds(ctx);
  const started = performance.now();
  const stream = await ctx.http.stream({
    method: 'GET',
    path: runPath(runId, '/events'),
    credential: primaryKey(ctx),
    label: 'the run in flight',
    maxMs: FIRST_EVENT_MS,
    graceMs: BURST_MS,
    // 'terminal' at the first event starts the reader's BURST_MS bound (it is no terminal event); a terminal event ends the read.
    onEvent: (e, seen) => (terminal.has(eventKind(e) ?? '') ? 'disconnect' : seen.length === 1 ? 'terminal' : 'continue'),
  });
  const took = Math.round(performance.now() - started);
  if (stream.status !== 200) ctx.inconclusive(`setup failed: the read of the run before the cancel answered ${stream.status}`);
  const kinds = stream.events.map((e) => eventKind(e) ?? '(no kind)');
  if (kinds.length === 0) ctx.inconclusive(`the read of the run before the cancel showed no event (${stream.end} after ${took} ms), so the run was never shown in flight and no cancel was sent`);
  const end = kinds.find((k) => terminal.has(k));
  if (end !== undefined) {
    ctx.inconclusive(`the read of the run before the cancel showed it ended: ${kindsText(kinds)} (after ${took} ms), so no cancel of it in flight could be sent. A deployment that writes an event stream whole when it ends (an ETag middleware, a buffering proxy) never shows a run in flight; one that streams shows it only while fixtures.v1.tasks.long runs`);
  }
  return kinds;
}

/** The kinds a read showed, its first and last few when it showed many. */
function kindsText(kinds: readonly string[]): string {
  return kinds.length <= 6 ? kinds.join(', ') : `${kinds.slice(0, 3).join(', ')}, … ${kinds.slice(-2).join(', ')} (${kinds.length} events)`;
}

export const cancelNotRollback = rule({
  id: 'v1.runs.cancel.not-rollback',
  title: 'What a run reads back as when it is cancelled after an approval was committed',
  level: 'observation',
  activeOnly: 'an observation of a cancel apicert sends after an approval it committed',
  needs: { fixtures: ['v1.approval', 'v1.tasks.parks'] },
  spec: {
    section: 'What the service does',
    quote: 'Cancelling is not rollback. A durable action already committed (an approval, a connector write) needs its own status check or reconciliation.',
  },
  async check(ctx) {
    const parked = await parkedRun(ctx);
    const approved = await postApprove(ctx, parked.runId, { action_digest: parked.digest, decision: parked.decision }, 'approve (the committed action)');
    ctx.expect(approved.status === 200, `setup: approving the parked run answered ${approved.status}`);
    const cancel = await ctx.http.send({ method: 'POST', path: runPath(parked.runId, '/cancel'), credential: primaryKey(ctx), label: 'cancel after the approval' });
    ctx.observe('cancel after an approval', { status: cancel.status, body: cancel.json ?? null });
    const back = await ctx.http.send({ method: 'GET', path: runPath(parked.runId), credential: primaryKey(ctx), label: 'read the run back' });
    ctx.observe('run read back after cancel', back.json ?? back.status);
  },
});
