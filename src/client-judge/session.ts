/**
 * What a client under test sent during one scenario, and what it got: the record the client rules
 * judge. Authorization is never kept; bodies are bounded.
 */
import { createHash } from 'node:crypto';
import { canonicalJson, isRecord, parseJson, type JsonParse } from '../util/json.ts';
import type { ScenarioName } from './scenarios.ts';

export const RECORDED_BODY_LIMIT = 64 * 1024;
/**
 * What one scenario keeps of a client's traffic: the rules read its first few dozen requests, and a
 * client that loops must not grow the judge's memory without end. Requests past either bound are
 * counted, not kept.
 */
export const RECORDED_EXCHANGE_LIMIT = 5_000;
export const RECORDED_BYTES_LIMIT = 32 * 1024 * 1024;

export interface RecordedExchange {
  index: number;
  /** Milliseconds since the scenario began, when the request's headers arrived. */
  at: number;
  /** Which TCP connection carried the request: a number the front gives each connection it accepts. */
  connection?: number;
  /** Milliseconds since the scenario began (negative before it), when that connection was accepted. */
  connectedAt?: number;
  /** The request's place on its connection, 1 for the first. */
  onConnection?: number;
  method: string;
  /** Path with query. */
  path: string;
  /** Lower-cased request headers; Authorization and cookies are left out. */
  headers: Record<string, string>;
  /** The body's first RECORDED_BODY_LIMIT characters. */
  body: string;
  /** A turn body's `idempotencyKey`, read from the whole body on arrival (the kept text may end before it). */
  bodyKey?: string;
  /** sha256 of the whole body's canonical JSON (of its text when not JSON), taken on arrival: what sameRequestBody compares. */
  bodyDigest?: string;
  /** The same digest with the fields a client may set anew per attempt left out (ATTEMPT_FIELDS): what sameWork compares. */
  workDigest?: string;
  /** What the scenario did to this request instead of (or besides) serving it; absent when served plainly. */
  adversity?: string;
  status?: number;
  /** Milliseconds since the scenario began, when the response (or the drop) was sent. */
  respondedAt?: number;
  responseHeaders?: Record<string, string>;
  /** A JSON response body, bounded. */
  responseBody?: string;
  /** Ids of the stream events relayed before the stream ended. */
  eventIds?: string[];
  /** The run or mission this exchange concerns, learned from the response when the path does not say. */
  runId?: string;
}

export interface ClientSession {
  scenario: ScenarioName;
  /** The scenario scale: every delay the seed states (the 60 s retry hint) is multiplied by it. */
  timeScale: number;
  exchanges: RecordedExchange[];
  /** Requests that came after the record was full (RECORDED_EXCHANGE_LIMIT, RECORDED_BYTES_LIMIT): counted, not kept. */
  dropped?: number;
  /** How the session ended: the client exited, went quiet, or ran into the deadline. */
  ended: 'exit' | 'quiet' | 'deadline' | 'interrupted';
  exitCode?: number | null;
  /** The last lines the client printed (stdout and stderr, bounded, redacted). */
  output?: string;
}

type Ended = Pick<ClientSession, 'scenario' | 'ended' | 'exitCode' | 'output'>;

/** A failed client command: how it ended ("exited with code 1") and its last output after `outputAfter`; else undefined. */
function failureText(session: Ended, outputAfter: string): string | undefined {
  if (session.ended !== 'exit' || session.exitCode === 0 || session.exitCode === undefined) return undefined;
  const how = session.exitCode === null ? 'was killed by a signal' : `exited with code ${session.exitCode}`;
  const output = session.output?.trim();
  return `scenario ${session.scenario}: the client ${how}${output ? `${outputAfter}${output}` : ' and printed nothing'}`;
}

/** A client command that failed, as the run's warning printed when it ends: its exit code with its last output below; else undefined. */
export function clientFailureWarning(session: Ended): string | undefined {
  return failureText(session, '; its last output:\n');
}

/**
 * A client command that failed, for the end of a rule's reason; else undefined. The console and a
 * report's summary show a reason's first line only, so that line ends with the exit code and the
 * output follows as a paragraph of its own (it was printed once already, when the client ended).
 */
export function clientFailure(session: Ended): string | undefined {
  return failureText(session, '\n\nIts last output:\n');
}

const HIDDEN_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie']);

export function recordableHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined || HIDDEN_HEADERS.has(name.toLowerCase())) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function bodyKeyOf(value: unknown): string | undefined {
  const key = isRecord(value) ? value.idempotencyKey : undefined;
  return typeof key === 'string' ? key : undefined;
}

/** Key order and whitespace do not make two JSON bodies different requests; a body that is not JSON is compared as text. */
function digestOf(body: string, parsed: JsonParse): string {
  return createHash('sha256')
    .update(parsed.ok ? `json:${canonicalJson(parsed.value)}` : `text:${body}`)
    .digest('hex');
}

/**
 * The body fields that name one attempt rather than the work it asks for, so a client may set them
 * anew each time it sends the same work. `idempotencyKey` (any body: keyOf reads it from either
 * shape) is the key, judged on its own. The turn body's required `requestId` ("| requestId |
 * Identifier | yes |") identifies a request, as the Problem's own `requestId` does for the answer
 * to one; the seed's Endpoints rule 1 scopes a key to "a normalized digest of the request", so not
 * every byte of a body is its work. A task body's fields are open ("extra properties allowed"), and
 * none is set aside there: what an unknown field means is not shown.
 */
const ATTEMPT_FIELDS = { any: ['idempotencyKey'], turn: ['requestId'] } as const;

function workDigestOf(body: string, parsed: JsonParse): string {
  if (!parsed.ok || !isRecord(parsed.value)) return digestOf(body, parsed);
  const isTask = parsed.value.mode === 'task';
  const work = Object.fromEntries(Object.entries(parsed.value).filter(([name]) => !(ATTEMPT_FIELDS.any as readonly string[]).includes(name) && (isTask || !(ATTEMPT_FIELDS.turn as readonly string[]).includes(name))));
  return digestOf(body, { ok: true, value: work });
}

/** The first `limit` characters of `text`, as a string of their own: a V8 slice keeps its whole parent alive. */
export function boundedCopy(text: string, limit: number): string {
  return text.length <= limit ? text : Buffer.from(text.slice(0, limit), 'utf16le').toString('utf16le');
}

/**
 * What is kept of a request body: its bounded text, and what the rules compare (the key and the
 * digest), taken from the whole body so that a large turn body is judged on all of it.
 */
export function recordBody(body: string): Pick<RecordedExchange, 'body' | 'bodyKey' | 'bodyDigest' | 'workDigest'> {
  const parsed = parseJson(body);
  const key = parsed.ok ? bodyKeyOf(parsed.value) : undefined;
  return { body: boundedCopy(body, RECORDED_BODY_LIMIT), bodyDigest: digestOf(body, parsed), workDigest: workDigestOf(body, parsed), ...(key !== undefined ? { bodyKey: key } : {}) };
}

/** The Idempotency-Key of a request: the header, or a turn body's `idempotencyKey`. */
export function keyOf(ex: RecordedExchange): string | undefined {
  if (ex.headers['idempotency-key'] !== undefined) return ex.headers['idempotency-key'];
  // Recorded on arrival: the whole body was read. A record made without it (a test's) has its whole body as text.
  if (ex.bodyDigest !== undefined) return ex.bodyKey;
  const body = parseJson(ex.body);
  return body.ok ? bodyKeyOf(body.value) : undefined;
}

/** The same request body: compared on the digests of the whole bodies taken on arrival. */
export function sameRequestBody(a: RecordedExchange, b: RecordedExchange): boolean {
  const digest = (ex: RecordedExchange) => ex.bodyDigest ?? digestOf(ex.body, parseJson(ex.body));
  return digest(a) === digest(b);
}

/** The same work: the same body once the fields that name one attempt (ATTEMPT_FIELDS) are set aside. */
export function sameWork(a: RecordedExchange, b: RecordedExchange): boolean {
  const digest = (ex: RecordedExchange) => ex.workDigest ?? workDigestOf(ex.body, parseJson(ex.body));
  return digest(a) === digest(b);
}
