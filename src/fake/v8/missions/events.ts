import type { ServerResponse } from 'node:http';
import { CONTRACT_HEADER, CONTRACT_VERSION } from '../../../contract/v8/common.ts';
import type { FakeContext } from '../../context.ts';
import type { RouteRequest } from '../../http.ts';
import { sseFrame, sseWire, wireOptions } from '../../sse-framing.ts';
import { eventStreamContentType } from '../contract.ts';
import { isTerminal, type Mission, type StoredEvent } from './engine.ts';
import { skipsCancelOnResume } from './sequence-faults.ts';
import { AFTER_TERMINAL_NOTE, cursorNumber, limitsCreatesOnly, notesAfterTerminal, streamDurationCap } from './variants.ts';
import { findMission, type MissionSurface } from './surface.ts';

function sseHeaders(fake: FakeContext): Record<string, string> {
  return { 'content-type': eventStreamContentType(fake), 'cache-control': 'no-cache', [CONTRACT_HEADER]: CONTRACT_VERSION };
}

function writeEvent(fake: FakeContext, res: ServerResponse, event: StoredEvent, idSuffix = ''): void {
  const fields = { event: event.event, data: event.data, ...(event.sendId ? { id: `${event.id}${idSuffix}` } : {}) };
  res.write(sseFrame(fields, fake.variants.has('v8.missions/sse-framing')));
}

function isTerminalEvent(e: StoredEvent): boolean {
  return e.event === 'mission.completed' || e.event === 'mission.failed' || e.event === 'mission.cancelled';
}

/** The index of the last event already seen (-1: none); answers 409 itself and returns undefined for a stale cursor. */
function resumeAfter({ fake, v8, engine }: MissionSurface, r: RouteRequest, mission: Mission): number | undefined {
  const lastEventId = r.header('last-event-id');
  if (lastEventId === undefined) return -1;
  const found = engine.locate(mission, lastEventId);
  if (fake.faults.has('v8.missions.events.resume/ignores-cursor')) return -1;
  if (found !== 'outside') return fake.faults.has('v8.missions.events.resume/repeats-cursor-event') ? found - 1 : found;
  if (fake.faults.has('v8.missions.events.replay-window-409/unknown-cursor-replays')) return -1;
  // "A `Last-Event-ID` outside the window gives `409`" says nothing of a value that is no cursor at all.
  if (cursorNumber(fake, mission.runId, lastEventId) === undefined && fake.variants.has('v8.missions/malformed-cursor-400')) {
    v8.problem(r.res, 400, 'malformed_cursor', 'Last-Event-ID is not a cursor this gateway issues.');
    return undefined;
  }
  v8.problem(r.res, 409, 'cursor_outside_window', 'Last-Event-ID is outside the replay window: re-fetch the stream from the beginning.');
  return undefined;
}

const readersFromStart = new WeakMap<Mission, number>();

/**
 * How the load faults bend the fifth and later readers of one mission from its start (a crowd
 * only load brings): `write` sends an event to such a reader, skipping or doubling it.
 */
function crowdWriter(fake: MissionSurface['fake'], res: ServerResponse, mission: Mission, after: number): (e: StoredEvent, idSuffix?: string) => void {
  const crowd = after === -1 ? (readersFromStart.get(mission) ?? 0) + 1 : 0;
  if (crowd > 0) readersFromStart.set(mission, crowd);
  const gap = crowd > 4 && fake.faults.has('load.v8.events.fanout-same-events/late-subscriber-gap');
  const twice = crowd > 4 && fake.faults.has('load.v8.events.fanout-one-terminal/duplicate-terminal');
  return (e, idSuffix = '') => {
    if (gap && e.event === 'mission.started') return;
    writeEvent(fake, res, e, idSuffix);
    if (twice && isTerminalEvent(e)) writeEvent(fake, res, e);
  };
}

/** Streams the mission's events after `after`, then live ones, and closes after the terminal event. */
function stream({ fake, engine }: MissionSurface, res: ServerResponse, mission: Mission, after: number): void {
  res.writeHead(200, sseHeaders(fake));
  const { variants } = fake;
  sseWire(res, wireOptions(fake.config.sseSplitSeed, { crlf: variants.has('v8.missions/crlf-line-endings'), cr: variants.has('v8.missions/cr-line-endings'), split: variants.has('v8.missions/split-writes') }));
  // A resume at the tail of a waiting mission has nothing to send yet; the reader still gets its headers now.
  res.flushHeaders();
  const send = crowdWriter(fake, res, mission, after);
  const holdOpen = fake.faults.has('v8.missions.events.closes-after-terminal/held-open');
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    mission.listeners.delete(listener);
    unregister();
    res.end();
  };
  // The last event of a mission: its terminal event, or the informational one that follows it under the variant.
  const last = (e: StoredEvent) => (notesAfterTerminal(fake) ? e.event === AFTER_TERMINAL_NOTE : isTerminalEvent(e));
  const listener = (e: StoredEvent) => {
    send(e);
    if (last(e) && !holdOpen) end();
  };
  const unregister = fake.lifecycle.onClose(end);
  res.on('close', end);
  let sentTerminal = false;
  // The fault renames the events a resumed stream replays: the same event under another cursor.
  const idSuffix = after >= 0 && fake.faults.has('v8.missions.events.resume/ids-change-on-resume') ? '.r' : '';
  const skipCancel = skipsCancelOnResume(fake, after);
  for (const e of engine.eventsAfter(mission, after)) {
    if (skipCancel && e.event === 'mission.cancelled') continue;
    send(e, idSuffix);
    if (isTerminalEvent(e)) sentTerminal = true;
  }
  if ((sentTerminal || isTerminal(mission.status)) && !holdOpen) {
    end();
    return;
  }
  mission.listeners.add(listener);
  // Under the variant a stream still open after the cap is closed, terminal event or not: the client resumes.
  const cap = streamDurationCap(fake);
  if (cap !== undefined) {
    const timer = setTimeout(end, cap);
    res.on('close', () => clearTimeout(timer));
  }
}

/** GET /v8/missions/{runId}/events: SSE, resumable by Last-Event-ID within the replay window. */
export function events(surface: MissionSurface, r: RouteRequest): void {
  const { fake, v8 } = surface;
  const caller = v8.authorize(r, 'missions:read', limitsCreatesOnly(fake));
  if (!caller) return;
  // The seed lists `Accept: text/event-stream` as the request's header: a deployment may insist on it.
  if (!/text\/event-stream/i.test(r.header('accept') ?? '') && fake.variants.has('v8.missions/events-accept-required')) {
    v8.problem(r.res, 406, 'not_acceptable', 'Send Accept: text/event-stream for mission events.');
    return;
  }
  const mission = findMission(surface, caller, r.params[0]!);
  if (!mission) {
    if (fake.faults.has('v8.missions.events.unknown-404/empty-stream')) {
      r.res.writeHead(200, sseHeaders(fake));
      r.res.end();
    } else {
      v8.problem(r.res, 404, 'not_found', 'No such mission for this principal.');
    }
    return;
  }
  if (fake.faults.has('v8.missions.events.shape/json-never-ends')) {
    // A stream served as JSON that never ends: the reader must judge the content type, not wait.
    r.res.writeHead(200, { 'content-type': 'application/json' });
    r.res.write('{"events": [');
    fake.lifecycle.onClose(() => r.res.destroy());
    return;
  }
  const after = resumeAfter(surface, r, mission);
  if (after !== undefined) stream(surface, r.res, mission, after);
}
