/**
 * What a client under test sent during one scenario, and what it got: the record the client rules
 * judge. Authorization is never kept; bodies are bounded.
 */
import { canonicalJson, isRecord, parseJson } from '../util/json.ts';
import type { ScenarioName } from './scenarios.ts';

export const RECORDED_BODY_LIMIT = 64 * 1024;

export interface RecordedExchange {
  index: number;
  /** Milliseconds since the scenario began, when the request's headers arrived. */
  at: number;
  method: string;
  /** Path with query. */
  path: string;
  /** Lower-cased request headers; Authorization and cookies are left out. */
  headers: Record<string, string>;
  body: string;
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
  /** How the session ended: the client exited, went quiet, or ran into the deadline. */
  ended: 'exit' | 'quiet' | 'deadline' | 'interrupted';
  exitCode?: number | null;
  /** The last lines the client printed (stdout and stderr, bounded, redacted). */
  output?: string;
}

/** A client command that failed: its exit code and last output, for the console and the report; else undefined. */
export function clientFailure(session: Pick<ClientSession, 'scenario' | 'ended' | 'exitCode' | 'output'>): string | undefined {
  if (session.ended !== 'exit' || session.exitCode === 0 || session.exitCode === undefined) return undefined;
  const code = session.exitCode === null ? 'was killed by a signal' : `exited with code ${session.exitCode}`;
  const output = session.output?.trim();
  return `scenario ${session.scenario}: the client ${code}${output ? `; its last output:\n${output}` : ' and printed nothing'}`;
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

/** The Idempotency-Key of a request: the header, or a turn body's `idempotencyKey`. */
export function keyOf(ex: RecordedExchange): string | undefined {
  if (ex.headers['idempotency-key'] !== undefined) return ex.headers['idempotency-key'];
  const body = parseJson(ex.body);
  const key = body.ok && isRecord(body.value) ? body.value.idempotencyKey : undefined;
  return typeof key === 'string' ? key : undefined;
}

/** Key order and whitespace do not make two JSON bodies different requests. */
export function sameRequestBody(a: string, b: string): boolean {
  const x = parseJson(a);
  const y = parseJson(b);
  return x.ok && y.ok ? canonicalJson(x.value) === canonicalJson(y.value) : a === b;
}
