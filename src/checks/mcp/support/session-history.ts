/**
 * What the exchanges before a request showed of its MCP session: whether the server issued the
 * Mcp-Session-Id it carries, whether a DELETE of that session was answered, whether the client
 * finished initialization in it, and which revision the session was opened for. The session rules
 * pick their requests by this (and the request itself), never by the answer they expect.
 */
import { MCP_REVISION } from '../../../contract/mcp/lifecycle.ts';
import { PROTOCOL_VERSION_HEADER, SESSION_HEADER } from '../../../contract/mcp/transport.ts';
import { pathOnly, type Exchange, type Judge } from '../../../rule/index.ts';
import type { Profile } from '../../../profile/schema.ts';
import { journalFact, startsAfterEnd } from '../../../traffic/read.ts';
import { isRecord } from '../../../util/json.ts';
import { mcpEndpoint, responsesShown, sessionUnknown, sentMessages, wellFormedCalls, type Message } from './traffic.ts';

function answered2xx(ex: Exchange): boolean {
  return ex.status !== undefined && ex.status >= 200 && ex.status < 300;
}

/** The protocolVersion an initialize POST asked for, or undefined when it carried no initialize. */
export function askedVersion(ex: Exchange): string | undefined {
  const init = (sentMessages(ex) ?? []).find((m) => m.method === 'initialize');
  return init && isRecord(init.params) && typeof init.params.protocolVersion === 'string' ? init.params.protocolVersion : undefined;
}

/** What the journal showed of its sessions, whoever asks (`sessionsShown`). */
interface SessionsShown {
  /** The first answer that carried each session id. */
  issuedBy: Map<string, Exchange>;
  /** DELETEs carrying each session id that were answered 2xx (ended) or 404 (already ended). */
  endedBy: Map<string, Exchange[]>;
  /** Requests by the session's own caller answered 404, by the session id they carried: the server may have ended it ("at any time"). */
  goneBy: Map<string, Exchange[]>;
  /** Requests (POST, GET) by the session's own caller answered 2xx, by the session id they carried: it was still open. */
  servedBy: Map<string, Exchange[]>;
  /** notifications/initialized POSTs answered 2xx, by the session id they carried ('' for none). */
  initializedBy: Map<string, Exchange[]>;
  /** initialize POSTs answered 2xx with a result but without an Mcp-Session-Id: the server showed it does not assign sessions. */
  sessionless: Exchange[];
}

/**
 * The sessions the exchanges to the MCP endpoint (the profile's, else /mcp) showed: once per
 * journal and profile for the seven rules reading them (journalFact); rules read it, never change it.
 */
function sessionsShown(exchanges: readonly Exchange[], profile: Profile | undefined): SessionsShown {
  const shown: SessionsShown = { issuedBy: new Map(), endedBy: new Map(), goneBy: new Map(), servedBy: new Map(), initializedBy: new Map(), sessionless: [] };
  const endpoint = mcpEndpoint({ profile });
  for (const ex of exchanges) {
    if (pathOnly(ex) !== endpoint) continue;
    const issued = ex.responseHeaders[SESSION_HEADER];
    if (issued !== undefined && !shown.issuedBy.has(issued)) shown.issuedBy.set(issued, ex);
    const carried = ex.requestHeaders[SESSION_HEADER];
    // Only the session's own caller ends it: another's DELETE may be answered 404 for a session it cannot see.
    const sameCaller = carried !== undefined && shown.issuedBy.get(carried)?.requestHeaders.authorization === ex.requestHeaders.authorization;
    if (ex.method === 'DELETE' && carried !== undefined && sameCaller && (answered2xx(ex) || ex.status === 404)) push(shown.endedBy, carried, ex);
    if (carried !== undefined && sameCaller && ex.status === 404) push(shown.goneBy, carried, ex);
    // A DELETE answered 2xx ended the session rather than showing it served: only a POST or GET shows it open.
    if (carried !== undefined && sameCaller && answered2xx(ex) && ex.method !== 'DELETE') push(shown.servedBy, carried, ex);
    if (!answered2xx(ex)) continue;
    if (ex.method !== 'POST') continue;
    const sent = sentMessages(ex) ?? [];
    if (sent.some((m) => m.method === 'notifications/initialized')) push(shown.initializedBy, carried ?? '', ex);
    // Only an initialize the server accepted (a result) opened a session-less connection; a 2xx carrying an error opened nothing.
    if (issued === undefined && carried === undefined && initializeResultOf(ex) !== undefined) shown.sessionless.push(ex);
  }
  return shown;
}

/** The result an initialize POST was answered with (the response carrying its id), or undefined when it carried none or its answer is not there. */
export function initializeResultOf(ex: Exchange): Record<string, unknown> | undefined {
  const init = (sentMessages(ex) ?? []).find((m) => m.method === 'initialize' && 'id' in m);
  if (!init) return undefined;
  const reply: Message | undefined = (responsesShown(ex) ?? []).find((m) => m.id === init.id);
  return reply && isRecord(reply.result) ? reply.result : undefined;
}

export class SessionHistory {
  private readonly issuedBy: ReadonlyMap<string, Exchange>;
  private readonly endedBy: ReadonlyMap<string, readonly Exchange[]>;
  private readonly goneBy: ReadonlyMap<string, readonly Exchange[]>;
  private readonly servedBy: ReadonlyMap<string, readonly Exchange[]>;
  private readonly initializedBy: ReadonlyMap<string, readonly Exchange[]>;
  private readonly sessionless: readonly Exchange[];

  private readonly j: Pick<Judge, 'lacks'>;

  constructor(j: Pick<Judge, 'exchanges' | 'profile' | 'lacks'>) {
    this.j = j;
    const shown = journalFact(j.exchanges, sessionsShown, j.profile);
    this.issuedBy = shown.issuedBy;
    this.endedBy = shown.endedBy;
    this.goneBy = shown.goneBy;
    this.servedBy = shown.servedBy;
    this.initializedBy = shown.initializedBy;
    this.sessionless = shown.sessionless;
  }

  /** Whether any answer of the journal carried an Mcp-Session-Id: the server manages sessions. */
  get issuesSessions(): boolean {
    return this.issuedBy.size > 0;
  }

  /** The answer that issued `id` before `ex` was sent, if one did. */
  issuedBefore(id: string, ex: Exchange): Exchange | undefined {
    const by = this.issuedBy.get(id);
    return by && startsAfterEnd(ex, by) ? by : undefined;
  }

  /** The DELETE of session `id` answered 2xx or 404 before `ex` was sent, if one was. */
  endedBefore(id: string, ex: Exchange): Exchange | undefined {
    return (this.endedBy.get(id) ?? []).find((d) => startsAfterEnd(ex, d));
  }

  /**
   * The 404 by which the server showed it ended session `id` by the time `ex` was answered: `ex`'s
   * own 404, or one before it, that no request of the session was served after. MCP: "The server MAY
   * terminate the session at any time, after which it MUST respond to requests containing that
   * session ID with HTTP 404 Not Found." So a 404 is a legal answer to any request of a session, and
   * from it on the session's requests get no answer a message rule could judge. A session served
   * again after its 404 was not ended: that 404 stays the request's answer, for its rules to judge.
   */
  endedByServer(id: string, ex: Exchange): Exchange | undefined {
    const served = this.servedBy.get(id) ?? [];
    return (this.goneBy.get(id) ?? []).find((gone) => (gone === ex || startsAfterEnd(ex, gone)) && !served.some((s) => startsAfterEnd(s, gone)));
  }

  /**
   * How the server showed, by the time `ex` was answered, that session `id` had ended: `ex`'s own 404,
   * an earlier 404 to a request of the session's own caller, or an earlier DELETE of it answered 2xx
   * or 404. Unlike `endedByServer`, it reads only `ex` and the exchanges before it: a request is
   * picked by what came before, and a session served again afterwards is ended-stays-404's failure.
   */
  endedSince(id: string, ex: Exchange): Exchange | undefined {
    return (this.goneBy.get(id) ?? []).find((gone) => gone === ex || startsAfterEnd(ex, gone)) ?? this.endedBefore(id, ex);
  }

  /**
   * The first 404 by which the server showed it ended session `id` itself before `ex` was sent: a
   * well-formed POST of the session, by its own caller, answered 404 Not Found. Only a POST counts:
   * a GET answered 404 may be a server offering no GET route (it owes 405, a rule of its own), and a
   * DELETE answered 404 is `endedBefore`'s. Unlike `endedByServer`, a session served again after
   * its 404 still counts as ended here: serving it again is what MCP forbids.
   */
  goneBefore(id: string, ex: Exchange): Exchange | undefined {
    return (this.goneBy.get(id) ?? []).find((gone) => gone.method === 'POST' && startsAfterEnd(ex, gone) && this.issuedBefore(id, gone) !== undefined && wellFormedCalls(gone) !== undefined);
  }

  /** The request carries a session id the server issued before it, that no answered DELETE ended since and the server did not show it ended (`endedByServer`); or, on a server that showed it assigns none, carries none. */
  inOpenSession(ex: Exchange): boolean {
    const id = ex.requestHeaders[SESSION_HEADER];
    if (id === undefined) return this.sessionless.some((s) => startsAfterEnd(ex, s));
    if (sessionUnknown(id)) {
      this.j.lacks(ex, 'its Mcp-Session-Id: the recorder replaced it with a marker, so its session is unknown');
      return false;
    }
    return this.issuedBefore(id, ex) !== undefined && this.endedBefore(id, ex) === undefined && this.endedByServer(id, ex) === undefined;
  }

  /** As `inOpenSession`, and the client finished initialization (notifications/initialized) in it before, for a session of revision 2025-03-26. */
  inOperatingSession(ex: Exchange): boolean {
    if (!this.inOpenSession(ex) || this.laterRevision(ex)) return false;
    return (this.initializedBy.get(ex.requestHeaders[SESSION_HEADER] ?? '') ?? []).some((i) => startsAfterEnd(ex, i));
  }

  /**
   * The initialize exchange that opened the session `ex` was sent in: the answer that issued its
   * Mcp-Session-Id, or, without one, the last session-less initialize before it by the same caller.
   */
  openedBy(ex: Exchange): Exchange | undefined {
    const id = ex.requestHeaders[SESSION_HEADER];
    if (id !== undefined) return this.issuedBefore(id, ex);
    return this.sessionless.filter((s) => startsAfterEnd(ex, s) && s.requestHeaders.authorization === ex.requestHeaders.authorization).at(-1);
  }

  /**
   * The request speaks another revision than /mcp's: it names one in MCP-Protocol-Version, or its
   * session was negotiated to one. MCP 2025-03-26 Lifecycle, Version Negotiation: "In the initialize
   * request, the client MUST send a protocol version it supports. This SHOULD be the latest version
   * supported by the client. If the server supports the requested protocol version, it MUST respond
   * with the same version. Otherwise, the server MUST respond with another protocol version it
   * supports. … If the client does not support the version in the server's response, it SHOULD
   * disconnect." So a client that asked for a later revision, got 2025-03-26 and went on is in a
   * 2025-03-26 session (every current client, the official SDK's included): the revision is the one
   * negotiated, never merely the one asked.
   */
  laterRevision(ex: Exchange): boolean {
    const header = ex.requestHeaders[PROTOCOL_VERSION_HEADER];
    if (header !== undefined && header !== MCP_REVISION) return true;
    const revision = this.sessionRevision(ex);
    return revision !== undefined && revision !== MCP_REVISION;
  }

  /**
   * The revision the session of `ex` runs: the protocolVersion of the answer to its initialize when
   * the journal holds it; else the MCP-Protocol-Version the request carries (later revisions have the
   * client send the negotiated one on every request); else the version the client asked for.
   * Undefined when none is known (no opening before it, and no header).
   */
  sessionRevision(ex: Exchange): string | undefined {
    const opening = this.openingOf(ex);
    const asked = opening ? askedVersion(opening) : undefined;
    // Asked for /mcp's own revision, which /mcp follows (so supports): the server "MUST respond with
    // the same version", and an answer naming another is mcp.lifecycle.version-echo's failure; a
    // client going on without naming another revision (the header above) still speaks 2025-03-26.
    if (asked === MCP_REVISION) return MCP_REVISION;
    const answered = opening ? initializeResultOf(opening)?.protocolVersion : undefined;
    if (typeof answered === 'string') return answered;
    return ex.requestHeaders[PROTOCOL_VERSION_HEADER] ?? asked;
  }

  /** The initialize exchange of the session `ex` was sent in: the answer that issued its Mcp-Session-Id, or, on a server assigning none, `openedBy`. */
  private openingOf(ex: Exchange): Exchange | undefined {
    const id = ex.requestHeaders[SESSION_HEADER];
    return id === undefined ? this.openedBy(ex) : this.issuedBy.get(id);
  }
}

/** Adds `ex` to the exchanges kept under `key`. */
export function push(map: Map<string, Exchange[]>, key: string, ex: Exchange): void {
  const list = map.get(key);
  if (list) list.push(ex);
  else map.set(key, [ex]);
}
