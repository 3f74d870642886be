/**
 * The one journal of exchanges. Whoever saw the traffic fills it: the probe client (the exchanges a
 * check caused), the HAR reader (a recording), the proxy (live traffic). Every rule's judgement
 * reads these and nothing else, so a rule is judged by the same code whoever sent the request.
 *
 * What an exchange keeps of a body is what the judgements need: a prefix of its text (whole when
 * small), and, for an event stream, its events with their timing. What a recorder did not keep is
 * said, not guessed: a judgement that needs it is untestable with that reason.
 */

export type StreamEnd = 'server' | 'client-disconnect' | 'timeout' | 'grace-expired' | 'byte-limit' | 'event-limit';

export interface SseEvent {
  /** The `id` field as sent; undefined when the event had none. */
  id?: string;
  /** The `event` field; undefined means the default type `message`. */
  event?: string;
  data: string;
  /** Milliseconds since the stream opened. */
  atMs: number;
}

/**
 * Why a part of an exchange is not there to judge: the recorder did not keep it (a HAR written
 * with bodies omitted, a header a recorder strips), the client aborted the stream, or the journal
 * dropped it to stay inside its byte bound. Said in words a report can print.
 */
export type MissingPart = string;

export interface Exchange {
  /** Position in the journal it came from (a recording's entry index; a check's own order), from 0. */
  index: number;
  /** When the request started (ISO 8601), when known. */
  startedAt?: string;
  /** Request to end of response (to the stream's end for a stream); absent when not known. */
  durationMs?: number;
  method: string;
  /** The full URL. */
  url: string;
  /** Path with query, below the origin. */
  path: string;
  /** Lower-cased names; repeated headers joined with ", ". */
  requestHeaders: Record<string, string>;
  /** The request body as text; undefined when the request had none or it was not kept (see `requestBodyMissing`). */
  requestBody?: string;
  requestBodyTruncated?: boolean;
  /** The request had a body that is not here, and why. */
  requestBodyMissing?: MissingPart;
  /**
   * Which credential the request carried, by its label: a profile credential's name (active runs,
   * `«redacted:token:<name>»` markers of apicert's recordings), or a label learned from a recording.
   */
  credential?: string;
  /** Absent when the exchange got no answer (see `error`). */
  status?: number;
  responseHeaders: Record<string, string>;
  /** The decoded response body (for a stream, its raw text when no `events` were parsed); undefined when none was kept. */
  responseBody?: string;
  /** Only a prefix of the body is here (a recorder's cut, the probe's body cap, the journal's per-body bound). */
  responseBodyTruncated?: boolean;
  /** The answer had a body that is not here, and why (omitted by the recorder, the stream aborted, the journal full). */
  responseBodyMissing?: MissingPart;
  /** An event stream's events as read, each with its time since the stream opened. */
  events?: readonly SseEvent[];
  /** How the stream ended, when it was read as one (`aborted`: the recording says the client aborted it). */
  streamEnd?: StreamEnd | 'aborted';
  /** The close grace (ms) its reader waited after the terminal event before letting go of a stream still open (`streamEnd` grace-expired). */
  closeGraceMs?: number;
  /**
   * A webhook delivery in an apicert recording: whether its MAC verified with the endpoint's signing
   * secret, as the recording's writer found before hiding that secret (har.ts SIGNATURE_FIELD).
   */
  signatureVerified?: boolean;
  /** Transport trouble instead of (or after) an answer. */
  error?: string;
  /** The index of this exchange's evidence in the check's `ctx.http.evidence`, when the probe client made it. */
  evidence?: number;
  /**
   * The request was written byte for byte on a socket of its own (apicert's raw probes): how its
   * head was written (`rawForm`: version, line ending, every header line as given); its headers are
   * the head's lines (the last of a name), its body the bytes as Latin-1 text. A recorder inside an
   * HTTP client never sees one.
   */
  raw?: string;
  /** Request headers (lower-cased names) a recorder stripped, and why: which credential was sent is then unknown, never "none". */
  headersMissing?: Readonly<Record<string, MissingPart>>;
}

/** Bytes an exchange holds in the journal: its kept texts (headers are small and bounded by the transport). */
export function keptBytes(ex: Exchange): number {
  let n = (ex.requestBody?.length ?? 0) + (ex.responseBody?.length ?? 0);
  for (const e of ex.events ?? []) n += e.data.length + (e.id?.length ?? 0) + (e.event?.length ?? 0);
  return n;
}

export interface JournalLimits {
  /** The newest this many exchanges are kept. */
  maxExchanges: number;
  /** Bytes of bodies (and events) kept at once across every exchange. */
  maxKeptBytes: number;
  /** Bytes of one body (or of one stream's events) kept; the rest is cut and the exchange says so. */
  maxBodyBytes: number;
}

/** A check's journal: its own exchanges only, freed when the check ends. */
export const CHECK_JOURNAL_LIMITS: JournalLimits = { maxExchanges: 5_000, maxKeptBytes: 4 * 1024 * 1024, maxBodyBytes: 2 * 1024 * 1024 };

/**
 * Exchanges in the order their requests were sent, bounded like the proxy's record: the newest
 * `maxExchanges`, at most `maxKeptBytes` of bodies (large ones first, then the oldest, each
 * exchange saying so), each body cut at `maxBodyBytes`. Dropped exchanges are counted.
 */
export class Journal {
  private items: Exchange[] = [];
  private head = 0;
  private bytes = 0;
  private next = 0;
  /** Below this position every exchange's bodies were already dropped for the byte bound. */
  private stripped = 0;
  /** Below this position every exchange's request body was dropped too. */
  private requestsStripped = 0;
  /** Below this position every large request body was cut to its prefix. */
  private requestsCut = 0;
  /** Below this position every large answer's body was dropped. */
  private largeAnswersDropped = 0;
  dropped = 0;
  readonly limits: JournalLimits;

  constructor(limits: JournalLimits = CHECK_JOURNAL_LIMITS) {
    this.limits = limits;
  }

  /** The kept exchanges, oldest first. */
  get exchanges(): readonly Exchange[] {
    if (this.head > 0) this.rebase();
    return this.items;
  }

  /** Lets go of the evicted exchanges' places, and counts positions from the oldest kept. */
  private rebase(): void {
    this.items = this.items.slice(this.head);
    this.stripped = Math.max(0, this.stripped - this.head);
    this.requestsStripped = Math.max(0, this.requestsStripped - this.head);
    this.requestsCut = Math.max(0, this.requestsCut - this.head);
    this.largeAnswersDropped = Math.max(0, this.largeAnswersDropped - this.head);
    this.head = 0;
  }

  get size(): number {
    return this.items.length - this.head;
  }

  /** Adds an exchange (its `index` is set to its place in the journal) and returns it, cut to the body bound. */
  add(ex: Omit<Exchange, 'index'> & { index?: number }): Exchange {
    const kept = cut({ ...ex, index: ex.index ?? this.next }, this.limits.maxBodyBytes);
    this.next = Math.max(this.next, kept.index + 1);
    this.items.push(kept);
    this.bytes += keptBytes(kept);
    this.evict();
    return kept;
  }

  /**
   * An exchange's answer arrived after it was added (a stream read to its end): its new parts count
   * from now on. `update` changes the exchange in place.
   */
  complete(ex: Exchange, update: Partial<Exchange>): void {
    const before = keptBytes(ex);
    Object.assign(ex, cut({ ...ex, ...update }, this.limits.maxBodyBytes));
    forgetFacts(ex);
    this.bytes += keptBytes(ex) - before;
    // The exchange may sit below the bodies already dropped: look again from the oldest.
    if (this.bytes > this.limits.maxKeptBytes) {
      this.stripped = this.head;
      this.largeAnswersDropped = this.head;
    }
    this.evict();
  }

  private evict(): void {
    while (this.size > this.limits.maxExchanges) {
      const oldest = this.items[this.head]!;
      this.items[this.head] = undefined as unknown as Exchange;
      this.head += 1;
      this.bytes -= keptBytes(oldest);
      this.dropped += 1;
    }
    // Over the byte bound, the oldest answers' bodies go first; their exchanges stay, so a judgement
    // still picks by what was asked and answered, and what needs a body is untestable with the reason.
    // Request bodies (what the client sent, which a judgement picks exchanges by) go only when the
    // answers' alone cannot bring the journal under its bound.
    // A large request body (a probe's 1 MiB member) is cut to a prefix first: it still says which request it was.
    for (let i = Math.max(this.head, this.requestsCut); this.bytes > this.limits.maxKeptBytes && i < this.items.length; i += 1) {
      const ex = this.items[i]!;
      if ((ex.requestBody?.length ?? 0) > LARGE_REQUEST) {
        this.bytes -= ex.requestBody!.length - REQUEST_PREFIX;
        ex.requestBody = prefix(ex.requestBody!, REQUEST_PREFIX);
        ex.requestBodyTruncated = true;
        forgetFacts(ex);
      }
      this.requestsCut = i + 1;
    }
    // Then large answers (a deployment's unpaged listing of a megabyte), oldest first: one of them
    // frees what hundreds of small ones would, and the small ones are each a case a judgement reads.
    for (let i = Math.max(this.head, this.largeAnswersDropped); this.bytes > this.limits.maxKeptBytes && i < this.items.length; i += 1) {
      const ex = this.items[i]!;
      const size = keptBytes(ex);
      if (size - (ex.requestBody?.length ?? 0) > LARGE_ANSWER) {
        dropAnswer(ex, DROPPED);
        this.bytes -= size - keptBytes(ex);
      }
      this.largeAnswersDropped = i + 1;
    }
    for (let i = Math.max(this.head, this.stripped); this.bytes > this.limits.maxKeptBytes && i < this.items.length; i += 1) {
      const ex = this.items[i]!;
      const size = keptBytes(ex);
      dropAnswer(ex, DROPPED);
      this.bytes -= size - keptBytes(ex);
      this.stripped = i + 1;
    }
    for (let i = Math.max(this.head, this.requestsStripped); this.bytes > this.limits.maxKeptBytes && i < this.items.length; i += 1) {
      const ex = this.items[i]!;
      const size = keptBytes(ex);
      if (size > 0) {
        dropBodies(ex, DROPPED);
        this.bytes -= size;
      }
      this.requestsStripped = i + 1;
    }
    if (this.head > 1024 && this.head * 2 > this.items.length) this.rebase();
  }
}

/**
 * Where src/traffic/read.ts keeps what judgements worked out from an exchange (its parsed bodies,
 * among others). Defined here, below it, so the journal can let those go with the bodies it drops
 * or cuts: a fact kept on an exchange would otherwise hold the body the byte bound let go.
 */
export const EXCHANGE_FACTS = Symbol('exchange facts');

const copiedFrom = new WeakMap<Exchange, Exchange>();

/** Links the run journal's copy of an exchange to the check's own, whose evidence that check recorded. */
export function linkCopy(copy: Exchange, original: Exchange): void {
  copiedFrom.set(copy, original);
}

/** The check's own exchange a run journal's copy was made from, if any. */
export function originalOf(copy: Exchange): Exchange | undefined {
  return copiedFrom.get(copy);
}

/** Forgets what was worked out from `ex`: its bodies just changed. */
function forgetFacts(ex: Exchange): void {
  delete (ex as { [EXCHANGE_FACTS]?: unknown })[EXCHANGE_FACTS];
}

const DROPPED: MissingPart = 'not kept: the journal dropped it to stay inside its byte bound';
/** A request body this long is cut to its first REQUEST_PREFIX characters before any answer's body goes. */
const LARGE_REQUEST = 64 * 1024;
/** An answer (body or events) this long is dropped before any shorter one. */
const LARGE_ANSWER = 64 * 1024;
const REQUEST_PREFIX = 4096;

function dropAnswer(ex: Exchange, why: MissingPart): void {
  if (ex.responseBody !== undefined || ex.events !== undefined) {
    delete ex.responseBody;
    delete ex.events;
    ex.responseBodyMissing = why;
    forgetFacts(ex);
  }
}

function dropBodies(ex: Exchange, why: MissingPart): void {
  if (ex.requestBody !== undefined) {
    delete ex.requestBody;
    ex.requestBodyMissing = why;
    forgetFacts(ex);
  }
  dropAnswer(ex, why);
}

/** The exchange with each body cut at `max` characters, and a stream's events at `max` characters of data. */
function cut(ex: Exchange, max: number): Exchange {
  if (ex.requestBody !== undefined && ex.requestBody.length > max) {
    ex.requestBody = prefix(ex.requestBody, max);
    ex.requestBodyTruncated = true;
  }
  if (ex.responseBody !== undefined && ex.responseBody.length > max) {
    ex.responseBody = prefix(ex.responseBody, max);
    ex.responseBodyTruncated = true;
  }
  if (ex.events !== undefined) {
    let room = max;
    let n = 0;
    for (const e of ex.events) {
      room -= e.data.length + (e.id?.length ?? 0);
      if (room < 0) break;
      n += 1;
    }
    if (n < ex.events.length) {
      ex.events = ex.events.slice(0, n);
      ex.responseBodyTruncated = true;
    }
  }
  return ex;
}

/**
 * The first `max` characters as a string of their own: a slice would keep the whole text it was cut
 * from alive. Latin-1 text is copied as Latin-1, one byte a character: a UTF-16 copy is two.
 */
function prefix(text: string, max: number): string {
  const part = text.slice(0, max);
  return isLatin1(part) ? Buffer.from(part, 'latin1').toString('latin1') : Buffer.from(part, 'utf16le').toString('utf16le');
}

/** The path without its query. */
export function pathOnly(ex: Pick<Exchange, 'path'>): string {
  const q = ex.path.indexOf('?');
  return q === -1 ? ex.path : ex.path.slice(0, q);
}

export { mediaType } from './media-type.ts';

/** Whether every character of `text` is Latin-1: V8 then holds it one byte a character, else two. */
export function isLatin1(text: string): boolean {
  return !BEYOND_LATIN1.test(text);
}

const BEYOND_LATIN1 = /[^\u0000-\u00ff]/;
