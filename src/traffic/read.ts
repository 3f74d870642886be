/**
 * What a judgement reads of an exchange (src/rule/journal.ts), whoever filled the journal: the
 * parsed bodies, a stream's events, and which operation the request went to. A reader that finds
 * the part it needs missing says why through `j.lacks`, so the rule is untestable, never judged on
 * nothing.
 */
import type { z } from 'zod';
import { mcpOperation, operationOf as catalogueOperation } from '../contract/endpoints.ts';
import { mediaType, pathOnly, readerStopped, type Exchange, type Judge, type SseEvent } from '../rule/index.ts';
import { otherCharset } from '../rule/media-type.ts';
// The journal's symbol: it forgets an exchange's facts when it drops or cuts a body.
import { EXCHANGE_FACTS as FACTS } from '../rule/journal.ts';
import { acceptAdmits } from './http-fields.ts';
import { parseEventStreamText } from '../sse/text.ts';
import { isRecord, namesMemberTwice, parseJson } from '../util/json.ts';

/** Where a recording of a receiver shows a webhook delivery, wherever the receiver listens. */
const DELIVERY_SIGNATURE = 'service-webhook-signature';

/** What every judgement would otherwise work out again from an exchange (or one of its events): kept with it, found once. */
interface ExchangeFacts {
  operation?: string;
  /** `exchangeFact`s by what builds them, each with the input it was built from. */
  derived?: Map<(ex: never) => unknown, { from: unknown; value: unknown }>;
  /** `requestJson`, with the parts of the exchange it was read from. */
  sent?: { body: string | undefined; missing: string | undefined; truncated: boolean | undefined; value: unknown; twice: boolean };
  /** A recorded stream's events, with the body they were parsed from. */
  events?: { body: string; events: readonly SseEvent[] };
  /** An event's `dataOf`, with the data it was parsed from. */
  data?: { text: string; value: Record<string, unknown> | undefined };
  /** `idAfter` by prefix. */
  ids?: Map<string, string | undefined>;
  request?: readonly [string, unknown];
  response?: readonly [string, unknown];
}

const factsElsewhere = new WeakMap<object, ExchangeFacts>();

/**
 * Every fact slot present from the start, in one order: each exchange's facts then share one
 * shape, and the reads of them (some 600k per judging) stay monomorphic whichever rule filled which first.
 */
function newFacts(): ExchangeFacts {
  return { operation: undefined, derived: undefined, sent: undefined, events: undefined, data: undefined, ids: undefined, request: undefined, response: undefined };
}

/**
 * The exchange's facts. Held on the exchange itself, hidden (no spread or JSON copies it): some 150
 * rules ask them of every exchange, and a WeakMap lookup each time cost more than the judgements.
 */
function factsOf(ex: object): ExchangeFacts {
  const held = (ex as { [FACTS]?: ExchangeFacts })[FACTS];
  if (held !== undefined) return held;
  const facts: ExchangeFacts = factsElsewhere.get(ex) ?? newFacts();
  if (Object.isExtensible(ex)) Object.defineProperty(ex, FACTS, { value: facts, enumerable: false, configurable: true });
  else factsElsewhere.set(ex, facts);
  return facts;
}

/**
 * A fact of one exchange (`what(ex)`) worked out once however many rules ask, and again when
 * `from` changes: `from` is what the fact reads that may change (the request body, or the parsed
 * body value it was built from; compared with ===), so a kept value always answers the current
 * exchange. `what` names the fact: a module-level function, never a closure made per call. The
 * value is shared: callers read it, never change it.
 */
export function exchangeFact<E extends object, T>(ex: E, what: (ex: E) => T, from: unknown): T {
  const derived = (factsOf(ex).derived ??= new Map());
  const known = derived.get(what as (ex: never) => unknown);
  if (known !== undefined && known.from === from) return known.value as T;
  const value = what(ex);
  derived.set(what as (ex: never) => unknown, { from, value });
  return value;
}

/**
 * The operation of the request: the contract catalogue's name (`v8.missions.signals`), `mcp` for
 * the MCP endpoint, `webhook.delivery` for a delivery recorded at a receiver, `<surface>.other` for
 * another path of a surface, `unknown` otherwise. Decided from the request alone.
 */
/** The catalogue's name of the exchange's operation, found once per exchange (every rule asks). */
export function operation(ex: Pick<Exchange, 'method' | 'path' | 'requestHeaders'>): string {
  const facts = factsOf(ex);
  return (facts.operation ??= findOperation(ex));
}

function findOperation(ex: Pick<Exchange, 'method' | 'path' | 'requestHeaders'>): string {
  if (ex.requestHeaders[DELIVERY_SIGNATURE] !== undefined) return 'webhook.delivery';
  const named = catalogueOperation(ex.method, ex.path);
  if (named) return named;
  const path = pathOnly(ex);
  if (path === '/mcp' || path.startsWith('/mcp/')) return 'mcp';
  if (path.startsWith('/v8/')) return 'v8.other';
  if (path.startsWith('/v1/')) return 'v1.other';
  return 'unknown';
}

/**
 * The exchanges of one operation (`operation`), in journal order: most rules judge one operation,
 * and walking only its exchanges spares each of them a pass over the whole journal. A journal fact:
 * an exchange's operation is read from its request alone.
 */
export function exchangesOf(exchanges: readonly Exchange[], op: string): readonly Exchange[] {
  return journalFact(exchanges, byOperation).get(op) ?? [];
}

function byOperation(exchanges: readonly Exchange[]): ReadonlyMap<string, readonly Exchange[]> {
  const groups = new Map<string, Exchange[]>();
  for (const ex of exchanges) {
    const op = operation(ex);
    const group = groups.get(op);
    if (group) group.push(ex);
    else groups.set(op, [ex]);
  }
  return groups;
}

/** Operations whose answer may be an event stream: their requests may ask for one instead of JSON. */
const STREAMING: ReadonlySet<string> = new Set(['v8.missions.events', 'v1.runs.events', 'v1.execute', 'mcp']);

/**
 * Why a request carries, besides what a rule judges it for, a form the descriptions or the standards
 * they build on leave a deployment free to refuse or to answer otherwise, or undefined: a query (no
 * endpoint defines one), a head past what a server may limit it to (`oversizedHead`), a precondition
 * or a range (`conditionalForm`), or an Accept that admits none of the media types its endpoint
 * answers with (RFC 9110 §12.5.1 lets it answer 406). A rule holding a request of an operation to an
 * answer (a 202, a 200, a 409) judges only requests without one; such requests are the generated and
 * catalogue rules', which leave that answer open.
 */
export function openRequestForm(ex: Pick<Exchange, 'method' | 'path' | 'requestHeaders'>): string | undefined {
  if (ex.path.includes('?')) return 'a query, which no endpoint defines';
  const head = oversizedHead(ex) ?? conditionalForm(ex);
  if (head !== undefined) return head;
  const accept = ex.requestHeaders.accept;
  if (acceptAdmits(accept, 'application/json') || (STREAMING.has(operation(ex)) && acceptAdmits(accept, 'text/event-stream'))) return undefined;
  return `Accept: ${accept}`;
}

/**
 * The smallest limits common servers put on a request's head by default, which RFC 9110 §5.4 lets a
 * server set ("larger than it wishes to process": a 4xx, 431 by §15.5.20, or 414 for the target by
 * §15.5.15), often in its HTTP layer before any route: Tomcat's maxHttpHeaderSize and Jetty's
 * requestHeaderSize, 8 KiB for the request line and every field together (nginx and Apache refuse a
 * single line past 8 KiB, Node a head past 16 KiB), and Apache's LimitRequestFields, 100 fields.
 */
const HEAD_BYTES = 8 * 1024;
const HEAD_FIELDS = 100;
/** What a client writes into a head that a recording may not hold (Host, Connection, Content-Length): counted on top of what it holds. */
const UNRECORDED_BYTES = 256;
const UNRECORDED_FIELDS = 4;

/**
 * Why a request's head (its request line and header fields) is past a limit a server may set on it
 * (HEAD_BYTES, HEAD_FIELDS), or undefined. Such a request may be refused whatever else it is, before
 * its credential is read, and by a layer that writes no problem (Node answers a bodiless 431).
 */
export function oversizedHead(ex: Pick<Exchange, 'method' | 'path' | 'requestHeaders'>): string | undefined {
  // "METHOD SP target SP HTTP/1.1 CRLF", then "name: value CRLF" per field.
  let bytes = ex.method.length + ex.path.length + 12;
  let fields = 0;
  for (const name in ex.requestHeaders) {
    bytes += name.length + (ex.requestHeaders[name]?.length ?? 0) + 4;
    fields += 1;
  }
  if (bytes + UNRECORDED_BYTES > HEAD_BYTES) return `a request head of ${bytes} bytes, past the ${HEAD_BYTES} a server may limit it to (RFC 9110 §5.4)`;
  if (fields + UNRECORDED_FIELDS > HEAD_FIELDS) return `${fields} header fields, past the ${HEAD_FIELDS} a server may limit a head to (RFC 9110 §5.4)`;
  return undefined;
}

/** The precondition fields of RFC 9110 §13.1. */
const PRECONDITIONS = ['if-match', 'if-none-match', 'if-modified-since', 'if-unmodified-since', 'if-range'] as const;

/**
 * Why a request may get another answer than the one its operation documents although nothing refuses
 * it, or undefined: a precondition field (RFC 9110 §13.1; once the request would otherwise succeed,
 * §13.2.2 has the server evaluate it: 304 Not Modified to a GET whose If-None-Match is `*` or names
 * the current entity tag, 412 Precondition Failed), or a Range on a GET (§14.2: a server MAY answer
 * 206 or ignore it). Only a rule expecting success is concerned: §13.2.1 has a server ignore
 * preconditions where it would not answer 2xx, so a refusal stays the refusal.
 */
export function conditionalForm(ex: Pick<Exchange, 'method' | 'requestHeaders'>): string | undefined {
  for (const name of PRECONDITIONS) {
    const value = ex.requestHeaders[name];
    if (value !== undefined) return `the precondition ${name}: ${value.slice(0, 60)} (RFC 9110 §13.2.2: 304 or 412 are its answers)`;
  }
  const range = ex.requestHeaders.range;
  if (ex.method === 'GET' && range !== undefined) return `Range: ${range.slice(0, 60)} (RFC 9110 §14.2: a server may answer 206)`;
  return undefined;
}

export function onSurface(ex: Pick<Exchange, 'method' | 'path' | 'requestHeaders'>, surface: 'v8' | 'v1' | 'mcp'): boolean {
  const op = operation(ex);
  return op === surface || op.startsWith(`${surface}.`);
}

/** The path's segment after `prefix` (a mission or run id), decoded; found once per exchange and prefix. */
export function idAfter(ex: Pick<Exchange, 'path'>, prefix: string): string | undefined {
  const ids = (factsOf(ex).ids ??= new Map());
  if (ids.has(prefix)) return ids.get(prefix);
  const id = findIdAfter(ex, prefix);
  ids.set(prefix, id);
  return id;
}

function findIdAfter(ex: Pick<Exchange, 'path'>, prefix: string): string | undefined {
  const path = pathOnly(ex);
  if (!path.startsWith(prefix)) return undefined;
  const id = path.slice(prefix.length).split('/', 1)[0];
  if (!id) return undefined;
  try {
    return decodeURIComponent(id);
  } catch {
    return id;
  }
}

/** Timings are kept to the millisecond and durations rounded: within this, one exchange following another is taken as after it. */
const CLOCK_GRAIN_MS = 2;

/** Whether `later` was sent after `earlier` had ended; without timings, journal order is all there is. */
export function startsAfterEnd(later: Exchange, earlier: Exchange): boolean {
  if (later.index <= earlier.index) return false;
  if (later.startedAt === undefined || earlier.startedAt === undefined || earlier.durationMs === undefined) return true;
  return Date.parse(later.startedAt) + CLOCK_GRAIN_MS >= Date.parse(earlier.startedAt) + earlier.durationMs;
}

/**
 * Whether `later` started after `earlier` ended beyond any doubt the clock's grain leaves: the
 * strict reading, for a rule that must rule out an overlap (a cancel that may have overtaken a
 * signal sent at once), where `startsAfterEnd` is the lenient one.
 */
export function surelyStartsAfterEnd(later: Exchange, earlier: Exchange): boolean {
  if (later.index <= earlier.index) return false;
  if (later.startedAt === undefined || earlier.startedAt === undefined || earlier.durationMs === undefined) return true;
  return Date.parse(later.startedAt) >= Date.parse(earlier.startedAt) + earlier.durationMs + CLOCK_GRAIN_MS;
}

/** Why the answer's body is not there whole, or undefined when it is. */
export function bodyMissing(ex: Exchange): string | undefined {
  if (ex.status === undefined) return `no answer (${ex.error ?? 'the recording holds none'})`;
  if (ex.responseBodyMissing !== undefined) return ex.responseBodyMissing;
  // Who broke it off (the client, the upstream, the proxy's stop) is in the error the recorder kept.
  if (ex.streamEnd === 'aborted') return ex.error !== undefined ? `the answer did not end: ${ex.error}` : 'the client aborted the stream';
  if (ex.responseBody === undefined && ex.events === undefined) return 'no body was kept';
  if (ex.responseBodyTruncated) return 'only a prefix of the body was kept';
  return undefined;
}

/** The answer's body is there whole. */
export function hasWholeBody(ex: Exchange): boolean {
  return bodyMissing(ex) === undefined;
}

/** The whole answer body, or undefined after telling `j` what is missing. */
export function wholeBody(j: Judge, ex: Exchange): string | undefined {
  const missing = bodyMissing(ex);
  if (missing !== undefined) {
    j.lacks(ex, `the answer's body: ${missing}`);
    return undefined;
  }
  return ex.responseBody ?? '';
}


/**
 * A body's JSON, parsed once per exchange however many rules read it (a recording of 3,000
 * exchanges is read by some 150 rules). Kept beside the text it came from, so a body completed
 * later is parsed again. The value is shared: judgements read it, never change it.
 */
export function bodyJson(ex: Exchange, side: 'request' | 'response', text: string): unknown {
  const cached = factsOf(ex);
  const hit = cached[side];
  if (hit && hit[0] === text) return hit[1];
  const parsed = parseJson(text);
  const value = parsed.ok ? parsed.value : undefined;
  cached[side] = [text, value];
  return value;
}

/** A journal's facts, and where its unanswered exchanges were at the last look. */
interface JournalFacts {
  facts: Map<unknown, Map<unknown, { size: number; answered: number; value: unknown }>>;
  /** Exchanges read so far. */
  read: number;
  /** The positions, among those read, of exchanges that had no answer yet. */
  unanswered: number[];
}

const journalFacts = new WeakMap<readonly Exchange[], JournalFacts>();

/**
 * How many of the journal's exchanges have their answer. An exchange gains its answer once and keeps
 * it, so only those unanswered at the last look and those added since are read again: every rule asks
 * this of the whole journal, and counting afresh each time walked a recording once per journal fact asked.
 */
function answeredIn(exchanges: readonly Exchange[], known: JournalFacts): number {
  if (exchanges.length < known.read) {
    known.read = 0;
    known.unanswered = [];
  }
  if (known.unanswered.length > 0) known.unanswered = known.unanswered.filter((i) => exchanges[i]!.status === undefined);
  for (let i = known.read; i < exchanges.length; i += 1) if (exchanges[i]!.status === undefined) known.unanswered.push(i);
  known.read = exchanges.length;
  return exchanges.length - known.unanswered.length;
}

/**
 * A fact of a whole journal (who was accepted where, ...) worked out once for every rule that
 * judges it, and again when it holds more exchanges or answers (an active check's journal grows as it runs).
 * `what` names the fact: the function that builds it; `context` (a profile) is what it reads beside
 * the journal, and a fact is kept per context.
 */
export function journalFact<T, C = undefined>(exchanges: readonly Exchange[], what: (exchanges: readonly Exchange[], context: C) => T, context?: C): T {
  let journal = journalFacts.get(exchanges);
  if (!journal) {
    journal = { facts: new Map(), read: 0, unanswered: [] };
    journalFacts.set(exchanges, journal);
  }
  const answered = answeredIn(exchanges, journal);
  const facts = journal.facts;
  let byContext = facts.get(what);
  if (!byContext) {
    byContext = new Map();
    facts.set(what, byContext);
  }
  const known = byContext.get(context);
  // The journal's length too: an exchange added without an answer (yet) may change what is known of those after it.
  if (known?.answered === answered && known.size === exchanges.length) return known.value as T;
  const value = what(exchanges, context as C);
  byContext.set(context, { size: exchanges.length, answered, value });
  return value;
}

const parses = new WeakMap<z.ZodType, WeakMap<object, unknown>>();

/**
 * `schema.safeParse(value)` of a parsed body (`requestJson`, `responseJson`), done once per body
 * and schema however many rules ask: the parsed value is shared, so is its verdict. Judgements read
 * the result, never change it.
 */
export function parsedAs<S extends z.ZodType>(schema: S, value: unknown): ReturnType<S['safeParse']> {
  if (typeof value !== 'object' || value === null) return schema.safeParse(value) as ReturnType<S['safeParse']>;
  let bySchema = parses.get(schema);
  if (!bySchema) {
    bySchema = new WeakMap();
    parses.set(schema, bySchema);
  }
  let result = bySchema.get(value) as ReturnType<S['safeParse']> | undefined;
  if (result === undefined) {
    result = schema.safeParse(value) as ReturnType<S['safeParse']>;
    bySchema.set(value, result);
  }
  return result;
}

/** The parsed JSON body of an answer, or undefined (not JSON, missing, or cut). */
export function responseJson(ex: Exchange): unknown {
  if (!hasWholeBody(ex) || ex.responseBody === undefined) return undefined;
  return bodyJson(ex, 'response', ex.responseBody);
}

/** Like `responseJson`, telling `j` when the body is not there whole. */
export function answerJson(j: Judge, ex: Exchange): unknown {
  const text = wholeBody(j, ex);
  if (text === undefined) return undefined;
  return bodyJson(ex, 'response', text);
}

/** Why the request's body is not there whole, or undefined when it is (or the request had none). */
export function requestBodyMissing(ex: Exchange): string | undefined {
  if (ex.requestBodyMissing !== undefined) return ex.requestBodyMissing;
  if (ex.requestBodyTruncated) return 'only a prefix of the request body was kept';
  return undefined;
}

/**
 * The JSON a request sent, as a judgement may hold the target to it: a JSON media type and plain
 * JSON text. A body led by a byte order mark ("MUST NOT add", RFC 8259 8.1; a receiver "MAY
 * ignore" it), sent under another media type, or naming a member twice (RFC 8259 4) may be
 * refused or not: it is no plain JSON here.
 */
export function requestJson(ex: Exchange): unknown {
  return sentOf(ex).value;
}

/** `requestJson` and whether the body names a member twice, worked out together once while the body they came from stands. */
function sentOf(ex: Exchange): NonNullable<ExchangeFacts['sent']> {
  // Every rule asks this of every request.
  const facts = factsOf(ex);
  const known = facts.sent;
  if (known && known.body === ex.requestBody && known.missing === ex.requestBodyMissing && known.truncated === ex.requestBodyTruncated) return known;
  let value: unknown;
  let twice = false;
  if (ex.requestBody !== undefined && requestBodyMissing(ex) === undefined && !headerWireForm(ex)) {
    const parsed = bodyJson(ex, 'request', ex.requestBody);
    // JSON.parse kept the last of the two: the body looks valid, though a deployment may have read the first or refused it.
    twice = namesMemberTwice(ex.requestBody, parsed);
    value = twice ? undefined : parsed;
  }
  const sent = { body: ex.requestBody, missing: ex.requestBodyMissing, truncated: ex.requestBodyTruncated, value, twice };
  facts.sent = sent;
  return sent;
}

/**
 * A request body in a wire form a deployment may take or refuse: led by a byte order mark, under
 * another media type than JSON, with a content coding, or a charset other than UTF-8 (RFC 8259 8.1;
 * a recorder may also show such a body decoded), or JSON naming a member twice in one object (RFC
 * 8259 4: names "SHOULD be unique", and what software does with such an object "is
 * unpredictable"). No judgement holds such a request to acceptance or refusal.
 */
export function openWireForm(ex: Exchange): boolean {
  return headerWireForm(ex) || sentOf(ex).twice;
}

/** `openWireForm`'s forms told by the body's first character and the request's header fields. */
function headerWireForm(ex: Exchange): boolean {
  if (ex.requestBody === undefined) return false;
  if (ex.requestBody.startsWith('\uFEFF')) return true;
  // "JSON body" (v1), "`Content-Type: application/json`" (v8): another type, a `+json` one too (`application/problem+json`), may be refused 415 (as Fastify's parsers do) or read.
  if (mediaType(ex.requestHeaders) !== 'application/json') return true;
  const coding = (ex.requestHeaders['content-encoding'] ?? '').trim().toLowerCase();
  if (coding !== '' && coding !== 'identity') return true;
  return otherCharset(ex.requestHeaders['content-type']) !== undefined;
}

export function recordOf(value: unknown): Record<string, unknown> | undefined {
  return isRecord(value) ? value : undefined;
}

/** The first few issues of a failed schema check, each with its path. */
export function issuesOf(error: z.ZodError): string {
  return error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; ');
}

export function isEventStream(ex: Exchange): boolean {
  return ex.events !== undefined || mediaType(ex.responseHeaders) === 'text/event-stream';
}

/**
 * The events of an event-stream answer, as read (the probe client) or parsed from the recorded
 * text; undefined when the answer is no stream or holds nothing to read.
 */
export function eventsOf(ex: Exchange): readonly SseEvent[] | undefined {
  if (ex.status === undefined || !isEventStream(ex)) return undefined;
  if (ex.events !== undefined) return ex.events;
  if (ex.responseBody === undefined) return undefined;
  // Parsed once per recorded body however many rules read the stream; the events are shared, read, never changed.
  const facts = factsOf(ex);
  if (facts.events?.body !== ex.responseBody) facts.events = { body: ex.responseBody, events: parseEventStreamText(ex.responseBody).events.map((e) => ({ ...e, atMs: 0 })) };
  return facts.events.events;
}

/**
 * Like `eventsOf`, telling `j` when the whole stream is not there to judge (no body kept, aborted, or
 * only a prefix kept: a recorder's body limit, a probe's cap): the rules reading it judge the whole
 * stream (which event is last, how it ended), and a prefix read as whole would lack its end. Whether
 * the stream ended, or its reader stopped it first, is `streamRead`'s and `endedStream`'s.
 */
export function streamEvents(j: Judge, ex: Exchange): readonly SseEvent[] | undefined {
  if (ex.status === undefined || !isEventStream(ex)) return undefined;
  const missing = bodyMissing(ex);
  if (missing !== undefined) {
    j.lacks(ex, `the event stream: ${missing}`);
    return undefined;
  }
  return eventsOf(ex);
}

/**
 * Why a stream did not end where its events stop: its reader stopped reading it (apicert's stream
 * timeout or byte or event bound, a client letting go, the close grace run out) before its server
 * ended it. Undefined when its server ended it, or the recording does not say how it ended (a HAR
 * is read as the traffic there was). An aborted stream is `bodyMissing`'s.
 */
export function readerStoppedStream(ex: Exchange): string | undefined {
  // The kernel's reading of a reader's stop (`readerStopped`), less an abort (a body not kept) and with the close grace run out.
  const stopped = ex.streamEnd === 'grace-expired' || (readerStopped(ex) && ex.streamEnd !== 'aborted');
  return stopped ? `its reader stopped it (${ex.streamEnd})` : undefined;
}

/** A whole-stream read (`streamRead`, `endedStream`): the events, where the terminal one is, and what is known of the end. */
export interface StreamRead {
  events: readonly SseEvent[];
  /** The index of the first terminal event read; -1 when none was (or the rule named no terminal event). */
  terminal: number;
  /**
   * Why the events read are not the whole stream: its reader stopped it before its server ended
   * it and before any terminal event. Undefined when they are: its server ended it, a terminal
   * event was read (what may follow one is informational, and how the stream closed is `closed`),
   * or the recording does not say how it ended.
   */
  unended: string | undefined;
  /**
   * After the terminal event: true when the server closed the stream, false when it held it open
   * for the whole close grace the reader waited; undefined when there was no terminal event or it
   * is not known (`closeUnread` says why).
   */
  closed: boolean | undefined;
  /** Why whether the server closed the stream after its terminal event is not known; undefined when it is, or there was no terminal event. */
  closeUnread: string | undefined;
}

/**
 * A stream's events with what is known of its end, for the rules that judge the whole stream
 * (which terminal event came, whether one came, how many of an event it carried, how it closed):
 * tells `j` only when the stream is not there whole (`streamEvents`), so a rule may still judge
 * what the events read show (an event after a terminal one fails however the stream ended) before
 * it decides what an unended stream (`unended`) means to it. `isTerminal` names the events that end
 * the stream; without it, only its server ends it. A stream broken off before any terminal event
 * (`brokenOff`) is no lack: its events read whole are judged, and it did not end (`unended`).
 */
export function streamRead(j: Judge, ex: Exchange, isTerminal?: (e: SseEvent) => boolean): StreamRead | undefined {
  const broken = brokenOff(ex, isTerminal);
  if (broken !== undefined) return broken;
  const events = streamEvents(j, ex);
  if (!events) return undefined;
  const terminal = isTerminal === undefined ? -1 : events.findIndex(isTerminal);
  const stopped = readerStoppedStream(ex);
  const unended = terminal === -1 && stopped !== undefined ? `${stopped} before ${isTerminal === undefined ? 'its server ended it' : 'any terminal event'}` : undefined;
  if (terminal === -1) return { events, terminal, unended, closed: undefined, closeUnread: undefined };
  // Only a reader that waited after the terminal event knows whether the server closed the stream.
  if (ex.streamEnd === 'server' || ex.streamEnd === 'grace-expired') return { events, terminal, unended, closed: ex.streamEnd === 'server', closeUnread: undefined };
  const closeUnread = stopped !== undefined ? `${stopped} after its terminal event, before the server closed it or the close grace ran out` : 'the recording does not say whether its server closed it';
  return { events, terminal, unended, closed: undefined, closeUnread };
}

/**
 * A stream the recording says was broken off (`aborted`: a client's abort another recorder wrote as
 * an error, an upstream that broke its answer off) whose complete events (`eventsOf`: a last event
 * cut short is dropped) hold no terminal event: what was read is judged as read, and it did not end
 * (`unended`), which a rule needing the end lacks (`endedStream`) and a rule on what follows a
 * terminal event passes by (a stream without one is not its to judge). Undefined for any other
 * stream, and for one whose terminal event was read, whose rest is lacking (`streamEvents`).
 */
function brokenOff(ex: Exchange, isTerminal: ((e: SseEvent) => boolean) | undefined): StreamRead | undefined {
  if (ex.streamEnd !== 'aborted' || ex.status === undefined || ex.responseBodyMissing !== undefined || !isEventStream(ex)) return undefined;
  const events = eventsOf(ex);
  if (events === undefined || (isTerminal !== undefined && events.some(isTerminal))) return undefined;
  return { events, terminal: -1, unended: `${bodyMissing(ex)}, before ${isTerminal === undefined ? 'its server ended it' : 'any terminal event'}`, closed: undefined, closeUnread: undefined };
}

/**
 * `streamRead`, telling `j` also when the stream did not end (`unended`): for a rule that needs the
 * stream's end (its terminal event, or all it carried), which its reader stopping first leaves
 * unread. A lack, not a failure: the kernel makes it untestable in a recording, inconclusive in an
 * active run.
 */
export function endedStream(j: Judge, ex: Exchange, isTerminal?: (e: SseEvent) => boolean): StreamRead | undefined {
  const read = streamRead(j, ex, isTerminal);
  if (read?.unended === undefined) return read;
  j.lacks(ex, `the end of the event stream: ${read.unended}`);
  return undefined;
}

/**
 * The events a recording kept of an event-stream answer, though the stream may not have ended (the
 * client broke it off, as clients do with a long-lived GET stream) or only a prefix of its body was
 * kept: each complete event there was sent (a last event cut short is dropped, as an EventSource
 * drops one). For rules that judge events one by one; a rule about the whole stream (how it ended,
 * what it carried in all) reads `streamEvents`. Tells `j` only when none of the stream was kept.
 */
export function keptEvents(j: Judge, ex: Exchange): readonly SseEvent[] | undefined {
  if (ex.status === undefined || !isEventStream(ex)) return undefined;
  if (ex.responseBodyMissing !== undefined || (ex.events === undefined && ex.responseBody === undefined)) {
    j.lacks(ex, `the event stream: ${ex.responseBodyMissing ?? 'no body was kept'}`);
    return undefined;
  }
  return eventsOf(ex);
}

/** An event's data as a JSON object, or undefined. */
export function dataOf(e: Pick<SseEvent, 'data'>): Record<string, unknown> | undefined {
  // Several rules read each event of each stream: parsed once per event while its data stands.
  const facts = factsOf(e);
  if (facts.data?.text !== e.data) {
    const parsed = parseJson(e.data);
    facts.data = { text: e.data, value: parsed.ok && isRecord(parsed.value) ? parsed.value : undefined };
  }
  return facts.data.value;
}

/** The JSON-RPC method names a POST to /mcp carried, as catalogue operations (`mcp.tools/call`). */
export function mcpOperations(ex: Exchange): string[] {
  const sent = requestJson(ex);
  const list = Array.isArray(sent) ? sent : [sent];
  return list.filter(isRecord).flatMap((m) => (typeof m.method === 'string' ? [mcpOperation(m.method)] : []));
}
