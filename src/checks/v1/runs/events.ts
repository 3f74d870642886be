/** GET /v1/runs/{id}/events: its success form, identity, resume by sequence, and reconciliation after a dropped connection. */
import { type Exchange, mediaType, section, type SseEvent } from '../../../rule/index.ts';
import { sequenceIdCases } from '../../../traffic/answer-cases.ts';
import { dataOf, idAfter, operation, startsAfterEnd, streamEvents } from '../../../traffic/read.ts';
import { callerOf, kindOf, modeOf } from '../support/traffic.ts';
import { openObject } from '../../../contract/v1/runs.ts';
import { followRun, followToTerminal, primaryKey, runPath, startRun } from '../support/fabric.ts';
import { withIssuedRun } from './get.ts';
import { setupSent } from '../support/limiter.ts';

const rule = section({ destructive: 'mutate', surface: 'v1', document: 'v1-execution-fabric.md', needs: { credentials: ['v1:key'] } });

const RESUME = 'Resume: `Last-Event-ID` carries the `sequence` value of the stored run event.';

/** An event's identity: its SSE id, else an id carried in its data. */
function identity(e: SseEvent): string | undefined {
  if (e.id !== undefined && e.id !== '') return `id:${e.id}`;
  const data = dataOf(e);
  const id = data?.event_id ?? data?.id;
  return typeof id === 'string' || typeof id === 'number' ? `data:${id}` : undefined;
}

/** Both stream AiPlatformEventV1 items: "Turn mode on `/v1/execute` and `GET /v1/runs/{id}/events`". */
function isRunStream(ex: Exchange): boolean {
  const op = operation(ex);
  return op === 'v1.runs.events' || (op === 'v1.execute' && modeOf(ex) === 'turn');
}

export const eventStream = rule({
  id: 'v1.runs.events.stream',
  title: "Reading a run's events, when served, answers 200 with text/event-stream",
  level: 'required',
  needs: { fixtures: ['v1.tasks.completes'] },
  spec: { section: 'Endpoints', quote: '| GET | `/v1/runs/{id}/events` | path `id`; optional header `Last-Event-ID` (string) | `200` `text/event-stream` |' },
  judgement: {
    record: 'a GET /v1/runs/{id}/events of a run an earlier task answer issued to the same caller, answered 2xx',
    judge(j) {
      withIssuedRun(j.exchanges, (ex, issued) => {
        // Which reads are the rule's comes from the path and the task answers before it. A refusal is open: no
        // sentence says how long a run's events stay readable, nor which scope reads them ("Scopes required by the
        // other `/v1` endpoints: not shown"); a read the deployment served is held to the success the table names.
        if (!issued || operation(ex) !== 'v1.runs.events' || ex.status === undefined || ex.status < 200 || ex.status >= 300) return;
        const run = idAfter(ex, '/v1/runs/');
        if (!j.check(ex, ex.status === 200, `reading the events of run ${run} (issued by exchange #${issued.index}) answered ${ex.status}, expected 200`, [issued])) return;
        const type = mediaType(ex.responseHeaders);
        j.check(ex, type === 'text/event-stream', `reading the events of run ${run} answered content-type "${type}", expected text/event-stream`, [issued]);
      });
    },
  },
  async provoke(ctx) {
    // Read from its start and, once it showed an event, resumed after the first: both are reads the table's row names.
    const runId = await startRun(ctx, 'completes');
    const full = await followRun(ctx, runId, { label: "read the run's events" });
    const cursor = full.events[0]?.id;
    if (cursor !== undefined && cursor !== '') await followRun(ctx, runId, { lastEventId: cursor, label: `resume after sequence ${cursor}`, maxMs: 5_000 });
  },
});

export const eventIdentity = rule({
  id: 'v1.runs.events.identity',
  title: 'Every run event carries an identity to deduplicate by, and its SSE id is the increasing sequence',
  level: 'required',
  needs: { fixtures: ['v1.tasks.completes'] },
  spec: {
    section: 'Events > Run event stream',
    quote: `${RESUME} … Clients should commit their cursor only after durable processing, and should deduplicate by event identity.`,
  },
  judgement: {
    record: 'a run event stream: GET /v1/runs/{id}/events, or a turn-mode POST /v1/execute, answered with events',
    judge(j) {
      for (const ex of j.exchanges) {
        if (!isRunStream(ex)) continue;
        const events = streamEvents(j, ex);
        if (!events || events.length === 0) continue;
        const ids = events.map(identity);
        for (const [i, e] of events.entries()) j.check(ex, ids[i] !== undefined, `event #${i + 1} (${kindOf(e) ?? 'message'}) carries no identity: neither an SSE id nor an event id in its data`);
        j.check(ex, new Set(ids).size === ids.length, 'two events of one run share an identity');
        for (const c of sequenceIdCases(events)) j.check(ex, c.ok, c.why);
      }
    },
  },
  async provoke(ctx) {
    const runId = await startRun(ctx, 'completes');
    await followToTerminal(ctx, runId, 'completes');
  },
});

/**
 * What a resume must repeat of an event: its SSE id and kind, not its data. "Event kinds beyond
 * `request.accepted` and `request.cancelled`, and the payload fields of events: not shown." A payload
 * field may belong to the read (a `sent_at`); clients "should deduplicate by event identity".
 */
const eventKey = (e: SseEvent) => `${e.id ?? '-'}|${kindOf(e) ?? ''}`;

export const resume = rule({
  id: 'v1.runs.events.resume',
  title: 'Every event of a run event stream carries an SSE id, and resuming with Last-Event-ID = a sequence neither repeats nor skips an event',
  level: 'required',
  needs: { fixtures: ['v1.tasks.completes'] },
  spec: { section: 'Events > Run event stream', quote: RESUME },
  judgement: {
    record: 'a GET /v1/runs/{id}/events, and one with Last-Event-ID after a read of the same run from its start',
    judge(j) {
      // The run's stream as first read from its start by each caller: what a resume is compared with.
      const fromStart = new Map<string, { ex: Exchange; events: readonly SseEvent[] }>();
      for (const ex of j.exchanges) {
        // Only a task run's event stream is resumed with Last-Event-ID ("After a dropped connection on a
        // task-mode run, read the run back or resume its event stream with `Last-Event-ID`"); a streamed
        // turn is retried by re-sending its POST with the same key, so its events need no SSE id.
        if (operation(ex) !== 'v1.runs.events') continue;
        const events = streamEvents(j, ex);
        if (!events) continue;
        // Resume names the event by its SSE id: an event without one cannot be resumed after.
        const missing = events.findIndex((e) => e.id === undefined || e.id === '');
        j.check(ex, missing === -1, missing === -1 ? '' : `event #${missing + 1} (${kindOf(events[missing]!) ?? 'message'}) carries no SSE id, so Last-Event-ID cannot name it`);
        const runKey = `${callerOf(ex)}\n${idAfter(ex, '/v1/runs/')}`;
        const cursor = ex.requestHeaders['last-event-id'];
        if (cursor === undefined) {
          if (!fromStart.has(runKey)) fromStart.set(runKey, { ex, events });
          continue;
        }
        const full = fromStart.get(runKey);
        const at = full?.events.findIndex((e) => e.id === cursor) ?? -1;
        if (!full || at === -1 || !startsAfterEnd(ex, full.ex)) continue;
        // Both reads may stop early (a reader's bound, a run still in flight): only what both hold is compared.
        const expected = full.events.slice(at + 1);
        const n = Math.min(expected.length, events.length);
        const same = expected.slice(0, n).map(eventKey).join('\n') === events.slice(0, n).map(eventKey).join('\n');
        const shown = (list: readonly SseEvent[]) => list.slice(0, n).map((e) => `${e.id ?? '-'} ${kindOf(e) ?? 'message'}`).join(', ');
        j.check(ex, same, `resuming after sequence ${cursor} gave [${shown(events)}], exchange #${full.ex.index} showed [${shown(expected)}] after it`, [full.ex]);
      }
    },
  },
  async provoke(ctx) {
    const runId = await startRun(ctx, 'completes');
    const full = await followToTerminal(ctx, runId, 'completes');
    if (full.events.length < 2) ctx.untestable({ need: 'fixture', path: 'v1.tasks.completes', problem: 'gave a run of fewer than two events, too few to resume between', remedy: 'give a task that emits several' });
    for (let cut = 1; cut < full.events.length; cut += 1) {
      const cursor = full.events[cut - 1]!.id;
      if (cursor === undefined || cursor === '') continue;
      await followRun(ctx, runId, { lastEventId: cursor, label: `resume after event #${cut} (sequence ${cursor})`, maxMs: 5_000 });
    }
  },
});

/** How long a read of events already stored lasts: they are sent at once; only events still to come take longer. */
const STORED_READ_MS = 5_000;

export const droppedConnection = rule({
  id: 'v1.runs.events.dropped-connection',
  title: 'After a dropped stream a task run reads back (in flight, parked or finished) and its stream resumes after the last sequence',
  level: 'required',
  activeOnly: 'the dropped connection is an act of the client, at a moment apicert chooses, before the readback and resume',
  needs: { fixtures: ['v1.tasks.long'] },
  spec: {
    section: 'Endpoints > Rules 4',
    quote: 'After a dropped connection on a task-mode run, read the run back or resume its event stream with `Last-Event-ID` before posting again. The run may be in flight, parked on approval, or finished.',
  },
  async check(ctx) {
    const runId = await startRun(ctx, 'long');
    const cleanup = () => ctx.http.send({ method: 'POST', path: runPath(runId, '/cancel'), credential: primaryKey(ctx), label: 'cleanup: cancel the long run' });
    const first = await setupSent(ctx, `the "long" run's stream`, () => followRun(ctx, runId, { label: 'follow, then drop after two events', onEvent: (_e, seen) => (seen.length >= 2 ? 'disconnect' : 'continue') }));
    if (first.status !== 200) ctx.inconclusive(`setup failed: the "long" run's stream answered ${first.status}`);
    // Give the server a moment to notice the dropped connection.
    await ctx.sleep(150);
    const back = await ctx.http.send({ method: 'GET', path: runPath(runId), credential: primaryKey(ctx), label: 'read the run back after the drop' });
    ctx.check(back.status === 200, `reading the run back after a dropped stream answered ${back.status}, expected 200`);
    ctx.observe('run read back after the drop', ctx.checkShape(openObject, back.json, 'the run resource') ?? null);
    const cursor = first.lastEventId;
    if (cursor === undefined) {
      await cleanup();
      // That every run event carries its sequence as SSE id is v1.runs.events.resume's one judgement.
      ctx.inconclusive(`the "long" run's events carry no SSE id, so the dropped stream could not be resumed with Last-Event-ID (v1.runs.events.resume judges that); the readback after the drop was judged`);
    }
    const seen = new Set(first.events.map((e) => e.id).filter((id) => id !== undefined));
    // No sentence bounds how often a run in flight sends an event: the resume waits for the next one as long as a
    // check follows a stream (safety.streamTimeoutMs), and a run that finishes in that time sends its terminal event.
    const waitMs = ctx.profile.safety.streamTimeoutMs;
    const resumeAfter = (label: string, maxMs: number) => followRun(ctx, runId, { lastEventId: cursor, label, maxMs, onEvent: () => 'disconnect' });
    let rest = await resumeAfter(`resume after sequence ${cursor}`, waitMs);
    ctx.expect(rest.status === 200, `resuming the dropped stream answered ${rest.status}, expected 200`);
    if (rest.events.length === 0) {
      // Silence may be the run's own pace. What a read from the start shows stored past the cursor, a resume sent after it must deliver.
      const stored = await followRun(ctx, runId, { label: "read the run's events from the start", maxMs: STORED_READ_MS });
      const at = stored.events.findIndex((e) => e.id === cursor);
      const past = at === -1 ? [] : stored.events.slice(at + 1);
      if (stored.status !== 200 || past.length === 0) {
        await cleanup();
        const shown = stored.status === 200 ? `showed no event past sequence ${cursor}` : `answered ${stored.status}`;
        ctx.inconclusive(`the resumed stream delivered nothing within ${waitMs} ms (safety.streamTimeoutMs), and a read from the start ${shown}: the description bounds no event cadence; give a "long" fixture (fixtures.v1.tasks.long) that sends an event more often than that, or lengthen safety.streamTimeoutMs`);
      }
      rest = await resumeAfter(`resume after sequence ${cursor} again, with ${past.length} event(s) stored past it`, STORED_READ_MS);
      ctx.expect(rest.status === 200, `resuming the dropped stream again answered ${rest.status}, expected 200`);
      ctx.expect(rest.events.length > 0, `resuming after sequence ${cursor} delivered nothing within ${STORED_READ_MS} ms, though a read from the start before it showed ${past.length} event(s) stored past it (${past.map((e) => `${e.id ?? '-'} ${kindOf(e) ?? 'message'}`).join(', ')})`);
    }
    // Exactly where it resumes is judged by v1.runs.events.resume.
    const next = rest.events[0]!;
    ctx.observe('resumed stream repeats an event already read', next.id !== undefined && seen.has(next.id));
    await cleanup();
  },
});
