/**
 * /v8 missions as a judgement reads them from exchanges (src/rule/judgement.ts): which mission a
 * request names, and what the exchanges before it showed of that mission's state.
 */
import { missionProjection, TERMINAL_EVENT_STATUS, TERMINAL_STATUSES, type MissionStatus } from '../../../contract/v8/missions.ts';
import type { Exchange } from '../../../rule/index.ts';
import { eventsOf, idAfter, operation, responseJson, startsAfterEnd } from '../../../traffic/read.ts';

export const MISSIONS_PREFIX = '/v8/missions/';

/** The mission a request names in its path (`/v8/missions/{runId}/...`). */
export function missionOf(ex: Exchange): string | undefined {
  return idAfter(ex, MISSIONS_PREFIX);
}

/** Who sent a request: the same credential is the same caller (a recording shows no more than that). */
export function callerOf(ex: Exchange): string {
  return ex.credential ?? ex.requestHeaders.authorization ?? '';
}

export interface TerminalSighting {
  status: MissionStatus;
  /** The exchange that showed it: a read answering a terminal status, or a stream carrying the terminal event. */
  seenOn: Exchange;
}

/** The terminal state an exchange showed of its mission, if it showed one (a 200 read or the mission's event stream). */
export function terminalShown(ex: Exchange): TerminalSighting | undefined {
  if (ex.status !== 200) return undefined;
  const op = operation(ex);
  if (op === 'v8.missions.get') {
    const parsed = missionProjection.safeParse(responseJson(ex));
    if (parsed.success && (TERMINAL_STATUSES as readonly string[]).includes(parsed.data.status)) return { status: parsed.data.status, seenOn: ex };
  }
  if (op === 'v8.missions.events') {
    const terminal = eventsOf(ex)?.find((e) => e.event !== undefined && TERMINAL_EVENT_STATUS[e.event] !== undefined);
    if (terminal) return { status: TERMINAL_EVENT_STATUS[terminal.event!]!, seenOn: ex };
  }
  return undefined;
}

/**
 * Walks the exchanges in order with, for each, what the exchanges that ended before it showed:
 * the terminal state of its mission, as seen by its caller. Bounded by the number of missions seen.
 */
export function withTerminalBefore(exchanges: readonly Exchange[], each: (ex: Exchange, terminal: TerminalSighting | undefined) => void): void {
  const seen = new Map<string, TerminalSighting>();
  for (const ex of exchanges) {
    const runId = missionOf(ex);
    if (runId === undefined) continue;
    const key = `${callerOf(ex)}\n${runId}`;
    const known = seen.get(key);
    each(ex, known && startsAfterEnd(ex, known.seenOn) ? known : undefined);
    if (!known) {
      const shown = terminalShown(ex);
      if (shown) seen.set(key, shown);
    }
  }
}
