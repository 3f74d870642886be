/** Events: the SSE stream at GET /v8/missions/{runId}/events. */
import { mediaType, section, TransportError, type Exchange, type Judge, type SseEvent } from '../../../rule/index.ts';
import { dataOf, eventsOf, exchangesOf, keptEvents, operation, parsedAs, startsAfterEnd, streamRead } from '../../../traffic/read.ts';
import { eventIdCases, oneTerminalCase } from '../../../traffic/answer-cases.ts';
import { parseJson } from '../../../util/json.ts';
import { admitted, limiterRefused, stopIfLimited } from '../support/limiter.ts';
import { callerOf, judgeReadsAfterTerminal, missionOf, withMissionsOn } from '../support/traffic.ts';
import {
  MISSION_EVENT_TYPES,
  missionProjection,
  stepCompletedData,
  stepStartedData,
  TERMINAL_EVENT_STATUS,
} from '../../../contract/v8/missions.ts';
import { uuidv7 } from '../../../util/uuid.ts';
import { createMission, followEvents, followToTerminal, getMission, isTerminalEvent, writer } from '../support/missions.ts';

const rule = section({ surface: 'v8', document: 'v8-integration-gateway.md', needs: { credentials: ['v8:holding:missions:write+missions:read'] } });

export const eventsShape = rule({
  id: 'v8.missions.events.shape',
  title: 'The stream is text/event-stream and every event has an id, a type and JSON data (types beyond the six listed are recorded)',
  level: 'required',
  needs: { fixtures: ['v8.missions.succeeds'] },
  destructive: 'mutate',
  spec: {
    section: 'Events; Endpoints > Rules 5',
    quote: 'Each event has three fields: … Mission events stream text/event-stream and everything else returns JSON.',
  },
  judgement: {
    record: 'a GET /v8/missions/{runId}/events (answered 200, or without Last-Event-ID for the caller\'s own mission)',
    judge(j) {
      // The caller's own mission, read from the start, must stream; every stream answered 200 is judged for its events.
      const own = new Set<Exchange>();
      ownStreams(j, (ex) => own.add(ex));
      for (const ex of exchangesOf(j.exchanges, 'v8.missions.events')) {
        if (operation(ex) !== 'v8.missions.events' || ex.status === undefined) continue;
        if (own.has(ex) && !j.check(ex, ex.status === 200, `the event stream answered ${ex.status}, expected 200`)) continue;
        if (ex.status !== 200) continue;
        const type = mediaType(ex.responseHeaders);
        if (!j.check(ex, type === 'text/event-stream', `the event stream answered content-type "${type}", expected text/event-stream`)) continue;
        const stream = streamRead(j, ex);
        if (!stream) continue;
        const { events } = stream;
        // Only a stream the server ended shows it had no event: one its reader stopped first (a short read, under a deployment that begins
        // executing later), or a recording that does not say how it ended (an empty body is all a client that let go early keeps), shows
        // nothing of what would have come.
        const unshown = stream.unended ?? (ex.streamEnd === undefined ? 'the recording does not say whether its server ended it' : undefined);
        if (own.has(ex) && events.length === 0 && unshown !== undefined) j.lacks(ex, `the stream's events: none arrived before it ended, and ${unshown}`);
        else if (own.has(ex)) j.check(ex, events.length > 0, 'the stream of a mission that ran carried no event');
        const undocumented = new Set<string>();
        for (const c of eventIdCases(events)) j.check(ex, c.ok, c.why);
        for (const [i, e] of events.entries()) {
          // "Each event has three fields": a type it must have; the six listed are not said to be all (step statuses are "not shown").
          j.check(ex, e.event !== undefined && e.event.length > 0, `event #${i + 1} has no event type`);
          if (e.event !== undefined && !(MISSION_EVENT_TYPES as readonly string[]).includes(e.event)) undocumented.add(e.event);
          j.check(ex, parseJson(e.data).ok, `event #${i + 1} (${e.event}) has data that is not JSON: ${e.data.slice(0, 80)}`);
        }
        if (undocumented.size > 0) j.observe('event types beyond the six the Events table lists', [...undocumented], 'the table does not close the list: these are recorded, not failed');
      }
    },
  },
  async provoke(ctx) {
    const mission = await createMission(ctx, 'succeeds');
    await followEvents(ctx, mission.runId);
  },
});

/** Step events: the table's two; an event type beyond the six listed says nothing of execution. */
const isStepEvent = (type: string | undefined) => type === 'mission.step.started' || type === 'mission.step.completed';

export const eventsStarted = rule({
  id: 'v8.missions.events.started',
  title: 'A stream read from its start that shows the mission executing carries mission.started once, before its first step event',
  level: 'required',
  needs: { fixtures: ['v8.missions.succeeds'] },
  destructive: 'mutate',
  spec: { section: 'Events', quote: '`mission.started` | the agent first begins executing the mission' },
  judgement: {
    record: 'a GET /v8/missions/{runId}/events without Last-Event-ID, answered 200, showing a step event or mission.completed',
    judge(j) {
      for (const ex of exchangesOf(j.exchanges, 'v8.missions.events')) {
        // Only a stream read from its start holds the mission's first events; a resume starts after its cursor.
        if (operation(ex) !== 'v8.missions.events' || ex.status !== 200 || ex.requestHeaders['last-event-id'] !== undefined) continue;
        const events = keptEvents(j, ex);
        if (!events) continue;
        const terminal = events.find((e) => isTerminalEvent(e.event));
        const firstStep = events.findIndex((e) => isStepEvent(e.event));
        // Execution began when a step ran or the agent finished the goal ("agent finishes | goal satisfied"). A mission
        // that failed or was cancelled without a step may have ended before it began (a cancel, a policy rejection): it
        // may carry no mission.started, and is not judged.
        const began = firstStep !== -1 || terminal?.event === 'mission.completed';
        if (!began) continue;
        const starts = events.flatMap((e, i) => (e.event === 'mission.started' ? [i] : []));
        const before = firstStep !== -1 ? firstStep : events.indexOf(terminal!);
        const what = firstStep !== -1 ? `its first step event (#${firstStep + 1}, ${events[firstStep]!.event})` : `its terminal event (#${before + 1}, mission.completed)`;
        if (!j.check(ex, starts.length > 0, `the stream of mission ${missionOf(ex)}, read from its start, shows it executing but carries no mission.started event`)) continue;
        j.check(ex, starts.length === 1, `the stream of mission ${missionOf(ex)} carries mission.started ${starts.length} times (events ${starts.map((i) => `#${i + 1}`).join(', ')}): the agent first begins executing once`);
        j.check(ex, starts[0]! < before, `the stream of mission ${missionOf(ex)} carries mission.started (#${starts[0]! + 1}) after ${what}`);
      }
    },
  },
  async provoke(ctx) {
    const mission = await createMission(ctx, 'succeeds');
    await followToTerminal(ctx, mission.runId, 'succeeds');
  },
});

export const eventsTraceId = rule({
  id: 'v8.missions.events.trace-id',
  title: 'Step events carry a traceId; mission.step.completed also carries the stepId',
  level: 'required',
  needs: { fixtures: ['v8.missions.succeeds'] },
  destructive: 'mutate',
  spec: {
    section: 'Events',
    quote: 'a new reasoning or tool-call step begins; data includes `traceId` … a step finishes successfully; data includes `stepId`, `traceId` and a result summary',
  },
  judgement: {
    record: 'a mission event stream carrying mission.step.started or mission.step.completed events',
    judge(j) {
      for (const ex of exchangesOf(j.exchanges, 'v8.missions.events')) {
        if (operation(ex) !== 'v8.missions.events' || ex.status !== 200) continue;
        // Each event is judged on its own: every complete one kept counts, however the stream ended or was cut.
        for (const [i, e] of (keptEvents(j, ex) ?? []).entries()) {
          if (e.event !== 'mission.step.started' && e.event !== 'mission.step.completed') continue;
          const schema = e.event === 'mission.step.started' ? stepStartedData : stepCompletedData;
          // Data that is not JSON is events.shape's failure ("`data` | JSON payload"): what it includes cannot be read here.
          if (dataOf(e) === undefined && !parseJson(e.data).ok) {
            j.lacks(ex, `event #${i + 1} (${e.event})'s data: it is not JSON, which v8.missions.events.shape fails`);
            continue;
          }
          j.check(ex, parsedAs(schema, dataOf(e)).success, `event #${i + 1} (${e.event}${e.id !== undefined ? `, id ${e.id}` : ''}) lacks ${e.event === 'mission.step.started' ? 'traceId' : 'stepId or traceId'}`);
        }
      }
    },
  },
  async provoke(ctx) {
    const mission = await createMission(ctx, 'succeeds');
    await followToTerminal(ctx, mission.runId, 'succeeds');
  },
});

export const closesAfterTerminal = rule({
  id: 'v8.missions.events.closes-after-terminal',
  title: 'The server closes the stream after the terminal event',
  level: 'required',
  needs: { fixtures: ['v8.missions.succeeds'] },
  destructive: 'mutate',
  spec: { section: 'Endpoints > Rules 5', quote: 'The stream closes after a terminal event.' },
  judgement: {
    record: 'a mission event stream read past its terminal event',
    judge(j) {
      for (const ex of exchangesOf(j.exchanges, 'v8.missions.events')) {
        if (operation(ex) !== 'v8.missions.events' || ex.status !== 200) continue;
        // "The stream closes after a terminal event", not "right after": informational events may come
        // between ("Events after a terminal event are informational only"), a second terminal event may not.
        // A stream without a terminal event read is not this rule's (its reader may have stopped it first): nothing is lacked of it.
        const stream = streamRead(j, ex, (e) => isTerminalEvent(e.event));
        const once = stream && oneTerminalCase(stream.events, isTerminalEvent);
        if (!stream || !once) continue;
        j.check(ex, once.ok, once.why);
        const terminal = stream.events[stream.terminal]!;
        // Who closed the stream is known only to the reader that waited for it (apicert's probe with awaitClose, a proxy); a HAR,
        // or a reader that let go at the terminal event, does not say.
        // The grace its reader waited is the exchange's (a recording's, whatever profile judges it), else the profile's.
        if (stream.closed === false) j.check(ex, false, `the stream was still open ${ex.closeGraceMs ?? j.profile?.safety.streamCloseGraceMs ?? 'the grace'} ms after ${terminal.event} (safety.streamCloseGraceMs)`);
        else if (stream.closeUnread !== undefined) j.lacks(ex, `whether the server closed the stream after its terminal event: ${stream.closeUnread}`);
      }
    },
  },
  async provoke(ctx) {
    const mission = await createMission(ctx, 'succeeds');
    const stream = await followToTerminal(ctx, mission.runId, 'succeeds', { awaitClose: true });
    ctx.observe('close after terminal event (ms)', stream.closeAfterTerminalMs);
  },
});

export const resume = rule({
  id: 'v8.missions.events.resume',
  title: 'Resuming with Last-Event-ID from a cursor before the terminal event answers 200 and neither repeats, skips nor changes an event, or 409 (outside the replay window)',
  level: 'required',
  needs: { fixtures: ['v8.missions.succeeds'] },
  destructive: 'mutate',
  spec: {
    section: 'Events',
    quote: 'opaque stable cursor; send it back as `Last-Event-ID` to resume … The stream is resumable within a bounded replay window. A `Last-Event-ID` outside the window gives `409`, and the client must re-fetch from the beginning.',
  },
  judgement: {
    record: "a GET /v8/missions/{runId}/events with Last-Event-ID naming an event before the terminal one of an earlier whole stream of that mission (read from its start to its terminal event by the same caller)",
    judge(j) {
      const key = (e: { id?: string; event?: string; data: string }) => `${e.id ?? '-'}:${e.event}:${e.data}`;
      const shown = (keys: string[]) => `[${keys.map((k) => k.split(':').slice(0, 2).join(' ')).join(', ')}]`;
      const whole = new Map<string, { stream: Exchange; events: readonly SseEvent[] }>();
      const resumed: Record<string, number[]> = {};
      // Per whole stream: the cursors (event #) resumed with 200, and those answered 409.
      const windows = new Map<Exchange, { held: number[]; outside: number[] }>();
      for (const ex of j.exchanges) {
        const runId = missionOf(ex);
        if (operation(ex) !== 'v8.missions.events' || runId === undefined || ex.status === undefined) continue;
        const at = `${callerOf(ex)}\n${runId}`;
        const cursor = ex.requestHeaders['last-event-id'];
        if (cursor === undefined) {
          // A stream read from its start to the terminal event: the events a resume is compared with.
          const events = ex.status === 200 ? eventsOf(ex) : undefined;
          if (events && !whole.has(at) && events.some((e) => isTerminalEvent(e.event))) whole.set(at, { stream: ex, events });
          continue;
        }
        const full = whole.get(at);
        if (!full || !startsAfterEnd(ex, full.stream)) continue;
        const end = full.events.findIndex((e) => isTerminalEvent(e.event));
        const cut = full.events.findIndex((e) => e.id === cursor) + 1;
        // A cursor the stream never carried is the replay-window rule's; the terminal event's, or that of an informational event
        // after it (a stream read to its close carries them), the after-terminal rule's ("Events after a terminal event are informational only").
        if (cut === 0 || cut > end || limiterRefused(j, ex)) continue;
        (resumed[String(ex.status)] ??= []).push(cut);
        const window = windows.get(full.stream) ?? { held: [], outside: [] };
        windows.set(full.stream, window);
        if (ex.status === 200) window.held.push(cut);
        if (ex.status === 409) window.outside.push(cut);
        // "Size or duration of the replay window: not shown": no cursor before the terminal event is one a window must still hold. The
        // terminal event (and any informational one) was issued after it, so a window of one event has let it go, and the resume is
        // sent after the stream ended, when a window bounded in time may have let every cursor go.
        if (!j.check(ex, ex.status === 200 || ex.status === 409, `resuming after event #${cut} answered ${ex.status}, expected 200 (within the replay window) or 409 (outside it)`, [full.stream]) || ex.status !== 200) continue;
        const rest = streamRead(j, ex, (e) => isTerminalEvent(e.event));
        if (!rest) continue;
        // Compared up to the terminal event: what follows it, on either stream, is informational and the after-terminal rule's.
        const expected = full.events.slice(cut, end + 1).map(key);
        const got = (rest.terminal === -1 ? rest.events : rest.events.slice(0, rest.terminal + 1)).map(key);
        // A resume its reader stopped before the terminal event shows only a prefix of the rest: a changed, repeated or skipped
        // event in it fails; a prefix as expected is judged not at all (its rest is unread), so neither read counts as judged.
        const compared = rest.unended === undefined ? expected : expected.slice(0, got.length);
        const same = JSON.stringify(got) === JSON.stringify(compared);
        if (same && rest.unended !== undefined) j.lacks(ex, `the rest of the resumed stream after ${shown(got)}: ${rest.unended}`);
        else j.check(ex, same, `resuming after event #${cut} (${cursor}) gave ${shown(got)}, expected ${shown(compared)}${rest.unended === undefined ? '' : ' first'}`, [full.stream]);
      }
      if (Object.keys(resumed).length > 0) j.observe('resumed cursors (event #) by status', resumed, 'the replay window\'s size and duration are not shown');
      for (const { held, outside } of windows.values()) {
        if (outside.length === 0) continue;
        const edge = Math.max(...outside);
        const inside = held.filter((c) => c > edge).length;
        j.observe('replay window', inside > 0 ? `cursors of the last ${inside} event(s) before the terminal one resumed; the cursor of event #${edge} is outside the window (409)` : `no cursor before the terminal event resumed: the cursor of event #${edge} is outside the window (409)`);
      }
    },
  },
  async provoke(ctx) {
    const mission = await createMission(ctx, 'succeeds');
    const full = await followToTerminal(ctx, mission.runId, 'succeeds');
    if (full.events.length < 2) ctx.untestable({ need: 'fixture', path: 'v8.missions.succeeds', problem: 'gave a mission of fewer than two events, too few to resume between', remedy: 'give a fixture that emits several' });
    // Walk back from the newest cursor before the terminal event (the terminal event's is the after-terminal rule's). A window of
    // any size or duration holds a suffix of the stream: the first 409 marks its edge, and older cursors are not asked.
    const terminal = full.events.findIndex((e) => isTerminalEvent(e.event));
    for (let cut = terminal; cut >= 1; cut -= 1) {
      const cursor = full.events[cut - 1]!.id;
      if (cursor === undefined || cursor === '') continue;
      const rest = await admitted(ctx, () => followEvents(ctx, mission.runId, { lastEventId: cursor, label: `resume after event #${cut}` }));
      // A limiter still refusing would refuse the older cursors too: the judgement lacks what it refused.
      if (rest.status === 409 || rest.status === 429) break;
    }
  },
});

export const replayWindow = rule({
  id: 'v8.missions.events.replay-window-409',
  title: 'A Last-Event-ID outside the replay window answers 409',
  level: 'required',
  needs: { fixtures: ['v8.missions.succeeds'] },
  destructive: 'mutate',
  spec: {
    section: 'Events > Rules 1',
    quote: 'A `Last-Event-ID` outside the window gives `409`, and the client must re-fetch from the beginning.',
  },
  activeOnly: 'whether a cursor lies outside the replay window is known only to the prober that chose a cursor the target never issued (or the profile\'s stale one)',
  async check(ctx) {
    const mission = await createMission(ctx, 'succeeds');
    const full = await followToTerminal(ctx, mission.runId, 'succeeds');
    const stale = ctx.profile.fixtures.v8.staleEventCursor;
    if (stale !== undefined) {
      ctx.observe('cursor used', 'profile fixtures.v8.staleEventCursor');
      const res = await admitted(ctx, () => followEvents(ctx, mission.runId, { lastEventId: stale, label: 'resume from a cursor outside the window' }));
      stopIfLimited(ctx, res, 'the resume from a cursor outside the window');
      ctx.expect(res.status === 409, `a cursor outside the replay window answered ${res.status}, expected 409`);
      return;
    }
    // Without a known-stale cursor, one the server never issued is in no window it keeps; but the
    // description says only "A `Last-Event-ID` outside the window gives `409`", nothing of a value that
    // is no cursor at all: refusing it as malformed (400) is as legal as 409.
    const cursor = `${full.events[0]?.id ?? 'apicert'}-never-issued-${uuidv7().slice(-12)}`;
    ctx.observe('cursor used', 'a cursor the target never issued');
    const res = await admitted(ctx, () => followEvents(ctx, mission.runId, { lastEventId: cursor, label: 'resume from a cursor the target never issued' }));
    stopIfLimited(ctx, res, 'the resume from a cursor the target never issued');
    ctx.expect(res.status === 409 || res.status === 400, `a cursor the target never issued answered ${res.status}, expected 409 (outside the window) or 400 (no cursor)`);
    ctx.observe('a cursor never issued answered', res.status, res.status === 400 ? 'refused as no cursor' : 'taken as outside the window');
  },
});

export const afterTerminal = rule({
  id: 'v8.missions.events.after-terminal',
  title: 'Nothing after the terminal event changes the mission state',
  level: 'required',
  needs: { fixtures: ['v8.missions.succeeds'] },
  destructive: 'mutate',
  spec: { section: 'Events > Rules 2', quote: 'Events after a terminal event are informational only, not state-changing.' },
  judgement: {
    record: "a mission's event stream up to its terminal event, then a GET /v8/missions/{runId} by the same caller",
    judge: (j) => judgeReadsAfterTerminal(j, () => true),
  },
  async provoke(ctx) {
    const mission = await createMission(ctx, 'succeeds');
    const stream = await followToTerminal(ctx, mission.runId, 'succeeds');
    for (const pause of [0, 150, 300]) {
      await ctx.sleep(pause);
      await getMission(ctx, mission.runId, writer(ctx), `read mission ${pause} ms later`);
    }
    if (stream.lastEventId === undefined) return;
    // Nothing state-changing may follow; a stream held open after its end is judged by closes-after-terminal, not waited on here.
    // The resume is only looked at: its answer not coming (headers a server sends with a first event that never comes) leaves the reads above judged.
    try {
      const later = await followEvents(ctx, mission.runId, { lastEventId: stream.lastEventId, label: 'resume after the terminal event', maxMs: ctx.profile.safety.streamCloseGraceMs });
      if (later.status === 200 && later.events.length > 0) ctx.observe('events after the terminal event', later.events.map((e) => e.event));
    } catch (error) {
      if (!(error instanceof TransportError)) throw error;
      ctx.observe('a resume after the terminal event was not answered', error.message);
    }
  },
});

export const eventsUnknown = rule({
  id: 'v8.missions.events.unknown-404',
  title: 'The event stream of a runId that does not exist answers 404',
  level: 'required',
  spec: { section: 'Errors', quote: '`GET /v8/missions/{runId}/events` | `401`; `403`; `404`' },
  activeOnly: 'that a runId was never created anywhere is known only to the prober that made it up; a recording cannot show it',
  async check(ctx) {
    const runId = uuidv7();
    const res = await admitted(ctx, () => followEvents(ctx, runId, { label: 'events of a runId that was never created' }));
    stopIfLimited(ctx, res, 'the event stream of an unknown runId');
    ctx.expect(res.status === 404, `events of an unknown runId answered ${res.status}, expected 404`);
  },
});


/** Every stream request without Last-Event-ID of a mission the same caller created, from a caller holding missions:read. */
function ownStreams(j: Judge, each: (ex: Exchange) => void): void {
  withMissionsOn(j, 'v8.missions.events', (ex, seen, callers) => {
    if (operation(ex) !== 'v8.missions.events' || !seen.creator || ex.status === undefined || ex.status === 429) return;
    if (ex.requestHeaders['last-event-id'] !== undefined || !callers.holds(ex, 'missions:read')) return;
    each(ex);
  });
}
