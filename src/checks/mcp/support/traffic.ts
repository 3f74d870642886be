/**
 * The MCP endpoint's exchanges as a judgement reads them (src/rule/judgement.ts): which exchanges
 * are POSTs to the endpoint, the JSON-RPC messages a POST carried and those its answer carried (a
 * JSON body, or the data of each event of its stream).
 */
import { isResponseLike } from '../../../contract/mcp/jsonrpc.ts';
import { SESSION_HEADER } from '../../../contract/mcp/transport.ts';
import type { Credential, Profile } from '../../../profile/schema.ts';
import { credentialIn, mediaType, pathOnly, type Exchange, type Judge } from '../../../rule/index.ts';
import { bodyJson, bodyMissing, eventsOf, exchangeFact, isEventStream, journalFact, readerStoppedStream, requestJson } from '../../../traffic/read.ts';
import { isRecord, parseJson } from '../../../util/json.ts';
import { DEFAULT_MCP_PATH, mcpEndpointOf } from '../../../profile/mcp-endpoint.ts';
import { MARKER_START } from '../../../redact/redactor.ts';

export type Message = Record<string, unknown>;


/** Where the MCP endpoint is mounted for the judgement: the profile's (mcpEndpointOf), else `/mcp`. */
export function mcpEndpoint(j: Pick<Judge, 'profile'>): string {
  return j.profile ? mcpEndpointOf(j.profile) : DEFAULT_MCP_PATH;
}

/** Every POST to the MCP endpoint that was answered, in order. */
export function mcpPosts(j: Judge): readonly Exchange[] {
  return journalFact(j.exchanges, mcpPostsIn, j.profile);
}

/** `mcpPosts` of a journal and profile (where the endpoint is), found once for the rules asking (journalFact). */
function mcpPostsIn(exchanges: readonly Exchange[], profile: Profile | undefined): readonly Exchange[] {
  const endpoint = mcpEndpoint({ profile });
  return exchanges.filter((ex) => ex.method === 'POST' && pathOnly(ex) === endpoint);
}

/** The messages a POST carried (a batch is its members), or undefined when its body is not JSON or was not kept. */
export function sentMessages(ex: Exchange): Message[] | undefined {
  const sent = requestJson(ex);
  if (sent === undefined) return undefined;
  return (Array.isArray(sent) ? sent : [sent]).filter(isRecord);
}

/**
 * The responses a rule needs of an answer: those carrying these request ids (compared by value and
 * type), or (`'one'`) any one response, for input whose id a server cannot read (a parse error's).
 */
export type Owed = readonly unknown[] | 'one';

/**
 * The JSON-RPC responses an answer carried: its JSON body, or the data of each event of its
 * stream (every event read, whole). Undefined, after telling `j`, when the answer is not there, or
 * when a response `owed` names (those the rule's judgement needs) is still owed on a stream its
 * reader stopped first (`stillOwed`). Without `owed`, what was read is all the rule judges.
 */
export function answeredResponses(j: Judge, ex: Exchange, owed?: Owed): Message[] | undefined {
  const missing = isEventStream(ex) && ex.events !== undefined && ex.streamEnd !== 'aborted' ? undefined : bodyMissing(ex);
  if (missing !== undefined) {
    j.lacks(ex, `the answer's JSON-RPC messages: ${missing}`);
    return undefined;
  }
  // Some fourteen rules read each answer's messages: parsed once per answer while what they are read from (its events, else its body) stands.
  const stream = isEventStream(ex);
  const responses = [...exchangeFact(ex, stream ? streamResponses : bodyResponses, stream ? eventsOf(ex) : ex.responseBody)];
  return owed !== undefined && stillOwed(j, ex, responses, owed) ? undefined : responses;
}

/**
 * Whether a response `owed` names has not come on an SSE answer its reader stopped before its
 * server ended it (apicert's stream timeout, a byte or event bound, a client letting go): telling
 * `j` it lacks it. The stream may carry it yet ("The server SHOULD NOT close the SSE stream before
 * sending all JSON-RPC responses"), so its absence is not read as a missing response. A JSON body,
 * a stream its server ended, or a recording that does not say how it ended owes nothing more.
 */
export function stillOwed(j: Judge, ex: Exchange, responses: readonly Message[], owed: Owed): boolean {
  if (!isEventStream(ex)) return false;
  const stopped = readerStoppedStream(ex);
  if (stopped === undefined) return false;
  const unread = owed === 'one' ? (responses.length === 0 ? ['a response'] : []) : owed.filter((id) => !responses.some((m) => m.id === id)).map((id) => `the response to id ${JSON.stringify(id)}`);
  if (unread.length === 0) return false;
  const shown = `${unread.slice(0, 3).join(', ')}${unread.length > 3 ? ` (+${unread.length - 3} more)` : ''}`;
  j.lacks(ex, `${shown}: ${stopped} before it came`);
  return true;
}

/**
 * The JSON-RPC responses an answer carried, as `answeredResponses` reads them, without telling a
 * judge what is missing (undefined then): for facts about earlier exchanges, such as what an
 * initialize answer declared.
 */
export function responsesShown(ex: Exchange): readonly Message[] | undefined {
  const missing = isEventStream(ex) && ex.events !== undefined && ex.streamEnd !== 'aborted' ? undefined : bodyMissing(ex);
  if (missing !== undefined) return undefined;
  const stream = isEventStream(ex);
  return exchangeFact(ex, stream ? streamResponses : bodyResponses, stream ? eventsOf(ex) : ex.responseBody);
}

function streamResponses(ex: Exchange): readonly Message[] {
  const out: Message[] = [];
  for (const e of eventsOf(ex) ?? []) {
    const parsed = parseJson(e.data);
    if (parsed.ok) responsesOf(parsed.value, out);
  }
  return out;
}

function bodyResponses(ex: Exchange): readonly Message[] {
  // The body's parse shared with every rule reading it (undefined when it is no JSON: JSON has no undefined).
  const value = bodyJson(ex, 'response', ex.responseBody ?? '');
  const out: Message[] = [];
  if (value !== undefined) responsesOf(value, out);
  return out;
}

function responsesOf(value: unknown, out: Message[]): void {
  for (const m of Array.isArray(value) ? value : [value]) if (isResponseLike(m)) out.push(m);
}

/**
 * Whether a request reached the MCP endpoint as an ordinary, authorised client would send it: a
 * credential the profile gives for mcp (not expired), or, without a profile, one the endpoint
 * accepted (2xx) in another exchange of the journal; and no foreign Origin or Host (the origin and
 * host rules' own provocations).
 */
export class McpCallers {
  private readonly accepted = new Set<string>();
  private readonly credentials: readonly Credential[];
  constructor(j: Pick<Judge, 'profile' | 'exchanges'>) {
    this.credentials = (j.profile?.credentials ?? []).filter((c) => c.surfaces.includes('mcp'));
    const endpoint = mcpEndpoint(j);
    if (this.credentials.length === 0) for (const ex of j.exchanges) if (pathOnly(ex) === endpoint) this.note(ex);
  }

  ordinary(ex: Exchange): boolean {
    return !foreignOriginOrHost(ex) && this.authorised(ex);
  }

  /** The request carried a credential the profile gives for mcp (not expired), or one the endpoint accepted elsewhere. */
  authorised(ex: Exchange): boolean {
    const auth = ex.requestHeaders.authorization;
    if (auth === undefined) return false;
    if (this.credentials.length > 0) {
      const c = credentialIn(ex, this.credentials);
      return c !== undefined && !c.expired;
    }
    return this.accepted.has(auth);
  }

  note(ex: Exchange): void {
    const auth = ex.requestHeaders.authorization;
    if (auth !== undefined && ex.status !== undefined && ex.status >= 200 && ex.status < 300) this.accepted.add(auth);
  }
}

/** Whether a request carries an Origin or a Host of another site than the one it was sent to (the origin and host rules' provocations). */
export function foreignOriginOrHost(ex: Exchange): boolean {
  const url = new URL(ex.url);
  const origin = ex.requestHeaders.origin;
  if (origin !== undefined && origin !== url.origin) return true;
  // A proxy on loopback keeps the Host its clients sent it; any other Host than the URL's is the host rule's provocation.
  const host = ex.requestHeaders.host?.replace(/:\d+$/, '');
  return host !== undefined && host !== url.hostname && !['127.0.0.1', 'localhost', '[::1]'].includes(host);
}

/** Every POST to the MCP endpoint an ordinary authorised client sent (see McpCallers), in order. */
export function ordinaryMcpPosts(j: Judge): Exchange[] {
  return ordinaryMcpRequests(j, 'POST');
}

/** Every request to the MCP endpoint (of one HTTP method, when given) an ordinary authorised client sent, in order. */
export function ordinaryMcpRequests(j: Judge, method?: string): Exchange[] {
  const ordinary = journalFact(j.exchanges, ordinaryMcpIn, j.profile);
  return method === undefined ? [...ordinary] : ordinary.filter((ex) => ex.method === method);
}

/**
 * Every request to the MCP endpoint an ordinary authorised client sent, of any method: once per
 * journal and profile for the rules asking (journalFact). Whether a request is ordinary is read
 * from it, the profile and the whole journal's acceptances (McpCallers notes them all before the
 * walk, so noting them again as it passes adds nothing).
 */
function ordinaryMcpIn(exchanges: readonly Exchange[], profile: Profile | undefined): readonly Exchange[] {
  const judged = { exchanges, profile };
  const callers = new McpCallers(judged);
  const endpoint = mcpEndpoint(judged);
  return exchanges.filter((ex) => pathOnly(ex) === endpoint && callers.ordinary(ex));
}

/**
 * How a server refuses input it cannot accept: "If the server cannot accept the input, it MUST
 * return an HTTP error status code (e.g., 400 Bad Request)". A server error (5xx) is an HTTP error
 * status code too; whether it should have happened is the no-5xx rules' to judge, not the sentence's.
 */
export function isHttpErrorStatus(status: number): boolean {
  return status >= 400 && status < 600;
}

/** A JSON-RPC request (a method and an id), as opposed to a notification or a response. */
export function isRequestMessage(m: Message): boolean {
  return typeof m.method === 'string' && 'id' in m;
}

/** A JSON-RPC 2.0 request or notification as a client sends it: "jsonrpc": "2.0" and a string method. */
export function isWellFormedCall(m: Message): boolean {
  const id = !('id' in m) || typeof m.id === 'string' || Number.isInteger(m.id);
  // MCP's params, where present, is an object; JSON-RPC 2.0's request object has these members and no other.
  return m.jsonrpc === '2.0' && typeof m.method === 'string' && id && (!('params' in m) || isRecord(m.params)) && Object.keys(m).every((k) => CALL_MEMBERS.has(k));
}

const CALL_MEMBERS = new Set(['jsonrpc', 'id', 'method', 'params']);

/** An initialize a client sends to open a session: sent as MCP asks, well-formed (protocolVersion, capabilities, clientInfo), in no session yet. */
export function openingInitialize(ex: Exchange): Message | undefined {
  if (ex.requestHeaders[SESSION_HEADER] !== undefined || !sentAsClientsMust(ex)) return undefined;
  return (sentMessages(ex) ?? []).find((m) => m.method === 'initialize' && isWellFormedCall(m) && 'id' in m && isRecord(m.params) && typeof m.params.protocolVersion === 'string' && isRecord(m.params.capabilities) && isRecord(m.params.clientInfo));
}

/**
 * Whether a POST was sent as MCP asks of a client: a JSON body, and "an Accept header, listing both
 * application/json and text/event-stream". A server may refuse other media (406, 415, 400) before
 * reading the message, so rules about the message pick only these.
 */
export function sentAsClientsMust(ex: Exchange): boolean {
  const accept = (ex.requestHeaders.accept ?? '').toLowerCase();
  return mediaType(ex.requestHeaders) === 'application/json' && accept.includes('application/json') && accept.includes('text/event-stream');
}

/** A value a recorder replaced with its marker (`«redacted:label»`): what its characters were is unknown. */
export function redacted(value: string): boolean {
  return value.startsWith(MARKER_START);
}

/**
 * A session id hidden behind a marker that every session shared: which session a request belongs to
 * is unknown. A numbered marker (`«redacted:mcp-session-id#2»`, what `certify --har-out` writes)
 * stands for one id only, so it still tells sessions apart.
 */
export function sessionUnknown(id: string): boolean {
  if (!redacted(id)) return false;
  const hash = id.lastIndexOf('#');
  const number = hash === -1 ? '' : id.slice(hash + 1, -1);
  return !(id.endsWith('»') && id.indexOf('»') === id.length - 1 && number.length > 0 && [...number].every((c) => c >= '0' && c <= '9'));
}

/** The messages of a POST sent as MCP asks (`sentAsClientsMust`) whose body is one or more well-formed requests or notifications (none malformed), else undefined. */
export function wellFormedCalls(ex: Exchange): Message[] | undefined {
  if (!sentAsClientsMust(ex)) return undefined;
  const sent = requestJson(ex);
  if (sent === undefined) return undefined;
  const items = Array.isArray(sent) ? sent : [sent];
  if (items.length === 0 || !items.every((m) => isRecord(m) && isWellFormedCall(m))) return undefined;
  return items as Message[];
}

/**
 * Every JSON-RPC message an answer carried, the server's own requests and notifications as well as
 * its responses: its JSON body (a batch flattened), or the data of each event kept of its stream
 * (each complete event kept was sent, though the client broke the stream off). Undefined when none
 * of the answer is there; what was cut of it (`bodyMissing`: a prefix kept, a stream aborted) is the caller's to weigh.
 */
export function answerMessages(ex: Exchange): readonly Message[] | undefined {
  if (ex.status === undefined) return undefined;
  if (isEventStream(ex)) {
    if (ex.responseBodyMissing !== undefined || (ex.events === undefined && ex.responseBody === undefined)) return undefined;
    return exchangeFact(ex, streamMessages, eventsOf(ex));
  }
  if (ex.responseBody === undefined || ex.responseBodyMissing !== undefined) return undefined;
  return exchangeFact(ex, bodyMessages, ex.responseBody);
}

function streamMessages(ex: Exchange): readonly Message[] {
  const out: Message[] = [];
  for (const e of eventsOf(ex) ?? []) {
    const parsed = parseJson(e.data);
    if (parsed.ok) for (const m of Array.isArray(parsed.value) ? parsed.value : [parsed.value]) if (isRecord(m)) out.push(m);
  }
  return out;
}

function bodyMessages(ex: Exchange): readonly Message[] {
  const value = bodyJson(ex, 'response', ex.responseBody ?? '');
  return (Array.isArray(value) ? value : [value]).filter(isRecord);
}

/**
 * The MCP session an exchange belongs to, as a key: `session:<id>` for the Mcp-Session-Id the
 * request carried, or, for an initialize whose answer assigned one, that new id ("by including it
 * in an Mcp-Session-Id header on the HTTP response containing the InitializeResult"); without one,
 * `client:<credential>`, the caller's session-less traffic. `hidden` when the recorder replaced the
 * id with a marker every session shares. `otherwise` is the id to take when the request names none.
 */
export function sessionKeyOf(ex: Exchange, otherwise?: string): { key: string; sessionId: string | undefined } | 'hidden' {
  const assigned = ex.method === 'POST' && (sentMessages(ex) ?? []).some((m) => m.method === 'initialize') ? ex.responseHeaders[SESSION_HEADER] : undefined;
  const id = assigned ?? ex.requestHeaders[SESSION_HEADER] ?? otherwise;
  if (id === undefined) return { key: `client:${ex.credential ?? ex.requestHeaders.authorization ?? ''}`, sessionId: undefined };
  return sessionUnknown(id) ? 'hidden' : { key: `session:${id}`, sessionId: id };
}
