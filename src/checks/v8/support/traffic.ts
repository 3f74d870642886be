/**
 * /v8 missions as a judgement reads them from exchanges (src/rule/judgement.ts): which mission a
 * request names, and what the exchanges before it showed of that mission's state.
 */
import { endpointOf } from '../../../contract/endpoints.ts';
import { missionProjection, TERMINAL_EVENT_STATUS, TERMINAL_STATUSES, type MissionProjection, type MissionStatus } from '../../../contract/v8/missions.ts';
import type { Credential, Profile } from '../../../profile/schema.ts';
import type { z } from 'zod';
import { credentialIn, mediaType, pathOnly, type Exchange, type Judge } from '../../../rule/index.ts';
import { pathIdentifier } from '../../../contract/v8/common.ts';
import { resolveRole } from '../../../profile/roles.ts';
import { TRACE_INDEX_BOUND_MS } from './read.ts';
import { firstNaming, type TraceNaming } from '../../../traffic/trace-naming.ts';
import { answerJson, eventsOf, exchangeFact, exchangesOf, hasWholeBody, idAfter, issuesOf, journalFact, openRequestForm, operation, parsedAs, requestJson, responseJson, startsAfterEnd } from '../../../traffic/read.ts';
import { canonicalJson, isRecord } from '../../../util/json.ts';
import { openness } from '../../generated/expectation.ts';
import { isJsonMediaType } from '../../../probe/body.ts';

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
    const parsed = parsedAs(missionProjection, responseJson(ex));
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
  for (const [ex, terminal] of journalFact(exchanges, terminalsBefore)) each(ex, terminal);
}

/** `withTerminalBefore` over the exchanges of one operation only, in order: for a judgement that reads no other exchange. */
export function withTerminalBeforeOn(exchanges: readonly Exchange[], op: string, each: (ex: Exchange, terminal: TerminalSighting | undefined) => void): void {
  for (const [ex, terminal] of journalFact(exchanges, terminalsBeforeByOperation).get(op) ?? []) each(ex, terminal);
}

function terminalsBeforeByOperation(exchanges: readonly Exchange[]): ReadonlyMap<string, ReadonlyArray<readonly [Exchange, TerminalSighting | undefined]>> {
  return byOperationOf(journalFact(exchanges, terminalsBefore));
}

/** A walk's pairs grouped by their exchange's operation, each group in journal order (as `exchangesOf` groups exchanges). */
function byOperationOf<T>(pairs: ReadonlyArray<readonly [Exchange, T]>): ReadonlyMap<string, ReadonlyArray<readonly [Exchange, T]>> {
  const groups = new Map<string, Array<readonly [Exchange, T]>>();
  for (const pair of pairs) {
    const op = operation(pair[0]);
    const group = groups.get(op);
    if (group) group.push(pair);
    else groups.set(op, [pair]);
  }
  return groups;
}

/**
 * `withTerminalBefore`'s walk, once per journal for every rule taking it (journalFact): what it
 * hands each exchange is read from the exchanges before it alone.
 */
function terminalsBefore(exchanges: readonly Exchange[]): ReadonlyArray<readonly [Exchange, TerminalSighting | undefined]> {
  const seen = new Map<string, TerminalSighting>();
  const out: Array<readonly [Exchange, TerminalSighting | undefined]> = [];
  for (const ex of exchanges) {
    const runId = missionOf(ex);
    if (runId === undefined) continue;
    const key = `${callerOf(ex)}\n${runId}`;
    const known = seen.get(key);
    out.push([ex, known && startsAfterEnd(ex, known.seenOn) ? known : undefined]);
    if (!known) {
      const shown = terminalShown(ex);
      if (shown) seen.set(key, shown);
    }
  }
  return out;
}

/**
 * Whether the caller of a request may use a scope: the profile says so (a credential holding it,
 * not expired); without a profile, an earlier request of the same credential needing that scope
 * was accepted (2xx). Never the judged exchange's own answer, nor a later one: the answer a rule
 * judges must not decide whether it judges (a valid create answered 202 and the same create
 * answered 400 are alike: not judged as that caller's first).
 */
export class Callers {
  /** Where the journal first shows each caller accepted for each scope ("caller\nscope" to the exchange's index), shared by every rule judging that journal. */
  private readonly firstAccepted: ReadonlyMap<string, number>;
  private readonly credentials: readonly Credential[];
  constructor(j: Pick<Judge, 'profile'> & Partial<Pick<Judge, 'exchanges'>>) {
    this.credentials = j.profile?.credentials ?? [];
    this.firstAccepted = this.credentials.length === 0 && j.exchanges ? journalFact(j.exchanges, firstAcceptedIn) : new Map();
  }

  holds(ex: Exchange, scope: string): boolean {
    // "Requests from http:// origins are rejected" (the http-origin rule's): such a request is no ordinary one.
    if (ex.requestHeaders.origin?.startsWith('http://')) return false;
    if (this.credentials.length > 0) {
      const c = credentialIn(ex, this.credentials);
      return c !== undefined && !c.expired && c.scopes.includes(scope);
    }
    // Earlier is a lower index: a recording's entry order, and an active run's order of sending.
    return (this.firstAccepted.get(`${callerOf(ex)}\n${scope}`) ?? Infinity) < ex.index;
  }

  /** The principal of the request's credential, when the profile names it. */
  principalOf(ex: Exchange): string | undefined {
    return credentialIn(ex, this.credentials)?.principal;
  }
}

/** Where each caller was first answered 2xx for each scope, by the operations needing it (a fact of the journal: journalFact). */
function firstAcceptedIn(exchanges: readonly Exchange[]): ReadonlyMap<string, number> {
  const first = new Map<string, number>();
  for (const ex of exchanges) {
    if (ex.status === undefined || ex.status < 200 || ex.status >= 300) continue;
    const scope = endpointOf(ex.method, ex.path)?.scope;
    if (!scope) continue;
    const key = `${callerOf(ex)}\n${scope}`;
    const known = first.get(key);
    // The lowest index, whatever order the answers came in (an active run's answers may end out of order).
    if (known === undefined || ex.index < known) first.set(key, ex.index);
  }
  return first;
}

/** Walks the exchanges with a `Callers` that knows what came before each. */
export function withCallers(j: Judge, each: (ex: Exchange, callers: Callers) => void): void {
  const callers = new Callers(j);
  for (const ex of j.exchanges) each(ex, callers);
}

/**
 * `withCallers` over the exchanges of one operation only, in order: the same walk for a judgement
 * that reads no other exchange (what a `Callers` knows is of the whole journal, whatever the walk visits).
 */
export function withCallersOn(j: Judge, op: string, each: (ex: Exchange, callers: Callers) => void): void {
  const callers = new Callers(j);
  // A request carrying a form a deployment may refuse for itself (a query, an Accept no answer meets) is held to no answer here.
  for (const ex of exchangesOf(j.exchanges, op)) if (openRequestForm(ex) === undefined) each(ex, callers);
}

/** The mission a 202 create answer made, read from an earlier exchange. */
export function createdMission(ex: Exchange): MissionProjection | undefined {
  if (ex.status !== 202 || operation(ex) !== 'v8.missions.create') return undefined;
  const parsed = parsedAs(missionProjection, responseJson(ex));
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

/** What the exchanges before a request showed of the mission its path names. */
export interface MissionSeen {
  /** The caller's own create of it (an earlier exchange), when the same caller created it. */
  creator?: Exchange;
  /** Its terminal state, when an exchange that ended before showed it (to the same caller). */
  terminal?: TerminalSighting;
  /** An earlier keyed cancel of it by the same caller. */
  cancelled?: Exchange;
  /** The parsed body its create sent. */
  createBody?: unknown;
}

/**
 * Walks the exchanges in order with, for each that names a mission in its path, what earlier
 * exchanges showed of that mission, and the callers' scopes: everything a /v8 missions judgement
 * may pick a request by besides the request itself.
 */
export function withMissions(j: Judge, each: (ex: Exchange, seen: Readonly<MissionSeen>, callers: Callers) => void): void {
  const callers = new Callers(j);
  for (const [ex, seen] of journalFact(j.exchanges, missionsSeen)) each(ex, seen, callers);
}

/**
 * `withMissions` over the exchanges of one operation only, in order: the same walk for a judgement
 * that reads no other exchange (what each is handed is still read from every exchange before it).
 */
export function withMissionsOn(j: Judge, op: string, each: (ex: Exchange, seen: Readonly<MissionSeen>, callers: Callers) => void): void {
  const callers = new Callers(j);
  for (const [ex, seen] of journalFact(j.exchanges, missionsSeenByOperation).get(op) ?? []) if (openRequestForm(ex) === undefined) each(ex, seen, callers);
}

function missionsSeenByOperation(exchanges: readonly Exchange[]): ReadonlyMap<string, ReadonlyArray<readonly [Exchange, Readonly<MissionSeen>]>> {
  return byOperationOf(journalFact(exchanges, missionsSeen));
}

/** What an exchange naming no mission is handed: nothing seen. */
const NOTHING_SEEN: Readonly<MissionSeen> = Object.freeze({});

/**
 * What `withMissions` hands each exchange, worked out once per journal for the six rules walking
 * it (journalFact): each exchange's is read from the exchanges before it alone (no profile), and
 * rules read it, never change it.
 */
function missionsSeen(exchanges: readonly Exchange[]): ReadonlyArray<readonly [Exchange, Readonly<MissionSeen>]> {
  const creators = new Map<string, Exchange>();
  const terminals = new Map<string, TerminalSighting>();
  const cancels = new Map<string, Exchange>();
  const out: Array<readonly [Exchange, Readonly<MissionSeen>]> = [];
  for (const ex of exchanges) {
    const runId = missionOf(ex);
    const caller = callerOf(ex);
    if (runId !== undefined) {
      const key = `${caller}\n${runId}`;
      const seen: MissionSeen = {};
      const creator = creators.get(runId);
      if (creator && callerOf(creator) === caller && startsAfterEnd(ex, creator)) {
        seen.creator = creator;
        seen.createBody = requestJson(creator);
      }
      const terminal = terminals.get(key);
      if (terminal && startsAfterEnd(ex, terminal.seenOn)) seen.terminal = terminal;
      const cancel = cancels.get(key);
      if (cancel && startsAfterEnd(ex, cancel)) seen.cancelled = cancel;
      out.push([ex, seen]);
      if (!terminals.has(key)) {
        const shown = terminalShown(ex);
        if (shown) terminals.set(key, shown);
      }
      if (operation(ex) === 'v8.missions.cancel' && ex.requestHeaders['idempotency-key'] !== undefined && !cancels.has(key)) cancels.set(key, ex);
    } else {
      out.push([ex, NOTHING_SEEN]);
    }
    const made = createdMission(ex);
    if (made && !creators.has(made.runId)) creators.set(made.runId, ex);
  }
  return out;
}

/** Whether a create sent the profile's fixture body of that name (a mission known to wait, to fail, ...). */
export function sentFixture(j: Pick<Judge, 'profile'>, body: unknown, name: keyof Profile['fixtures']['v8']['missions']): boolean {
  const fixture = j.profile?.fixtures.v8.missions[name];
  return fixture !== undefined && body !== undefined && canonicalJson(fixture) === canonicalJson(body);
}

/**
 * A mission's first terminal state, seen by a caller on its stream (or a read), fixes its state:
 * every later read of it by that caller, sent after that exchange ended, must show the status the
 * terminal event names. `which` picks the terminal states a rule speaks of.
 */
export function judgeReadsAfterTerminal(j: Judge, which: (status: MissionStatus) => boolean): void {
  withTerminalBefore(j.exchanges, (ex, terminal) => {
    // A read in a form a deployment may refuse for itself (a query, an Accept no answer meets) owes no 200, ended mission or not.
    if (!terminal || operation(ex) !== 'v8.missions.get' || ex.status === undefined || ex.status === 429 || !which(terminal.status) || openRequestForm(ex) !== undefined) return;
    if (!j.check(ex, ex.status === 200, `a read of mission ${missionOf(ex)} after it ended answered ${ex.status}, expected 200`, [terminal.seenOn])) return;
    const parsed = parsedAs(missionProjection, responseJson(ex));
    if (!parsed.success) return;
    j.check(ex, parsed.data.status === terminal.status, `after its terminal state ${terminal.status} (shown on exchange #${terminal.seenOn.index}) the mission reads back as ${parsed.data.status}`, [terminal.seenOn]);
  });
}

/** Who a request speaks for: the profile's principal of its credential, else the credential itself. */
export function principalKey(callers: Callers, ex: Exchange): string {
  const principal = callers.principalOf(ex);
  return principal === undefined ? `caller:${callerOf(ex)}` : `principal:${principal}`;
}

/** The last path segment, decoded: the id a read names. */
export function lastSegment(ex: Exchange): string {
  const raw = pathOnly(ex).split('/').filter(Boolean).pop() ?? '';
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/**
 * Whether a read of a trace started at least TRACE_INDEX_BOUND_MS after the stream that named it ended
 * (its step event came before); undefined when the journal gives no times. No sentence says when a
 * trace becomes readable: a 404 before that may be an index still catching up.
 */
export function pastIndexBound(read: Exchange, naming: Exchange): boolean | undefined {
  if (read.startedAt === undefined || naming.startedAt === undefined || naming.durationMs === undefined) return undefined;
  return Date.parse(read.startedAt) >= Date.parse(naming.startedAt) + naming.durationMs + TRACE_INDEX_BOUND_MS;
}

/** A trace an earlier mission stream named, with what that stream showed of it (`stream`, whether it `ended`). */
export type SeenTrace = TraceNaming;

/**
 * Walks the exchanges with, for each GET /v8/traces/{traceId}, the step trace an earlier mission
 * stream (of the same principal) named with that id, when one did.
 */
export function withSeenTraces(j: Judge, each: (ex: Exchange, seen: SeenTrace | undefined, callers: Callers) => void): void {
  const callers = new Callers(j);
  for (const [ex, seen] of journalFact(j.exchanges, tracesSeen, j.profile)) each(ex, seen, callers);
}

/**
 * What `withSeenTraces` hands each trace read, once per journal and profile for every rule taking
 * it (journalFact): the first 200 stream before it naming the trace, keyed by principal (the
 * profile's, else the credential), when that stream ended before the read began. One object per
 * principal and trace: v8.traces.get.resolves gathers a trace's reads by it.
 */
function tracesSeen(exchanges: readonly Exchange[], profile: Profile | undefined): ReadonlyArray<readonly [Exchange, SeenTrace | undefined]> {
  const callers = new Callers({ profile, exchanges });
  const out: Array<readonly [Exchange, SeenTrace | undefined]> = [];
  for (let position = 0; position < exchanges.length; position += 1) {
    const ex = exchanges[position]!;
    if (operation(ex) !== 'v8.traces.get') continue;
    const reader = principalKey(callers, ex);
    const seen = firstNaming(exchanges, lastSegment(ex), position, (n) => n.stream.status === 200 && operation(n.stream) === 'v8.missions.events' && principalKey(callers, n.stream) === reader);
    out.push([ex, seen && startsAfterEnd(ex, seen.stream) ? seen : undefined]);
  }
  return out;
}

/**
 * The path-id bounds of skills and traces, judged on every read of one by a caller holding its
 * scope: a 256-character id of the pattern is not refused as malformed; an id past the length or
 * the pattern is refused with 400 or 404 (whether an unknown id answers 404 is another rule).
 */
export function judgeIdBounds(j: Judge, op: string, scope: string, name: string): void {
  withCallersOn(j, op, (ex, callers) => {
    if (operation(ex) !== op || ex.status === undefined || ex.status === 429 || !callers.holds(ex, scope)) return;
    const id = lastSegment(ex);
    const wellFormed = pathIdentifier.safeParse(id).success;
    if (wellFormed && id.length === 256) j.check(ex, ![400, 414].includes(ex.status), `an unknown ${name} of 256 characters, within the bound, was refused as malformed with ${ex.status}`);
    else if (!wellFormed) j.check(ex, ex.status === 400 || ex.status === 404, `a ${name} outside 1-256 characters or the pattern (${id.length} characters) answered ${ex.status}, expected 400 or 404`);
  });
}

/**
 * A /v8 JSON answer's media type: "Mission events stream text/event-stream and everything else returns
 * JSON." names no single type, and the same sentence covers failures, which are application/problem+json;
 * so application/json or any `+json` structured-syntax suffix type (RFC 6839 §3.1) is JSON. Which one
 * the deployment chose is recorded.
 */
export function judgeJsonMediaType(j: Judge, ex: Exchange, what: string): void {
  const type = mediaType(ex.responseHeaders);
  if (!j.check(ex, isJsonMediaType(type), `${what} answered content-type "${type}", expected JSON (application/json or a +json type)`)) return;
  // Each type once per judgement: a recording's thousands of answers would otherwise each add the same observation.
  let seen = observedTypes.get(j);
  if (!seen) observedTypes.set(j, (seen = new Set()));
  if (seen.has(type)) return;
  seen.add(type);
  j.observe('JSON answer media type', type);
}

const observedTypes = new WeakMap<Judge, Set<string>>();

export interface ReadAnswers {
  op: string;
  scope: string;
  /** How cases name the answer: "capability search". */
  name: string;
  schema: z.ZodType;
  /** Whether the request alone (and the profile) says it must be answered 200: a valid body, the fixture's resource. */
  expect200?: (ex: Exchange) => boolean;
  /** Further judgements of a 200 answer's parsed value. */
  extra?: (ex: Exchange, value: unknown) => void;
}

/**
 * The answers of a /v8 read, judged from every request to it by a caller holding its scope: a
 * request that must succeed (`expect200`) answered 200, and every 200 is JSON of the contract's
 * shape. A 429 is the rate limit's rule.
 */
export function judgeReadAnswers(j: Judge, r: ReadAnswers): void {
  withCallersOn(j, r.op, (ex, callers) => {
    if (operation(ex) !== r.op || ex.status === undefined || ex.status === 429 || !callers.holds(ex, r.scope)) return;
    if (r.expect200?.(ex) && !j.check(ex, ex.status === 200, `${r.name} answered ${ex.status}, expected 200`)) return;
    if (ex.status !== 200) return;
    judgeJsonMediaType(j, ex, r.name);
    const json = answerJson(j, ex);
    if (json === undefined && !hasWholeBody(ex)) return;
    const parsed = parsedAs(r.schema, json);
    if (j.check(ex, parsed.success, `${r.name} does not have the contract's shape (${parsed.success ? '' : issuesOf(parsed.error)})`)) r.extra?.(ex, parsed.data);
  });
}

/** A listing the seed shows in two forms (goals, certificates): each item of whichever form has the item's shape. */
export function judgeListingItems(j: Judge, key: string, item: z.ZodType): (ex: Exchange, value: unknown) => void {
  return (ex, value) => {
    const items = Array.isArray(value) ? value : isRecord(value) && Array.isArray(value[key]) ? (value[key] as unknown[]) : [];
    for (const [i, it] of items.entries()) {
      const parsed = item.safeParse(it);
      j.check(ex, parsed.success, `${key} item #${i + 1} does not have the contract's shape (${parsed.success ? '' : issuesOf(parsed.error)})`);
    }
  };
}

/** The principal the profile's fixtures belong to: that of the primary v8 credential (the one holding the most scopes). */
export function primaryPrincipal(j: Pick<Judge, 'profile'>): string | undefined {
  if (!j.profile) return undefined;
  const resolved = resolveRole(j.profile, 'v8:primary');
  return resolved.credential?.principal;
}

/** "A body containing `principalId` is rejected with `403`": every such request by a caller holding the scope, whichever principal it names. */
export function judgePrincipalInBody(j: Judge, op: string, scope: string, what: string): void {
  withCallersOn(j, op, (ex, callers) => {
    if (operation(ex) !== op || ex.status === undefined || ex.status === 429 || !callers.holds(ex, scope)) return;
    const body = requestJson(ex);
    if (!isRecord(body) || !('principalId' in body)) return;
    j.check(ex, ex.status === 403, `${what} with principalId ${JSON.stringify(body.principalId)} answered ${ex.status}, expected 403`);
  });
}

/**
 * Every listing of a two-form payload (goals, certificates) read by a caller holding its scope:
 * it answers 200 and its payload takes one of the two forms; `each` judges the items of the form found.
 */
export function judgeListingForms(j: Judge, op: string, scope: string, schema: z.ZodType, names: { name: string; key: string }, each?: (ex: Exchange, listing: { form: string; items: unknown[] }) => void): void {
  withCallersOn(j, op, (ex, callers) => {
    if (operation(ex) !== op || ex.status === undefined || ex.status === 429 || !callers.holds(ex, scope)) return;
    if (!j.check(ex, ex.status === 200, `${names.name} answered ${ex.status}, expected 200`)) return;
    const json = answerJson(j, ex);
    if (json === undefined && !hasWholeBody(ex)) return;
    const parsed = parsedAs(schema, json);
    const listing = !parsed.success ? undefined : Array.isArray(parsed.data) ? { form: 'array', items: parsed.data as unknown[] } : { form: 'object wrapper', items: (parsed.data as Record<string, unknown[]>)[names.key] ?? [] };
    if (!j.check(ex, listing !== undefined, `the ${names.key} payload is neither an object with a ${names.key} array nor an array`) || !listing) return;
    j.observe(`${names.key} payload form`, listing.form);
    each?.(ex, listing);
  });
}

/**
 * Why a body the contract's schema accepts may still be refused by a legal deployment (a NUL or a
 * lone surrogate, free text past any stated bound, ...: the generated rules' `openness`), or
 * undefined. Such a request is held to no answer: silence is open. The body is its own base, so a
 * value is not open merely for differing from the profile's fixture.
 */
export function mayBeRefused(ex: Exchange, body: unknown): string | undefined {
  // Rules ask it of the body the request sent (requestJson): worked out once per exchange while that body stands.
  if (body !== undefined && body === requestJson(ex)) return exchangeFact(ex, sentMayBeRefused, body);
  return bodyMayBeRefused(ex, body);
}

function sentMayBeRefused(ex: Exchange): string | undefined {
  return bodyMayBeRefused(ex, requestJson(ex));
}

/**
 * Whether a request's body is one the contract's `schema` admits and nothing else may refuse
 * (`mayBeRefused`): a request that reuses a key with such a body can be refused for its key alone.
 * With any other body the error table names two causes, `400` for the body and `409` for the key,
 * and does not say which is checked first: either answer is legal, so the conflict rules judge
 * only these.
 */
export function admissibleBody(schema: z.ZodType): (ex: Exchange) => boolean {
  return (ex) => {
    const body = requestJson(ex);
    return parsedAs(schema, body).success && mayBeRefused(ex, body) === undefined;
  };
}

function bodyMayBeRefused(ex: Exchange, body: unknown): string | undefined {
  return openness(endpointOf(ex.method, ex.path)?.bodies[0]?.schema, body, [], body);
}
