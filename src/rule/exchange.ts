/**
 * What a check sends and what it gets back, as the kernel sees it. The probe client implements
 * `Http`; checks and reports only ever see these shapes.
 */
import type { Credential } from '../profile/schema.ts';
import type { Exchange, SseEvent, StreamEnd } from './journal.ts';

export type { SseEvent, StreamEnd } from './journal.ts';

export interface ProbeRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS' | 'HEAD';
  /** Path and query below the target's base URL. */
  path: string;
  /** `null` sends no Authorization header. */
  credential: Credential | null;
  headers?: Record<string, string>;
  /** Serialized as JSON with `Content-Type: application/json`. */
  json?: unknown;
  /** Sent as is; for malformed bodies. */
  rawBody?: string;
  label?: string;
  timeoutMs?: number;
}

/**
 * A request written byte for byte on its own connection, for the forms Node's HTTP clients refuse
 * to send (duplicate or malformed framing headers, obs-fold, bare LF, a method or target undici
 * normalises). The client adds Host (unless `omitHost`), the credential, the profile's headers for
 * the surface and `Connection: close`; everything else is as given, in order.
 */
export interface RawRequest {
  /** Any token, sent as is: `GET`, `get`, `APICERT`. */
  method: string;
  /** The request-target as written on the request line: `/v8/goals`, `/v8/./goals`, `http://host/v8/goals`, `*`. */
  target: string;
  /** `HTTP/1.1` unless given. */
  version?: string;
  /** Header lines in order, duplicates kept; a value is written as is (an obs-fold included). */
  headers: ReadonlyArray<readonly [string, string]>;
  /** The body bytes as sent: Content-Length is added only when no framing header is given. */
  body?: Buffer | string;
  credential: Credential | null;
  /**
   * Where the credential's token goes instead of `Authorization: Bearer <token>`: another header
   * line (name, and what comes before and after the token), a query parameter, or a cookie. The
   * evidence names the credential (`$TOKEN_<NAME>`), never shows the token.
   */
  place?: { header: string; before?: string; after?: string } | { query: string } | { cookie: string };
  /** Line ending of the head: CRLF unless given. */
  lineEnd?: string;
  omitHost?: boolean;
  label?: string;
}

/**
 * How a raw request's head was written, beyond what its exchange's headers show (the version, the
 * line ending, a Host left out, every header line in order as given, where the token went): the same
 * for the same request whatever its fresh Idempotency-Key and whoever wrote it.
 */
export function rawForm(req: Pick<RawRequest, 'version' | 'lineEnd' | 'omitHost' | 'headers' | 'place'>): string {
  return JSON.stringify([req.version ?? 'HTTP/1.1', req.lineEnd ?? '\r\n', req.omitHost ?? false, req.headers.filter(([n]) => n.trim().toLowerCase() !== 'idempotency-key'), req.place ?? null]);
}

export interface ProbeResponse {
  status: number;
  /** Lower-cased header names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  text: string;
  /** The parsed body, or undefined when it is not JSON. */
  json: unknown;
  contentType: string;
  durationMs: number;
  /** The body was cut at the body cap: what was read is not the whole answer. */
  cut?: boolean;
  /** Why the body is malformed for its media type (invalid UTF-8 in JSON, a JSON type that is not JSON), when it is. */
  malformed?: string;
}

/**
 * What the reader does after an event: keep reading, drop the connection now (to test resume),
 * or treat it as terminal and wait `graceMs` for the server to close the stream.
 */
export type AfterEvent = 'continue' | 'disconnect' | 'terminal';

export interface ReadResult {
  events: SseEvent[];
  end: StreamEnd;
  /** The last `id` seen, which is what a client sends back as `Last-Event-ID`. */
  lastEventId?: string;
  /** Milliseconds between the terminal event and the server closing the stream. */
  closeAfterTerminalMs?: number;
  parseErrors: string[];
  /** The stream's bytes were not valid UTF-8 (they were decoded with replacement characters). */
  invalidUtf8?: boolean;
}

export interface StreamRequest extends ProbeRequest {
  lastEventId?: string;
  maxMs?: number;
  graceMs?: number;
  onEvent?: (event: SseEvent, seen: readonly SseEvent[]) => AfterEvent;
  /** Keep a last event the server closed without its blank line (see ReadOptions). */
  keepUnterminated?: boolean;
}

export interface StreamResponse extends ReadResult {
  status: number;
  headers: Record<string, string>;
  contentType: string;
  /** The body when the server did not answer with an event stream. */
  text?: string;
  json?: unknown;
  /** Why the body is broken for its media type (invalid UTF-8, JSON that is not JSON), as on `ProbeResponse`. */
  malformed?: string;
}

/** What a report keeps of one exchange; every string in it has been through the redactor. */
export interface EvidenceEntry {
  label?: string;
  request: { method: string; url: string; headers: Record<string, string>; body?: string };
  response?: {
    status: number;
    headers: Record<string, string>;
    body?: string;
    bodyTruncated?: boolean;
    events?: Array<{ id?: string; event?: string; data: string }>;
    eventsTruncated?: number;
    closedBy?: StreamEnd;
  };
  error?: string;
  durationMs: number;
  /** A command that repeats the request; the token is a shell variable the user sets. */
  curl: string;
  /** `received`: the target sent this to apicert's webhook receiver; there is no request to repeat. */
  direction?: 'sent' | 'received';
}

/** The only way a check talks to a target; every exchange lands in `evidence`. */
export interface Http {
  readonly evidence: readonly EvidenceEntry[];
  /** The exchanges this client made, as the one journal holds them: what a rule's judgement reads (src/rule/judgement.ts). */
  readonly exchanges: readonly Exchange[];
  readonly baseUrl: string;
  send(req: ProbeRequest): Promise<ProbeResponse>;
  /** Writes a request on a raw socket (TLS and the profile's headers apply; never through a proxy: a proxied target gets a TransportError saying so). */
  sendRaw(req: RawRequest): Promise<ProbeResponse>;
  /** Opens an event stream and reads it until the server closes it or a bound is reached. */
  stream(req: StreamRequest): Promise<StreamResponse>;
  /**
   * Keeps an exchange apicert did not send (a delivery the target made to apicert's receiver),
   * redacted; `subject` (the delivery) can then name it as the exchange that decided a case.
   */
  record(entry: EvidenceEntry, subject?: object): number;
  /** The index in `evidence` of the exchange that produced `subject`: a response, a stream, a recorded delivery. */
  exchangeOf(subject: object): number | undefined;
  /** Requests the run's budget (safety.requestBudget) still allows. */
  remainingRequests(): number;
}
