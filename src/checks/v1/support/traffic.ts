/**
 * /v1 as a judgement reads it from exchanges (src/rule/judgement.ts): which mode an execute request
 * was, its idempotency key, who sent it, whether anything but the rule under judgement could
 * refuse it, and the kinds of its stream's events. Everything here is decided from requests and
 * the exchanges before them.
 */
import { IDENTIFIER_PATTERN } from '../../../contract/v1/common.ts';
import { taskRequest } from '../../../contract/v1/task.ts';
import { turnRequest } from '../../../contract/v1/turn.ts';
import { isLoopbackLiteral, onLoopback, parseEndpointUrl } from '../../../contract/v1/webhook-url.ts';
import { webhookRegistration } from '../../../contract/v1/webhooks.ts';
import type { Profile } from '../../../profile/schema.ts';
import { openness } from '../../generated/expectation.ts';
import { credentialIn, type Exchange, type Judge, type Prerequisite, type SseEvent } from '../../../rule/index.ts';
import { exchangesOf, journalFact, onSurface, operation, parsedAs, recordOf, requestBodyMissing, requestJson, responseJson } from '../../../traffic/read.ts';
import { canonicalRequestBody } from '../../../traffic/idempotency.ts';
import { eventKind, FULL_SCOPES, terminalKindsOf } from './fabric.ts';

/** Who sent a request: the same credential is the same caller (a recording shows no more than that). */
export function callerOf(ex: Exchange): string {
  return ex.credential ?? ex.requestHeaders.authorization ?? '';
}

/** The Idempotency-Key of an execute request: the header, or a turn body's own `idempotencyKey`. */
export function executeKey(ex: Exchange): string | undefined {
  const header = ex.requestHeaders['idempotency-key'];
  if (header !== undefined) return header;
  const key = recordOf(requestJson(ex))?.idempotencyKey;
  return typeof key === 'string' ? key : undefined;
}

export type ExecuteMode = 'task' | 'turn';

/** The mode an execute request's body asks for; undefined when the body is not there to read. */
export function modeOf(ex: Exchange): ExecuteMode | undefined {
  if (ex.requestBody === undefined || requestBodyMissing(ex) !== undefined) return undefined;
  return recordOf(requestJson(ex))?.mode === 'task' ? 'task' : 'turn';
}

/** The body is one the contract admits for its mode. */
export function validBody(ex: Exchange, mode: ExecuteMode): boolean {
  return parsedAs(mode === 'task' ? taskRequest : turnRequest, requestJson(ex)).success;
}

/**
 * Why a turn body the contract admits may still be refused by a legal deployment, or undefined: it
 * names state the profile's turn fixture does not (a file, a tool, an approval receipt, a model, a
 * session), or holds text the description leaves open (the generated rules' `openness`). Without a
 * profile every such name is open. Silence is open: such a request is held to no answer.
 */
export function turnMayBeRefused(j: Pick<Judge, 'profile'>, ex: Exchange): string | undefined {
  return openness(turnRequest, requestJson(ex), [], j.profile?.fixtures.v1.turn);
}

/**
 * Why a task body the contract admits may still be refused by a legal deployment, or undefined:
 * "Sub-field shapes of `task`, `context`, `policy` and `delivery`: not shown." (the deployment
 * decides which work it can take), so only a body whose open members are those of one of the
 * profile's task fixtures (the work this deployment said it takes) is held to an answer. Top-level
 * extras stay must-accept ("Task request body (extra properties allowed)"). Without a task fixture
 * every task is open, as every turn is without a profile.
 */
export function taskMayBeRefused(j: Pick<Judge, 'profile'>, ex: Exchange): string | undefined {
  const fixtures = Object.values(j.profile?.fixtures.v1.tasks ?? {}).filter((f) => f !== undefined);
  if (fixtures.length === 0) return 'no task fixture in the profile says which work this deployment takes';
  const body = requestJson(ex);
  let why: string | undefined;
  for (const f of fixtures) {
    why = openness(taskRequest, body, [], f);
    if (why === undefined) return undefined;
  }
  return why;
}

/** A value the contract's Identifier admits (the Idempotency-Key's type). */
export function isIdentifier(value: string): boolean {
  return value.length >= 1 && value.length <= 128 && IDENTIFIER_PATTERN.test(value);
}

/** The canonical text of a request body (JSON canonicalized, else the text): two requests are the same request when these are equal. */
export const canonicalBody = canonicalRequestBody;

/** The kind of a run event: fabric's one reader (the SSE `event` field, else a kind field of its data). */
export function kindOf(e: Pick<SseEvent, 'event' | 'data'>): string | undefined {
  return eventKind(e);
}

/** The kinds that end a run's stream (fabric's, where the probes read them too). */
export { terminalKindsOf };

/** Whether an event ends a run, by `terminal` (terminalKindsOf): the predicate the whole-stream readers (endedStream, streamRead) take. */
export function endsRun(terminal: ReadonlySet<string>): (e: Pick<SseEvent, 'event' | 'data'>) => boolean {
  return (e) => terminal.has(kindOf(e) ?? '');
}

/** Any request may be refused by the rate limiter (429) or a limiter that is down (503): v1.errors.* judge those answers. */
export function limiterRefused(ex: Exchange): boolean {
  return ex.status === 429 || ex.status === 503;
}

/**
 * Whether the credential a request carried is one the deployment admits for runs, as far as can be
 * known: with a profile, an unexpired /v1 key holding runs:read and runs:write that is not the
 * profile's limiter-down key; without one, a credential the same deployment answered 2xx for the
 * same operation before (an earlier exchange).
 */
export function admittedCaller(j: Pick<Judge, 'exchanges' | 'profile'>): (ex: Exchange) => boolean {
  return admittedIn(j.exchanges, j.profile);
}

/** `admittedCaller` of a journal judged with a profile (or none): what it reads, so that journal facts can use it. */
function admittedIn(exchanges: readonly Exchange[], profile: Profile | undefined): (ex: Exchange) => boolean {
  const credentials = profile?.credentials ?? [];
  if (credentials.length > 0) {
    const down = profile?.fixtures.v1.limiterUnavailableCredential;
    return (ex) => {
      // "Scheme: HTTP bearer": a key under another scheme (or none) is no admitted caller, whoever's key it is.
      if (!/^Bearer\s+/i.test(ex.requestHeaders.authorization ?? '')) return false;
      // The profile's credential the request carried (`j.credentialOf`, which asks for the profile only when it has none).
      const c = credentialIn(ex, credentials);
      return c !== undefined && c.surfaces.includes('v1') && !c.expired && FULL_SCOPES.every((s) => c.scopes.includes(s)) && c.name !== down;
    };
  }
  // Scopes differ per operation (a read-only key reads but cannot execute): admitted for this operation before.
  const firstAccepted = journalFact(exchanges, firstAcceptedIn);
  return (ex) => (firstAccepted.get(`${operation(ex)}\n${callerOf(ex)}`) ?? Infinity) < ex.index;
}

/** Where each caller was first answered 2xx for each /v1 operation ("operation\ncaller" to the exchange's index). */
function firstAcceptedIn(exchanges: readonly Exchange[]): ReadonlyMap<string, number> {
  const firstAccepted = new Map<string, number>();
  for (const ex of exchanges) {
    if (!onSurface(ex, 'v1') || ex.status === undefined || ex.status < 200 || ex.status >= 300) continue;
    const caller = `${operation(ex)}\n${callerOf(ex)}`;
    if (callerOf(ex) !== '' && !firstAccepted.has(caller)) firstAccepted.set(caller, ex.index);
  }
  return firstAccepted;
}

/** What `admissibleExecutes` reads of one answered execute request, whatever a rule's options. */
interface ExecuteSeen {
  ex: Exchange;
  mode: ExecuteMode;
  /** Why the request's body is not there whole: the exchange cannot be picked (and nothing below was read). */
  unkept: string | undefined;
  /** The caller used this key on an earlier request. */
  reused: boolean;
  /** Answered by the limiter (429, 503). */
  limited: boolean;
  /** No key, or a key that is an Identifier. */
  identifierKey: boolean;
  /** No X-AI-Platform-Version other than v1. */
  v1: boolean;
}

/**
 * The execute requests of a journal `admissibleExecutes` may hand a rule, in order: those whose
 * body was not kept (the rule lacks them), and those with a body the contract admits that nothing
 * else could refuse, with what the options decide on. A fact of the journal and the profile
 * (journalFact): every part is read from the requests, the exchanges before them (keys used, first
 * acceptance) and the profile (credentials, turn fixture), the same for every rule asking.
 */
function executesIn(exchanges: readonly Exchange[], profile: Profile | undefined): readonly ExecuteSeen[] {
  const admitted = admittedIn(exchanges, profile);
  const keysUsed = new Set<string>();
  const seen: ExecuteSeen[] = [];
  for (const ex of exchangesOf(exchanges, 'v1.execute')) {
    const key = executeKey(ex);
    const scope = key === undefined ? undefined : `${callerOf(ex)}\n${key}`;
    const reused = scope !== undefined && keysUsed.has(scope);
    if (scope !== undefined) keysUsed.add(scope);
    // Turn or task, valid or not, is told by the request's body: a recording without it cannot pick the exchange.
    const unkept = ex.status === undefined ? undefined : requestBodyMissing(ex);
    if (unkept !== undefined) {
      seen.push({ ex, mode: 'turn', unkept, reused, limited: false, identifierKey: false, v1: false });
      continue;
    }
    const mode = modeOf(ex);
    if (mode === undefined || ex.status === undefined || !validBody(ex, mode)) continue;
    if (mode === 'turn' && turnMayBeRefused({ profile }, ex)) continue;
    if (mode === 'task' && taskMayBeRefused({ profile }, ex)) continue;
    const accept = ex.requestHeaders.accept;
    const wanted = mode === 'turn' ? 'text/event-stream' : 'application/json';
    if (accept !== undefined && !accept.includes(wanted) && !accept.includes('*/*')) continue;
    if (!admitted(ex)) continue;
    const version = ex.requestHeaders['x-ai-platform-version'];
    seen.push({ ex, mode, unkept, reused, limited: limiterRefused(ex), identifierKey: key === undefined || isIdentifier(key), v1: version === undefined || version === 'v1' });
  }
  return seen;
}

/**
 * An execute request nothing but its mode's own rules could refuse: a body the contract admits (for a turn, one naming no state the profile does not give; for a task, one whose open members are those of a task fixture), an
 * admitted caller, a key that is an Identifier and that this caller has not used before (a replay
 * or conflict is judged by the idempotency rules), no other X-AI-Platform-Version than `v1`, and an
 * Accept that does not ask for the other mode's answer. Each is read from the request and the
 * exchanges before it; the callback gets every such request in order.
 */
export function admissibleExecutes(j: Judge, each: (ex: Exchange, mode: ExecuteMode) => void, options: { anyVersion?: boolean; anyKey?: boolean; limited?: boolean } = {}): void {
  for (const s of journalFact(j.exchanges, executesIn, j.profile)) {
    if (s.unkept !== undefined) {
      j.lacks(s.ex, `the request's body: ${s.unkept}`);
      continue;
    }
    if (s.reused && !options.anyKey) continue;
    if (s.limited && !options.limited) continue;
    if (!s.identifierKey && !options.anyKey) continue;
    if (!s.v1 && !options.anyVersion) continue;
    each(s.ex, s.mode);
  }
}

/**
 * A registration's URL the deployment under test may have been told to allow although it breaks
 * the URL rules: the profile's public receiver URL, or a loopback address literal (where a test
 * receiver listens) when the profile names no receiver or one on loopback. A deployment told of a
 * receiver elsewhere was told nothing of loopback: "Rejected: ... IP literals, private networks".
 */
export function testReceiverUrl(j: Pick<Judge, 'profile'>, url: string): boolean {
  const receiver = j.profile?.fixtures.webhooks.publicReceiverUrl;
  const parsed = parseEndpointUrl(url);
  // An origin leaves out user and password: embedded credentials are refused on the receiver's host too.
  if (receiver !== undefined && parsed !== undefined && parsed.url.username === '' && parsed.url.password === '' && parsed.url.origin === parseEndpointUrl(receiver)?.url.origin) return true;
  return isLoopbackLiteral(url) && (receiver === undefined || onLoopback(receiver));
}

/**
 * Every POST /v1/webhooks whose body is a registration (a JSON object with a string url), sent by
 * an admitted caller and not refused by the limiter, with that url; in order.
 */
export function registrations(j: Judge, each: (ex: Exchange, url: string) => void): void {
  for (const [ex, url] of journalFact(j.exchanges, registrationsOf, j.profile)) each(ex, url);
}

/** `registrations` of a journal and profile, found once for the rules walking them (journalFact): read from the requests and the callers admitted before. */
export function registrationsOf(exchanges: readonly Exchange[], profile: Profile | undefined): ReadonlyArray<readonly [Exchange, string]> {
  const admitted = admittedIn(exchanges, profile);
  const out: Array<readonly [Exchange, string]> = [];
  for (const ex of exchangesOf(exchanges, 'v1.webhooks.create')) {
    if (operation(ex) !== 'v1.webhooks.create' || ex.status === undefined || limiterRefused(ex)) continue;
    const body = parsedAs(webhookRegistration, requestJson(ex));
    if (!body.success || !admitted(ex)) continue;
    out.push([ex, body.data.url]);
  }
  return out;
}

/**
 * Why the deployment refused a registration for room rather than for the request, or undefined:
 * the description sets no number of endpoints a tenant may hold, so a deployment may cap them and
 * refuse the next whatever its body, as 403 `entitlement_failed` (an entitlement of the plan), 409
 * (the tenant's state) or 429 (a quota; "Mapping of each `code` to an HTTP status: not shown.").
 * Such an answer says nothing of the registration's URL or secret: the rules that needed the
 * registration judge nothing from it. Any other refusal is the request's own (as before).
 */
export function roomRefusal(status: number | undefined, body: unknown): string | undefined {
  const code = recordOf(body)?.code;
  if ((status === 403 && code === 'entitlement_failed') || status === 409 || status === 429) return `${status}${typeof code === 'string' ? ` ${code}` : ''}`;
  return undefined;
}

/** The prerequisite a registration refused for room leaves missing: the message names the cause and what to do. */
export function noRoom(refusal: string): Prerequisite {
  const wait = refusal.startsWith('429') ? ' (or, if its rate limiter refused, wait)' : '';
  return { need: 'data', what: `no room for another webhook endpoint (it refused to register another endpoint: ${refusal})`, remedy: `free registrations or raise the cap${wait}, then run the rule again` };
}

/**
 * Registrations refused for room across one judgement: each is passed over (judged by no rule), and
 * a judgement that judged nothing else is untestable, naming the first refusal (`noRoom`).
 */
export class RoomRefusals {
  private first: string | undefined;

  /** Whether the registration `ex` was refused for room, so is not judged. */
  passOver(ex: Exchange): boolean {
    const room = roomRefusal(ex.status, responseJson(ex));
    if (room !== undefined) this.first ??= room;
    return room !== undefined;
  }

  /** Ends the judgement untestable when it judged nothing but registrations refused for room. */
  settle(j: Pick<Judge, 'untestable'>, judged: boolean): void {
    if (!judged && this.first !== undefined) j.untestable(noRoom(this.first));
  }
}
