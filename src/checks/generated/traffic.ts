/**
 * The generated rules' one judgement over a journal: every exchange of the rule's surface, picked by
 * its request, its expectation computed from the request as sent (`expectationOf`) and what the
 * deployment is known to hold, its answer judged by `judgeAnswer`. The generated engine and the
 * catalogue only provoke: the same function judges their exchanges, a recording and the proxy.
 *
 * What the deployment holds (`Known`) comes from the profile (its fixtures, which credential is the
 * primary one) and from the exchanges before: the ids an earlier answer handed to the same
 * principal in a member naming their kind (`NAMING`), the MCP session an `initialize` answer gave.
 * What neither shows is open, never guessed: an id another principal's answers named, one an answer
 * showed under another name, a credential other than the primary one (its scopes and expiry
 * decide), a signal to a mission whose state no exchange showed. An answer repeating what a request
 * wrote names nothing.
 */
import type { EndpointSurface } from '../../contract/endpoints.ts';
import { isJsonMediaType } from '../../probe/body.ts';
import { resolveRole, roleName } from '../../profile/roles.ts';
import type { Credential, Profile } from '../../profile/schema.ts';
import { mediaType, pathOnly, Untestable, type CheckContext, type Exchange, type Judge, type Judgement as RuleJudgement } from '../../rule/index.ts';
import { bodyJson, bodyMissing, conditionalForm, dataOf, eventsOf, journalFact, oversizedHead } from '../../traffic/read.ts';
import { sharingKeysInFlight } from '../../traffic/shared-keys.ts';
import { firstNaming, type TraceNaming } from '../../traffic/trace-naming.ts';
import { eventData, eventKind, terminalKindsOf } from '../v1/support/fabric.ts';
import { pastIndexBound } from '../v8/support/traffic.ts';
import { TRACE_INDEX_BOUND_MS } from '../v8/support/read.ts';
import { readPath } from '../v1/runs/approve.ts';
import { isRecord, parseJson } from '../../util/json.ts';
import { endpointFor, EXPECTATION_SENTENCES, expectationOf, pathParamsOf, type Expectation, type Known, type SentRequest } from './expectation.ts';
import { bodyFixtures } from './engine.ts';
import { isRedirect, judgeAnswer, judgesAspect, type Answer, type Aspect } from './judgement.ts';
import { isLimited } from './oracles.ts';
import { mcpEndpoint } from '../mcp/support/traffic.ts';

const MARKER = /^«redacted:token:(.+)»$/;

/** The request as the expectation reads it: the Authorization header a profile credential set is the credential's name, any other one stays a header. */
export function sentOfExchange(ex: Exchange, credentials: readonly Credential[], path = ex.path): SentRequest {
  const token = bearerToken(ex);
  const credential = credentialNamed(token, credentials);
  const headers: Record<string, string> = {};
  for (const k of Object.keys(ex.requestHeaders)) if (credential === null || k !== 'authorization') headers[k] = ex.requestHeaders[k]!;
  const out: SentRequest = { method: ex.method, path, headers, credential };
  if (token !== undefined && credential === null && credentials.length === 0) out.bearerOfUnknownValidity = true;
  if (ex.requestBody !== undefined) out.body = ex.requestBody;
  return out;
}

/** The token of the request's Authorization header, when it has the form a client writes for a credential. */
function bearerToken(ex: Exchange): string | undefined {
  const auth = ex.requestHeaders.authorization;
  // Only the header the client writes for a credential (`Bearer <token>`) is that credential; any other form is a malformed request.
  // The scheme is case-insensitive (RFC 9110, 11.1), as the catalogue's "same request" cases state.
  return auth === undefined ? undefined : /^bearer +(\S+)$/i.exec(auth)?.[1];
}

/** The credential a bearer token is: the profile's of that token or redaction marker, else a marker's name; null for any other token. */
function credentialNamed(token: string | undefined, credentials: readonly Credential[]): string | null {
  if (token === undefined) return null;
  const marker = MARKER.exec(token)?.[1];
  const named = credentials.find((c) => (marker !== undefined ? c.name === marker : c.token === token));
  return named ? named.name : (marker ?? null);
}

function eventText(ex: Exchange): string {
  return (ex.events ?? []).map((e) => `${e.id !== undefined ? `id: ${e.id}\n` : ''}${e.event !== undefined ? `event: ${e.event}\n` : ''}${e.data.split('\n').map((line) => `data: ${line}`).join('\n')}\n\n`).join('');
}

/** The answer as the judgement reads it; a body that is not there whole is not guessed. */
export function answerOfExchange(ex: Exchange): Answer {
  const contentType = (ex.responseHeaders['content-type'] ?? '').toLowerCase();
  const text = ex.responseBody ?? (ex.events ? eventText(ex) : '');
  const json = isJsonMediaType(contentType) || /json/.test(contentType) ? bodyJson(ex, 'response', text) : undefined;
  const answer: Answer = { status: ex.status ?? 0, headers: ex.responseHeaders, contentType, json, text };
  if (ex.responseBodyTruncated && !restEventStream(ex)) answer.cut = true;
  if (json === undefined && isJsonMediaType(contentType) && text.trim() !== '' && !ex.responseBodyTruncated) answer.malformed = `is ${mediaType(ex.responseHeaders)} but not JSON`;
  return answer;
}

/** The kinds of resource a path parameter names: a /v8 mission, trace or skill, a /v1 run. */
type Kind = 'mission' | 'trace' | 'skill' | 'run';

/** The kind each path parameter of the contract names (src/contract/endpoints.ts). */
const PARAM_KIND: Readonly<Record<string, Kind>> = { runId: 'mission', traceId: 'trace', skillId: 'skill', id: 'run' };

/**
 * The members in which an answer names a resource of a kind, each by the sentence that names it:
 * "It assigns each mission a `runId`", a trace's "`missionRunId` (UUID string)", step events whose
 * "data includes `traceId`", the skill's "| skillId | string |", /v1's "required `run_id`". A string
 * in any other member (an echo of the purpose, an entryId, a capabilityId: no sentence makes a
 * capability's id a skill's) is only shown, which leaves its lookup open both ways.
 */
const NAMING: ReadonlyMap<string, Kind> = new Map([
  ['runId', 'mission'],
  ['missionRunId', 'mission'],
  ['traceId', 'trace'],
  ['skillId', 'skill'],
  ['run_id', 'run'],
]);

/** The longest string a path parameter takes ("1-256 chars"): a longer one names nothing a path can look up. */
const ID_MAX = 256;

/**
 * What an answer hands out, a few levels deep: a string in a member naming a kind (`NAMING`) is a
 * resource of that kind handed to `principal`; every string is shown. A string a request wrote
 * before any answer showed it (`written`) is the client's own text repeated: it hands out nothing,
 * and in a naming member it is only shown (a deployment may have named a resource with it).
 */
function idsIn(value: unknown, seen: Seen, principal: string, depth = 0): void {
  if (depth > 4) return;
  if (Array.isArray(value)) {
    const n = Math.min(value.length, 200);
    for (let i = 0; i < n; i += 1) idsIn(value[i], seen, principal, depth + 1);
    return;
  }
  if (!isRecord(value)) return;
  // for-in, not Object.keys: the same keys in the same order for a parsed JSON object, without an array per object (some 100k per judging).
  for (const k in value) {
    const v = value[k];
    if (typeof v === 'string' && v.length <= ID_MAX) {
      if (seen.written.has(v)) {
        if (NAMING.has(k)) seen.shown.add(v);
        continue;
      }
      seen.shown.add(v);
      const kind = NAMING.get(k);
      if (kind !== undefined) handedTo(seen.named, `${kind} ${v}`, principal);
    } else if (typeof v === 'object') idsIn(v, seen, principal, depth + 1);
  }
}

/** Notes the strings of a request's JSON body that no answer showed before: the client's own text, which an answer may echo. */
function writtenIn(value: unknown, seen: Seen, depth = 0): void {
  if (depth > 4) return;
  if (typeof value === 'string') {
    if (value.length <= ID_MAX && !seen.shown.has(value)) seen.written.add(value);
    return;
  }
  if (Array.isArray(value)) {
    const n = Math.min(value.length, 200);
    for (let i = 0; i < n; i += 1) writtenIn(value[i], seen, depth + 1);
    return;
  }
  if (isRecord(value)) for (const k in value) writtenIn(value[k], seen, depth + 1);
}

/** Notes that `id` was handed to `principal`; most ids are handed to one principal only, kept as that principal alone. */
function handedTo(ids: Seen['named'], id: string, principal: string): void {
  const holders = ids.get(id);
  if (holders === undefined) ids.set(id, principal);
  else if (typeof holders === 'string') {
    if (holders !== principal) ids.set(id, new Set([holders, principal]));
  } else holders.add(principal);
}

/** Whether an answer handed the `kind` named `id` to `principal`. */
function holds(ids: Seen['named'], kind: Kind, id: string, principal: string): boolean {
  const holders = ids.get(`${kind} ${id}`);
  return holders === undefined ? false : typeof holders === 'string' ? holders === principal : holders.has(principal);
}

/** What the journal showed the deployment holds, as its exchanges are read in order. */
interface Seen {
  /** Ids answers named in a member naming their kind (`NAMING`), keyed `<kind> <id>`, by the principal (or the principals) they were handed to. */
  named: Map<string, string | Set<string>>;
  /** Every string an answer showed, in any member, but the echoes of `written`: whatever its member, it may name a resource. */
  shown: Set<string>;
  /** Strings of the surface's request bodies that no answer had shown before: an answer repeating one echoes the client. */
  written: Set<string>;
  /** MCP sessions an initialize answer issued and no DELETE ended. */
  sessions: Set<string>;
  /** MCP sessions whose notifications/initialized the deployment accepted (a 2xx). */
  initialized: Set<string>;
  /** Idempotency keys already sent, by principal and endpoint. */
  keys: Set<string>;
  /** Exchanges whose key (by principal and endpoint) another one carried while they were in flight: either may have been taken first. */
  inFlight: ReadonlySet<Exchange>;
  /** /v1 runs last shown parked: their stream showed the approval event (fixtures.v1.approval) and nothing since moved them on (`learnParked`); their action_digest. */
  parked: Map<string, string>;
  /** The approval event (`approvalKey`) that parked each run of `parked`. */
  parkedBy: Map<string, string>;
  /** Per run, the approval events an approve answered 2xx for: a stream read from its start shows them again, though the run left them. */
  approved: Map<string, Set<string>>;
  /** /v1 runs a cancel was sent to: whatever their streams show again, they are not known parked any more. */
  cancelled: Set<string>;
  /** The journal walked and the place in it of the exchange judged: a /v8 trace's naming stream is read from there (`firstNaming`). */
  journal: readonly Exchange[];
  at: number;
  /** The MCP endpoint's path: a request to it is no /v8 stream, whatever its path reads. */
  mcpPath: string;
  /** /v8 traceIds a read found (2xx): the trace store holds them. */
  readable: Set<string>;
}

function principalOf(credential: string | null, credentials: readonly Credential[]): string {
  return credentials.find((c) => c.name === credential)?.principal ?? `credential:${credential ?? '-'}`;
}

/** A message (or a batch holding one) that is the client's notifications/initialized. */
const INITIALIZED = /"method"\s*:\s*"notifications\/initialized"/;

/** Takes in what `ex`'s answer showed, for the exchanges after it. */
function learn(seen: Seen, ex: Exchange, sent: SentRequest, keys: readonly string[], facts: Facts): void {
  const credentials = facts.credentials;
  for (const key of keys) seen.keys.add(key);
  // What the request wrote is the client's whatever the answer: read before the answer, so the answer's own echo of it hands out nothing.
  if (sent.body !== undefined && surfaceOfPath(sent.path) !== 'mcp') writtenIn(bodyJson(ex, 'request', sent.body), seen);
  // Any approve or cancel sent may have moved a parked run on, refused or not: read before the status.
  learnParked(seen, ex, facts);
  const status = ex.status ?? 0;
  if (status < 200 || status >= 300) return;
  if (sent.path.split('?', 1)[0] === '/mcp') {
    const session = ex.responseHeaders['mcp-session-id'];
    if (session !== undefined) seen.sessions.add(session);
    const asked = sent.headers['mcp-session-id'];
    if (asked !== undefined && sent.body !== undefined && INITIALIZED.test(sent.body)) seen.initialized.add(asked);
    if (ex.method === 'DELETE' && asked !== undefined) seen.sessions.delete(asked);
    return;
  }
  const principal = principalOf(sent.credential, credentials);
  if (ex.responseBody !== undefined && !ex.responseBodyTruncated && /json/.test(mediaType(ex.responseHeaders))) idsIn(bodyJson(ex, 'response', ex.responseBody), seen, principal);
  const bare = pathOnly(ex);
  if (ex.method === 'GET' && TRACE_READ.test(bare)) seen.readable.add(safeDecode(bare.slice('/v8/traces/'.length)));
  for (const e of eventsOf(ex) ?? []) {
    if (e.data.length > 16_384) continue;
    // An object's data is parsed once for every rule (`dataOf`); only an array, which `dataOf` does not give, is parsed here. Other values hold no ids.
    const data = dataOf(e);
    if (data !== undefined) idsIn(data, seen, principal);
    else if (/^\s*\[/.test(e.data)) {
      const parsed = parseJson(e.data);
      if (parsed.ok) idsIn(parsed.value, seen, principal);
    }
  }
}

const TRACE_READ = /^\/v8\/traces\/[^/]+$/;

/**
 * The stream that first named trace `id` to `principal` before the exchange judged: a 2xx GET of a
 * mission's events on the /v8 surface (one the walk learnt from), the one the index bound runs from.
 */
function namingStream(seen: Seen, credentials: readonly Credential[], id: string, principal: string): Exchange | undefined {
  const counts = (n: TraceNaming): boolean => {
    const status = n.stream.status ?? 0;
    return n.withinDepth && status >= 200 && status < 300 && pathOnly(n.stream) !== seen.mcpPath && principalOf(credentialNamed(bearerToken(n.stream), credentials), credentials) === principal;
  };
  return firstNaming(seen.journal, id, seen.at, counts)?.stream;
}

/**
 * A /v1 run parks when its stream (answered 2xx) shows the approval event the profile names, and it
 * is last shown parked until a cancel is sent to it, or an approve it took or one it refused though
 * the body was a decision (a refused approve may end the run: "Transitions: not shown."; a body that is
 * no ApproveRequest is refused as such), or its stream shows it ended. An approve that took (2xx)
 * answered that approval event for good, and a cancel sent may have ended the run: a later read of
 * the stream from its start shows the event again, but the run is no longer known parked, and what an
 * approve to it is answered then is not shown.
 */
function learnParked(seen: Seen, ex: Exchange, facts: Facts): void {
  const run = /^\/v1\/runs\/([^/]+)\/(events|approve|cancel)$/.exec(pathOnly(ex));
  if (!run || !facts.approval) return;
  const id = safeDecode(run[1]!);
  if (run[2] === 'cancel') {
    // A cancel sent may have ended the run (what cancel answers is not shown): it is no longer known parked.
    seen.cancelled.add(id);
    seen.parked.delete(id);
    seen.parkedBy.delete(id);
    return;
  }
  if (run[2] === 'approve') {
    const by = seen.parkedBy.get(id);
    const took = ex.status !== undefined && ex.status >= 200 && ex.status < 300;
    if (!took && (ex.requestBody === undefined || !isDecision(bodyJson(ex, 'request', ex.requestBody)))) return;
    if (by !== undefined && took) seen.approved.set(id, (seen.approved.get(id) ?? new Set()).add(by));
    seen.parked.delete(id);
    seen.parkedBy.delete(id);
    return;
  }
  if (seen.cancelled.has(id) || ex.status === undefined || ex.status < 200 || ex.status >= 300) return;
  let last: { digest: string; key: string } | undefined;
  let ended = false;
  for (const e of eventsOf(ex) ?? []) {
    const kind = eventKind(e);
    if (kind !== undefined && facts.terminal?.has(kind)) {
      ended = true;
      last = undefined;
      continue;
    }
    if (kind !== facts.approval.event) continue;
    const digest = readPath(eventData(e), facts.approval.digestField);
    if (typeof digest !== 'string' || digest === '') continue;
    const key = approvalKey(e, digest);
    last = seen.approved.get(id)?.has(key) ? undefined : { digest, key };
  }
  if (last !== undefined) {
    seen.parked.set(id, last.digest);
    seen.parkedBy.set(id, last.key);
  } else if (ended) {
    seen.parked.delete(id);
    seen.parkedBy.delete(id);
  }
}

/**
 * A body that is a decision (ApproveRequest's two members, strings, and nothing else): its refusal may
 * have been the run's answer to it. One the request's shape refuses (a wrong type, an extra member) left the run as it was.
 */
function isDecision(body: unknown): boolean {
  return isRecord(body) && Object.keys(body).length === 2 && typeof body.action_digest === 'string' && typeof body.decision === 'string';
}

/** An approval event's identity across reads of its stream: its SSE id (a resume's cursor) and the digest it shows. */
function approvalKey(e: { id?: string }, digest: string): string {
  return `${e.id ?? ''}\n${digest}`;
}

const TURN_KEY = /"(?:requestId|idempotencyKey)"\s*:\s*"([^"]{1,256})"/y;

/**
 * The values of every `"requestId": "…"` and `"idempotencyKey": "…"` of a body, in order, as
 * `matchAll` of TURN_KEY finds them: tried only where a name stands (indexOf), not at every quote
 * of 3 MB of turn bodies (~8 ms of a 1.1 s judging).
 */
export function turnKeys(body: string): string[] {
  const keys: string[] = [];
  let request = body.indexOf('"requestId"');
  let idempotency = body.indexOf('"idempotencyKey"');
  let from = 0;
  while (request !== -1 || idempotency !== -1) {
    const at = request === -1 ? idempotency : idempotency === -1 ? request : Math.min(request, idempotency);
    if (at >= from) {
      TURN_KEY.lastIndex = at;
      const m = TURN_KEY.exec(body);
      if (m) {
        keys.push(m[1]!);
        from = TURN_KEY.lastIndex;
      }
    }
    if (at === request) request = body.indexOf('"requestId"', at + 1);
    else idempotency = body.indexOf('"idempotencyKey"', at + 1);
  }
  return keys;
}

/** The request's Idempotency-Key with the principal and endpoint it is scoped to. */
function keysOf(sent: SentRequest, credentials: readonly Credential[]): string[] {
  // A /v1 turn is keyed by its body's requestId or idempotencyKey, as a task by its Idempotency-Key.
  const bare = sent.path.split('?', 1)[0]!;
  const turn = bare === '/v1/execute' ? turnKeys(sent.body ?? '') : [];
  const header = sent.headers['idempotency-key'];
  if (header === undefined && turn.length === 0) return [];
  const scope = `${principalOf(sent.credential, credentials)} ${sent.method} ${bare}`;
  return (header === undefined ? turn : [header, ...turn]).map((k) => `${scope} ${k}`);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The path parameters of the request, by the endpoint's template: each value sent and the kind of resource it names. */
function pathParamsSent(sent: SentRequest): Array<{ value: string; kind: Kind | undefined }> {
  const endpoint = endpointFor(sent.method, sent.path);
  if (!endpoint) return [];
  const params = pathParamsOf(endpoint);
  if (params.length === 0) return [];
  const actual = sent.path.split('?', 1)[0]!.split('/');
  return params.map(([i, name]) => ({ value: safeDecode(actual[i] ?? ''), kind: PARAM_KIND[name] }));
}

/** The path parameter values of the request, by the endpoint's template. */
function pathValues(sent: SentRequest): string[] {
  return pathParamsSent(sent).map((p) => p.value);
}

/** What a judgement over a journal knows of the deployment beyond the requests: the profile's facts. */
export interface Facts {
  credentials: readonly Credential[];
  /** The surface's primary credential: the caller the descriptions' promises are made to. */
  primary?: string;
  bases: Readonly<Record<string, unknown>>;
  /** The profile's fixtures as text: an id they name is a resource of the primary principal. */
  fixtureText?: string;
  /** Where a parked /v1 run shows its action_digest, and the decision that approves it (fixtures.v1.approval). */
  approval?: { event: string; digestField: string; approveDecision: string };
  /** The kinds that end a /v1 run's stream (request.cancelled and fixtures.v1.terminalEvents): a run shown ended is parked no more. */
  terminal?: ReadonlySet<string>;
  publicReceiverUrl?: string;
  /**
   * The journal is a window of the deployment's traffic (a recording, the proxy's live batches), not
   * everything that made its state: an id no earlier exchange showed may name what was made before it.
   */
  window?: boolean;
}

export function factsOf(profile: Profile | undefined, surface: EndpointSurface | 'mcp'): Facts {
  if (!profile) return { credentials: [], bases: {} };
  const shim = { profile, untestable: (m: never) => { throw new Untestable(m); } } as unknown as CheckContext;
  const facts: Facts = { credentials: profile.credentials, bases: bodyFixtures(shim), fixtureText: JSON.stringify(profile.fixtures) };
  const primary = resolveRole(profile, roleName(surface, 'primary')).credential;
  if (primary) facts.primary = primary.name;
  const receiver = profile.fixtures.webhooks.publicReceiverUrl;
  if (receiver) facts.publicReceiverUrl = receiver;
  const approval = profile.fixtures.v1.approval;
  if (approval) facts.approval = { event: approval.event, digestField: approval.digestField, approveDecision: approval.approveDecision };
  facts.terminal = terminalKindsOf(profile);
  return facts;
}

const fixtureNames = new WeakMap<Facts, Map<string, boolean>>();

/** Whether the fixtures' text names `value`: asked once per id and journal, not once per request naming it (each a scan of the fixtures' text). */
function inFixtures(facts: Facts, fixtureText: string, value: string): boolean {
  let names = fixtureNames.get(facts);
  if (names === undefined) {
    names = new Map();
    fixtureNames.set(facts, names);
  }
  let named = names.get(value);
  if (named === undefined) {
    named = fixtureText.includes(JSON.stringify(value));
    names.set(value, named);
  }
  return named;
}

function open(e: Expectation, why: string): Expectation {
  return { kind: 'open', why, constraint: e.constraint };
}

/** The expectation of `sent` (the request of `ex`) given the facts and what the exchanges before it showed. */
function expectationIn(ex: Exchange, sent: SentRequest, keys: readonly string[], facts: Facts, seen: Seen): Expectation {
  return headLeavesOpen(ex, expectationOfRequest(ex, sent, keys, facts, seen));
}

/**
 * The expectation `e` once the request's head is read as `openRequestForm` reads it: a head past what
 * a server may limit it to (`oversizedHead`) may be refused first, with any 4xx (Node's bodiless
 * 431), whatever else it is; a precondition or a range (`conditionalForm`) may turn a success into a
 * 304, 412 or 206, and leaves a refusal as it is (RFC 9110 §13.2.1).
 */
function headLeavesOpen(ex: Exchange, e: Expectation): Expectation {
  if (e.kind === 'open') return e;
  const head = oversizedHead(ex);
  if (head !== undefined) {
    if (e.kind === 'accept') return open(e, `${head}: a server may refuse it (431) before reading the rest`);
    const { status: _status, ...anyRefusal } = e;
    return anyRefusal;
  }
  const conditional = e.kind === 'accept' ? conditionalForm(ex) : undefined;
  return conditional === undefined ? e : open(e, conditional);
}

function expectationOfRequest(ex: Exchange, sent: SentRequest, keys: readonly string[], facts: Facts, seen: Seen): Expectation {
  const principal = principalOf(sent.credential, facts.credentials);
  const params = pathParamsSent(sent);
  const values = params.map((p) => p.value);
  const parked = values.filter((v) => seen.parked.has(v));
  const known: Known = { existing: params.filter((p) => p.kind !== undefined && holds(seen.named, p.kind, p.value, principal)).map((p) => p.value), parked, bases: facts.bases };
  if (parked.length > 0) known.approvals = Object.fromEntries(parked.map((id) => [id, { action_digest: seen.parked.get(id), decision: facts.approval?.approveDecision }]));
  if (facts.publicReceiverUrl) known.publicReceiverUrl = facts.publicReceiverUrl;
  const session = sent.headers['mcp-session-id'];
  if (session !== undefined && seen.sessions.has(session)) known.mcpSession = session;
  if (session !== undefined && seen.initialized.has(session)) known.mcpInitialized = true;
  const primary = principalOf(facts.primary ?? null, facts.credentials);
  if (principal === primary && facts.fixtureText !== undefined) for (const v of values) if (v.length >= 3 && inFixtures(facts, facts.fixtureText, v)) (known.existing as string[]).push(v);
  const e = expectationOf(sent, known);
  if (e.kind === 'open') return e;
  // A recorder may keep a content-coded body decoded (the proxy does): what the server read is not the text held here.
  const coding = (sent.headers['content-encoding'] ?? '').trim().toLowerCase();
  if (sent.body !== undefined && coding !== '' && coding !== 'identity') return open(e, `a body sent with Content-Encoding ${JSON.stringify(coding.slice(0, 40))}: RFC 9110 §8.4 lets a server decode it or refuse it with 415`);
  // A refusal for the lookup: its 404, or the lookup first among causes that owe no one status (a token of unknown validity beside it).
  const lookup = e.kind === 'refuse' && (e.status === 404 || e.because === EXPECTATION_SENTENCES.v8Lookup) && values.length > 0;
  // An id no answer showed names nothing only if the fixtures do not name it either: without the profile, that is not known.
  if (facts.fixtureText === undefined && lookup) return open(e, 'whether this id names a resource of the caller is in the profile\'s fixtures, which were not given');
  if (facts.window && lookup) return open(e, 'an id no earlier exchange of the recording showed: it may name a resource made before the recording began');
  const owned = ownedElsewhere(ex, sent, keys, seen);
  if (owned !== undefined) return e.kind === 'accept' ? open(e, owned) : e;
  const shown = params.find((p) => seen.shown.has(p.value) && !known.existing.includes(p.value) && !parked.includes(p.value));
  if (shown !== undefined) {
    if (shown.kind !== undefined && seen.named.has(`${shown.kind} ${shown.value}`)) return open(e, 'an id that answers handed to another principal: which principal may see it is the profile\'s, and the principal rules judge it');
    // Ids under any name may be handed out (silence is open): one shown outside a member naming its kind is neither known to exist nor known to name nothing.
    return open(e, `an id an answer showed outside a member that names a ${shown.kind ?? 'resource'} (${[...NAMING].filter(([, k]) => k === shown.kind).map(([m]) => m).join(', ') || 'none'}): whether it names one is not shown`);
  }
  if (notThePrimary(sent, facts)) {
    if (e.kind === 'accept') return open(e, `credential ${sent.credential} is not the primary one: its scopes, principal and expiry decide the answer`);
    const { status: _status, ...anyRefusal } = e;
    return anyRefusal;
  }
  const state = e.kind === 'accept' ? stateLeavesOpen(ex, sent, values, principal, seen, facts.credentials) : undefined;
  return state === undefined ? e : open(e, state);
}

/**
 * Why a request the descriptions accept is still open, from what it is and what the exchanges before
 * it showed, as the owning rules read the same traffic: any /v1 cancel (the description binds only an
 * accepted cancellation's effect; a run may finish unseen, and what cancel answers then is not
 * shown); a read of a /v8 trace within the index bound of the stream that named it, before any read
 * found it ("Each `traceId` in step events can be read", no time given: v8.traces.get.ok leaves such
 * a 404 unjudged).
 */
function stateLeavesOpen(ex: Exchange, sent: SentRequest, values: readonly string[], principal: string, seen: Seen, credentials: readonly Credential[]): string | undefined {
  const id = values[0];
  if (id === undefined) return undefined;
  // "| `POST /v1/runs/{id}/cancel` | cancellation accepted | ..." names the effect of an accepted cancellation, not
  // when one must be accepted: a run shown in flight may have finished since, and what cancel answers then is not shown.
  if (sent.method === 'POST' && /^\/v1\/runs\/[^/]+\/cancel$/.test(sent.path.split('?', 1)[0]!)) return 'a cancel: the description names what an accepted cancellation does ("cancellation accepted"), not which cancellations are accepted';
  if (sent.method === 'GET' && TRACE_READ.test(sent.path.split('?', 1)[0]!) && !seen.readable.has(id)) {
    const naming = namingStream(seen, credentials, id, principal);
    if (naming !== undefined && pastIndexBound(ex, naming) !== true) return `a trace read within ${TRACE_INDEX_BOUND_MS / 1000} s of the stream whose step event named it, before any read found it: no sentence says when a trace becomes readable`;
  }
  return undefined;
}

/**
 * Whether a credential other than the surface's primary one sent the request (every credential, when
 * no profile names the primary): the descriptions promise answers to a caller holding the endpoint's
 * scope, and another credential's scopes, principal and expiry decide first. Its acceptance is open
 * whatever its body says.
 */
function notThePrimary(sent: SentRequest, facts: Facts): boolean {
  return sent.credential !== null && sent.credential !== facts.primary && sent.path.split('?', 1)[0] !== '/mcp';
}

/**
 * Why a request the descriptions would otherwise accept may be refused for a cause another rule's
 * sentence owns, visible in the request or the exchanges around it: a replayed Idempotency-Key
 * (replay or conflict), or one another request carried while this one was in flight (which came
 * first is not shown), an http:// Origin, a principal named in the body.
 */
function ownedElsewhere(ex: Exchange, sent: SentRequest, keys: readonly string[], seen: Seen): string | undefined {
  if (keys.some((k) => seen.keys.has(k))) return 'an Idempotency-Key this caller sent before: a replay or a conflict, which the idempotency rules judge';
  if (seen.inFlight.has(ex)) return 'an Idempotency-Key this caller sent on another request in flight at the same time: which the deployment took first is not shown, and the idempotency rules judge the pair';
  const origin = sent.headers.origin;
  if (origin !== undefined && !origin.startsWith('https://')) return `an Origin ${JSON.stringify(origin.slice(0, 60))}: which origins are served is the origin rule's judgement`;
  if (sent.body !== undefined && /"principal_?[iI]d"\s*:/.test(sent.body)) return 'a body naming a principal: the principal is the token\'s, and the principal rules judge the refusal';
  return undefined;
}

/** Why the request of an exchange cannot be read for `aspect` (its expectation rests on it), or undefined when it can. */
function requestMissingFor(ex: Exchange, aspect: Aspect): string | undefined {
  if (aspect === 'no-5xx') return undefined;
  if (ex.requestBodyMissing !== undefined) return `the request's body: ${ex.requestBodyMissing}`;
  if (ex.requestBodyTruncated) return "the request's body: only a prefix was kept";
  if (ex.headersMissing?.authorization !== undefined) return `the Authorization header: ${ex.headersMissing.authorization}`;
  return undefined;
}

/**
 * A 2xx event stream on /v8 or /v1: the generated and catalogue judgements read its status and media
 * type (the documented event stream, or a JSON success it is not), never a problem document, so what
 * a recorder kept of its body (a stream its client let go of, one broken off, a prefix) lacks nothing
 * they judge. Not on /mcp, whose JSON-RPC responses travel in the stream's events.
 */
function restEventStream(ex: Exchange): boolean {
  if (ex.status === undefined || ex.status < 200 || ex.status > 299 || mediaType(ex.responseHeaders) !== 'text/event-stream') return false;
  const surface = surfaceOfPath(ex.path);
  return surface === 'v8' || surface === 'v1';
}

/** Why the answer of an exchange cannot be read for `aspect`, or undefined when it can. */
function answerMissingFor(ex: Exchange, aspect: Aspect, surface: AspectOptions['surface']): string | undefined {
  // no-5xx reads the status; the others the body (an event stream's first events suffice: its head is what is judged).
  if (aspect === 'no-5xx' || ex.events !== undefined || (surface !== 'mcp' && restEventStream(ex))) return undefined;
  const missing = bodyMissing(ex);
  return missing === undefined ? undefined : `the answer's body: ${missing}`;
}

export interface AspectOptions {
  surface: EndpointSurface | 'mcp';
  /** Which aspects this rule judges (the MCP rule judges all three of its aspects at once). */
  aspects: readonly Aspect[];
  /** What the rule needs to find, for the reason when none was found. */
  record: string;
  /** Whether the exchange is this rule's to judge, from its request (another family may own it). */
  owns?: (ex: Exchange, profile: Profile | undefined) => boolean;
}

/** The path as the contract names it: a request to the profile's MCP endpoint, mounted elsewhere, went to the contract's `/mcp`. */
export function contractPath(path: string, mcpEndpointPath: string): string {
  if (mcpEndpointPath === '/mcp') return path;
  const query = path.indexOf('?');
  const bare = query === -1 ? path : path.slice(0, query);
  return bare === mcpEndpointPath ? `/mcp${query === -1 ? '' : path.slice(query)}` : path;
}

/** Where a request went: its surface, from the path alone. */
export function surfaceOfPath(path: string): EndpointSurface | 'mcp' | undefined {
  // Asked of every exchange by each surface's walk: the path before any query, without splitting.
  const query = path.indexOf('?');
  const bare = query === -1 ? path : path.slice(0, query);
  if (bare === '/mcp' || bare.startsWith('/mcp/')) return 'mcp';
  if (bare.startsWith('/v8/')) return 'v8';
  if (bare.startsWith('/v1/')) return 'v1';
  return undefined;
}

/**
 * The generated rules' judgement of `aspects` over every exchange of the surface: each one's
 * expectation from its request, its answer judged once. A rate limiter's answer (429, 503) and an
 * exchange without an answer judge nothing; what a recorder did not keep is lacking, not guessed.
 */
export function aspectJudgement(options: AspectOptions): RuleJudgement {
  return {
    record: options.record,
    judge(j: Judge) {
      for (const judged of judgedOnce(j, options.surface)) judgeAspects(j, judged, options);
    },
  };
}

/** One exchange of the surface as every aspect rule reads it: its request, its answer, and the one judgement of that answer. */
interface JudgedExchange {
  ex: Exchange;
  sent: SentRequest;
  answer: Answer;
  judgement: ReturnType<typeof judgeAnswer>;
  /** No body could make this request accepts-valid's to judge (notThePrimary): a body the recorder cut leaves that rule nothing untestable. */
  acceptanceOpen: boolean;
  /** The expectation's kind: read from the whole request, so an answer's missing body cannot change it. */
  expected: Expectation['kind'];
}

/**
 * Every exchange of the surface judged once per journal: the rules of a family (no-5xx, problem-json,
 * error-status, accepts-valid, and the catalogue's) read the same judgement, so it is computed for the
 * first and reused while the journal holds the same answered exchanges, per profile.
 */
function judgedOnce(j: Judge, surface: EndpointSurface | 'mcp'): readonly JudgedExchange[] {
  return journalFact(j.exchanges, JUDGE_SURFACE[j.source][surface], j.profile);
}

type SurfaceJudgement = (exchanges: readonly Exchange[], profile: Profile | undefined) => JudgedExchange[];

/** Made once per surface and source (`journalFact` keeps a fact per function): a recording is a window of the deployment's traffic, an active run the whole of what it made (`expectationIn`). */
const surfaceJudgements = (source: Judge['source']): Record<EndpointSurface | 'mcp', SurfaceJudgement> => ({
  v8: (exchanges, profile) => judgeSurface(exchanges, profile, 'v8', source),
  v1: (exchanges, profile) => judgeSurface(exchanges, profile, 'v1', source),
  mcp: (exchanges, profile) => judgeSurface(exchanges, profile, 'mcp', source),
});

const JUDGE_SURFACE: Record<Judge['source'], Record<EndpointSurface | 'mcp', SurfaceJudgement>> = { active: surfaceJudgements('active'), recording: surfaceJudgements('recording') };

function judgeSurface(exchanges: readonly Exchange[], profile: Profile | undefined, surface: EndpointSurface | 'mcp', source: Judge['source']): JudgedExchange[] {
  const facts = { ...factsOf(profile, surface), window: source === 'recording' };
  const endpoint = mcpEndpoint({ profile });
  // Each exchange of the surface with its request as read and its scoped keys: the keys of later exchanges are read too, for the ones in flight together.
  const requests: Array<readonly [number, SentRequest, readonly string[]]> = [];
  for (let at = 0; at < exchanges.length; at += 1) {
    const ex = exchanges[at]!;
    const path = contractPath(ex.path, endpoint);
    if (surfaceOfPath(path) !== surface) continue;
    // The generated /mcp messages are JSON-RPC posts: GET and DELETE /mcp have their own rules (mcp.transport, mcp.session), which own those sentences.
    if (surface === 'mcp' && ex.method !== 'POST') continue;
    const sent = sentOfExchange(ex, facts.credentials, path);
    requests.push([at, sent, keysOf(sent, facts.credentials)]);
  }
  const inFlight = sharingKeysInFlight(requests.filter(([, , keys]) => keys.length > 0).map(([at, , keys]) => [exchanges[at]!, keys] as const));
  const seen: Seen = { named: new Map(), shown: new Set(), written: new Set(), sessions: new Set(), initialized: new Set(), keys: new Set(), inFlight, parked: new Map(), parkedBy: new Map(), approved: new Map(), cancelled: new Set(), readable: new Set(), journal: exchanges, at: 0, mcpPath: endpoint };
  const judged: JudgedExchange[] = [];
  for (const [at, sent, keys] of requests) {
    const ex = exchanges[at]!;
    seen.at = at;
    // A rate limiter's answer and an exchange without an answer judge nothing; the empty batch is mcp.batch.empty's, which owns its sentence.
    if (ex.status !== undefined && !isLimited({ status: ex.status }) && !(surface === 'mcp' && /^\s*\[\s*\]\s*$/.test(sent.body ?? ''))) {
      // The body as every rule reads it, parsed once per exchange (`bodyJson`): the expectation and the judgement read that parse.
      if (sent.body !== undefined) sent.parsed = { text: sent.body, value: bodyJson(ex, 'request', sent.body) };
      const expectation = expectationIn(ex, sent, keys, facts, seen);
      const answer = answerOfExchange(ex);
      judged.push({ ex, sent, answer, judgement: judgeAnswer(sent, expectation, answer), acceptanceOpen: notThePrimary(sent, facts), expected: expectation.kind });
    }
    learn(seen, ex, sent, keys, facts);
  }
  return judged;
}

function judgeAspects(j: Judge, { ex, sent, answer, judgement, acceptanceOpen, expected }: JudgedExchange, options: AspectOptions): void {
  // In a recording, an exchange the catalogue built is the catalogue rules' (docs/judgement.md); an active run judges what each family's own provocation sent.
  if (options.owns && j.source === 'recording' && !options.owns(ex, j.profile)) return;
  for (const aspect of options.aspects) {
    // No body could make this exchange accepts-valid's: what the recording lacks of it leaves that rule nothing untestable.
    const moot = aspect === 'accepts-valid' && acceptanceOpen;
    const unread = requestMissingFor(ex, aspect);
    if (unread !== undefined) {
      if (!moot) j.lacks(ex, unread);
      continue;
    }
    // The expectation was read from the whole request: an answer's missing body lacks only what it gives this aspect to judge.
    const missing = answerMissingFor(ex, aspect, options.surface);
    if (missing !== undefined) {
      if (!moot && judgesAspect(aspect, expected)) j.lacks(ex, missing);
      continue;
    }
    const finding = judgement.findings[aspect];
    if (judgement.unjudged !== undefined) {
      // A redirect is no final answer: every aspect that would judge the case lacks it.
      if (isRedirect(answer.status) ? !moot && judgesAspect(aspect, expected) : answer.cut && (finding !== undefined || aspect !== 'no-5xx')) j.lacks(ex, judgement.unjudged);
      continue;
    }
    if (!finding) continue;
    // A state-changing request to a resource whose state no exchange showed: the error table's 409 (a terminal mission) is that state's answer.
    if (aspect === 'accepts-valid' && !finding.ok && answer.status === 409 && sent.method === 'POST' && pathValues(sent).length > 0) continue;
    j.check(ex, finding.ok, finding.reason);
  }
}
