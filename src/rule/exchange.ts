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
