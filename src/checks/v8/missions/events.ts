/** Events: the SSE stream at GET /v8/missions/{runId}/events. */
import { section } from '../../../rule/index.ts';
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
  async check(ctx) {
    const mission = await createMission(ctx, 'succeeds');
    const stream = await followEvents(ctx, mission.runId);
    ctx.check(stream.status === 200, `the event stream answered ${stream.status}, expected 200`);
    ctx.check(stream.contentType.startsWith('text/event-stream'), `the event stream answered content-type "${stream.contentType}"`);
    ctx.expect(stream.events.length > 0, 'the stream of a mission that ran carried no event');
    const undocumented = new Set<string>();
    for (const [i, e] of stream.events.entries()) {
      ctx.check(e.id !== undefined && e.id.length > 0, `event #${i + 1} (${e.event ?? 'message'}) has no id`);
      // "Each event has three fields": a type it must have; the six listed are not said to be all (step statuses are "not shown").
      ctx.check(e.event !== undefined && e.event.length > 0, `event #${i + 1} has no event type`);
      if (e.event !== undefined && !(MISSION_EVENT_TYPES as readonly string[]).includes(e.event)) undocumented.add(e.event);
      let data: unknown;
      try {
        data = JSON.parse(e.data);
      } catch {
        ctx.check(false, `event #${i + 1} (${e.event}) has data that is not JSON: ${e.data.slice(0, 80)}`);
        continue;
      }
      ctx.check(data !== undefined, `event #${i + 1} has no data`);
    }
    const ids = stream.events.map((e) => e.id);
    ctx.check(new Set(ids).size === ids.length, 'two events of one stream share an id');
    if (undocumented.size > 0) ctx.observe('event types beyond the six the Events table lists', [...undocumented], 'the table does not close the list: these are recorded, not failed');
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
  async check(ctx) {
    const mission = await createMission(ctx, 'succeeds');
    const stream = await followToTerminal(ctx, mission.runId, 'succeeds');
    const steps = stream.events.filter((e) => e.event === 'mission.step.started' || e.event === 'mission.step.completed');
    if (steps.length === 0) ctx.untestable({ need: 'fixture', path: 'v8.missions.succeeds', problem: 'gave a mission that emitted no step events', remedy: 'give a fixture that runs at least one step' });
    for (const e of steps) {
      const schema = e.event === 'mission.step.started' ? stepStartedData : stepCompletedData;
      ctx.checkShape(schema, JSON.parse(e.data), `the data of ${e.event} (id ${e.id ?? 'none'})`);
    }
  },
});

export const closesAfterTerminal = rule({
  id: 'v8.missions.events.closes-after-terminal',
  title: 'The server closes the stream after the terminal event',
  level: 'required',
  needs: { fixtures: ['v8.missions.succeeds'] },
  destructive: 'mutate',
  spec: { section: 'Endpoints > Rules 5', quote: 'The stream closes after a terminal event.' },
  async check(ctx) {
    const mission = await createMission(ctx, 'succeeds');
    const stream = await followToTerminal(ctx, mission.runId, 'succeeds', { awaitClose: true });
    const grace = ctx.profile.safety.streamCloseGraceMs;
    ctx.check(stream.end === 'server', `the stream was still open ${grace} ms after ${stream.terminal} (safety.streamCloseGraceMs)`);
    ctx.observe('close after terminal event (ms)', stream.closeAfterTerminalMs);
    const terminalIndex = stream.events.findIndex((e) => isTerminalEvent(e.event));
    ctx.check(terminalIndex === stream.events.length - 1, `${stream.events.length - terminalIndex - 1} event(s) followed the terminal event on the same stream`);
  },
});

export const resume = rule({
  id: 'v8.missions.events.resume',
  title: 'Resuming with Last-Event-ID from a cursor the server still holds neither repeats, skips nor changes an event; an older cursor may get 409',
  level: 'required',
  needs: { fixtures: ['v8.missions.succeeds'] },
  destructive: 'mutate',
  spec: {
    section: 'Events',
    quote: 'opaque stable cursor; send it back as `Last-Event-ID` to resume … The stream is resumable within a bounded replay window. A `Last-Event-ID` outside the window gives `409`, and the client must re-fetch from the beginning.',
  },
  async check(ctx) {
    const mission = await createMission(ctx, 'succeeds');
    const full = await followToTerminal(ctx, mission.runId, 'succeeds');
    if (full.events.length < 2) ctx.untestable({ need: 'fixture', path: 'v8.missions.succeeds', problem: 'gave a mission of fewer than two events, too few to resume between', remedy: 'give a fixture that emits several' });
    // Every event carries an id (the seed's table): one without is the server's fault, not a missing fixture.
    const missing = full.events.findIndex((e) => e.id === undefined || e.id === '');
    ctx.expect(missing === -1, `event #${missing + 1} (${full.events[missing]?.event ?? '?'}) carries no id, so a client cannot resume after it`);
    const key = (e: { id?: string; event?: string; data: string }) => `${e.id ?? '-'}:${e.event}:${e.data}`;
    // "Size or duration of the replay window: not shown": start from the most recent cursor, which
    // any window holds, and walk back; the first 409 marks the window's edge, and older cursors are
    // not asked (they are outside it too). A repeat, a skip or a changed id fails wherever it shows.
    const held: number[] = [];
    for (let cut = full.events.length - 1; cut >= 1; cut -= 1) {
      const cursor = full.events[cut - 1]!.id!;
      const rest = await followEvents(ctx, mission.runId, { lastEventId: cursor, label: `resume after event #${cut}` });
      if (rest.status === 409 && held.length > 0) {
        ctx.observe('replay window', `cursors of the last ${held.length} event(s) resumed; the cursor of event #${cut} is outside the window (409)`);
        break;
      }
      ctx.expect(rest.status === 200, held.length === 0 ? `resuming after the most recent event before the terminal one (#${cut}) answered ${rest.status}, expected 200: a replay window must hold it` : `resuming after event #${cut} answered ${rest.status}, expected 200 or 409 (outside the window)`);
      held.push(cut);
      const expected = full.events.slice(cut).map(key);
      const got = rest.events.map(key);
      ctx.check(
        JSON.stringify(got) === JSON.stringify(expected),
        `resuming after event #${cut} (${cursor}) gave [${got.map((k) => k.split(':').slice(0, 2).join(' ')).join(', ')}], expected [${expected.map((k) => k.split(':').slice(0, 2).join(' ')).join(', ')}]`,
      );
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
  async check(ctx) {
    const mission = await createMission(ctx, 'succeeds');
    const full = await followToTerminal(ctx, mission.runId, 'succeeds');
    const stale = ctx.profile.fixtures.v8.staleEventCursor;
    // Without a known-stale cursor, one the server never issued is outside any window it keeps.
    const cursor = stale ?? `${full.events[0]?.id ?? 'apicert'}-never-issued-${uuidv7().slice(-12)}`;
    ctx.observe('cursor used', stale ? 'profile fixtures.v8.staleEventCursor' : 'a cursor the target never issued');
    const res = await followEvents(ctx, mission.runId, { lastEventId: cursor, label: 'resume from a cursor outside the window' });
    ctx.expect(res.status === 409, `a cursor outside the replay window answered ${res.status}, expected 409`);
  },
});

export const afterTerminal = rule({
  id: 'v8.missions.events.after-terminal',
  title: 'Nothing after the terminal event changes the mission state',
  level: 'required',
  needs: { fixtures: ['v8.missions.succeeds'] },
  destructive: 'mutate',
  spec: { section: 'Events > Rules 2', quote: 'Events after a terminal event are informational only, not state-changing.' },
  async check(ctx) {
    const mission = await createMission(ctx, 'succeeds');
    const stream = await followToTerminal(ctx, mission.runId, 'succeeds');
    const expected = TERMINAL_EVENT_STATUS[stream.terminal]!;
    for (const pause of [0, 150, 300]) {
      await ctx.sleep(pause);
      const res = await getMission(ctx, mission.runId, writer(ctx), `read mission ${pause} ms later`);
      const projection = ctx.expectShape(missionProjection, res.json, 'the mission after its terminal event');
      ctx.check(projection.status === expected, `after ${stream.terminal} the mission reads back as ${projection.status}, expected ${expected}`, res);
    }
    if (stream.lastEventId === undefined) return;
    // Nothing state-changing may follow; a stream held open after its end is judged by closes-after-terminal, not waited on here.
    const later = await followEvents(ctx, mission.runId, { lastEventId: stream.lastEventId, label: 'resume after the terminal event', maxMs: ctx.profile.safety.streamCloseGraceMs });
    if (later.status === 200 && later.events.length > 0) {
      ctx.observe('events after the terminal event', later.events.map((e) => e.event));
    }
  },
});

export const eventsUnknown = rule({
  id: 'v8.missions.events.unknown-404',
  title: 'The event stream of a runId that does not exist answers 404',
  level: 'required',
  spec: { section: 'Errors', quote: '`GET /v8/missions/{runId}/events` | `401`; `403`; `404`' },
  async check(ctx) {
    const res = await followEvents(ctx, uuidv7(), { label: 'events of a runId that was never created' });
    ctx.expect(res.status === 404, `events of an unknown runId answered ${res.status}, expected 404`);
  },
});

