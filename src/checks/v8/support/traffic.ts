/**
 * /v8 missions as a judgement reads them from exchanges (src/rule/judgement.ts): which mission a
 * request names, and what the exchanges before it showed of that mission's state.
 */
import { endpointOf } from '../../../contract/endpoints.ts';
import { missionProjection, TERMINAL_EVENT_STATUS, TERMINAL_STATUSES, type MissionProjection, type MissionStatus } from '../../../contract/v8/missions.ts';
import type { Credential } from '../../../profile/schema.ts';
import { credentialIn, type Exchange, type Judge } from '../../../rule/index.ts';
import { eventsOf, idAfter, operation, requestJson, responseJson, startsAfterEnd } from '../../../traffic/read.ts';

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

/**
 * Whether the caller of a request may use a scope: the profile says so (a credential holding it,
 * not expired); without a profile, an earlier request of the same caller needing that scope was
 * accepted (2xx). Fed in journal order with `note`, so it knows only what came before.
 */
export class Callers {
  private readonly accepted = new Set<string>();
  private readonly credentials: readonly Credential[];
  constructor(j: Pick<Judge, 'profile'>) {
    this.credentials = j.profile?.credentials ?? [];
  }

  holds(ex: Exchange, scope: string): boolean {
    if (this.credentials.length > 0) {
      const c = credentialIn(ex, this.credentials);
      return c !== undefined && !c.expired && c.scopes.includes(scope);
    }
    return this.accepted.has(`${callerOf(ex)}\n${scope}`);
  }

  /** The principal of the request's credential, when the profile names it. */
  principalOf(ex: Exchange): string | undefined {
    return credentialIn(ex, this.credentials)?.principal;
  }

  note(ex: Exchange): void {
    const scope = endpointOf(ex.method, ex.path)?.scope;
    if (scope && ex.status !== undefined && ex.status >= 200 && ex.status < 300) this.accepted.add(`${callerOf(ex)}\n${scope}`);
  }
}

/** Walks the exchanges with a `Callers` that knows what came before each. */
export function withCallers(j: Judge, each: (ex: Exchange, callers: Callers) => void): void {
  const callers = new Callers(j);
  for (const ex of j.exchanges) {
    each(ex, callers);
    callers.note(ex);
  }
}

/** The mission a 202 create answer made, read from an earlier exchange. */
export function createdMission(ex: Exchange): MissionProjection | undefined {
  if (ex.status !== 202 || operation(ex) !== 'v8.missions.create') return undefined;
  const parsed = missionProjection.safeParse(responseJson(ex));
  return parsed.success ? parsed.data : undefined;
}

/**
 * Walks the exchanges with, for each, the create (an earlier exchange) that made the mission its
 * path names, when that create came from the same caller.
 */
export function withCreator(exchanges: readonly Exchange[], each: (ex: Exchange, creator: Exchange | undefined) => void): void {
  const creators = new Map<string, Exchange>();
  for (const ex of exchanges) {
    const runId = missionOf(ex);
    const creator = runId === undefined ? undefined : creators.get(runId);
    each(ex, creator && callerOf(creator) === callerOf(ex) && startsAfterEnd(ex, creator) ? creator : undefined);
    const made = createdMission(ex);
    if (made && !creators.has(made.runId)) creators.set(made.runId, ex);
  }
}

/** The JSON body a create sent, when it was JSON and kept. */
export function sentBody(ex: Exchange): unknown {
  return requestJson(ex);
}
