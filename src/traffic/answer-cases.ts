/**
 * The judgement of one answer, or of one stream's events, where a certify rule and a load rule
 * (src/load/scenarios/) judge the same sentence: written once here and called by both. Plain
 * functions over a status, a header, a parsed body and parsed events, importing no zod and no Node,
 * so esbuild bundles them into the k6 scripts (docs/load.md, "Judgements shared with certify").
 *
 * Each returns the cases it judged. `check` is a fixed sentence, the same for every answer (k6
 * groups its checks by it); `why` says what was wrong with this answer (certify's reason).
 */
import { PROBLEM_CONTENT_TYPE } from '../contract/media-types.ts';
import { mediaType } from '../rule/media-type.ts';
import { canonicalJson, parseJson } from '../util/json.ts';

export interface AnswerCase {
  ok: boolean;
  check: string;
  why: string;
}

/** The events of a stream as far as these judgements read them. */
export interface StreamEvent {
  id?: string | undefined;
  event?: string | undefined;
}

/** Whether every case held; the first that did not, for a caller that reports one reason. */
export function firstFailing(cases: readonly AnswerCase[]): AnswerCase | undefined {
  return cases.find((c) => !c.ok);
}

// --- /v8 mission event streams ("Each event has three fields: `id` (opaque stable cursor ...)") ---

/** Every event of a /v8 stream carries an id, and no two share one (the id is the cursor to resume from). */
export function eventIdCases(events: readonly StreamEvent[]): AnswerCase[] {
  const cases: AnswerCase[] = [];
  const ids = new Set<string>();
  for (const [i, e] of events.entries()) {
    const has = e.id !== undefined && e.id.length > 0;
    cases.push({ ok: has, check: 'every event carries an id', why: `event #${i + 1} (${e.event ?? 'message'}) has no id` });
    if (e.id === undefined) continue;
    cases.push({ ok: !ids.has(e.id), check: 'no two events of one stream share an id', why: `two events of one stream share the id ${e.id}` });
    ids.add(e.id);
  }
  return cases;
}

/**
 * One terminal event per stream: no terminal event follows the first. Other events may follow it,
 * "Events after a terminal event are informational only, not state-changing", and "The stream
 * closes after a terminal event" does not say immediately; a second terminal event is not
 * informational (it reports another ending). Undefined when the stream carries no terminal event.
 */
export function oneTerminalCase(events: readonly StreamEvent[], isTerminal: (type: string | undefined) => boolean): AnswerCase | undefined {
  const at = events.findIndex((e) => isTerminal(e.event));
  if (at === -1) return undefined;
  const again = events.slice(at + 1).filter((e) => isTerminal(e.event));
  const named = again.map((e) => e.event).join(', ');
  return { ok: again.length === 0, check: 'no terminal event follows the first on its stream', why: `${again.length} terminal event(s) (${named}) followed ${events[at]!.event} on the same stream: events after a terminal event are informational only` };
}

// --- /v1 run event streams ("Resume: `Last-Event-ID` carries the `sequence` value of the stored run event") ---

/** The SSE ids a /v1 stream carries are the run event's integer sequence, increasing along the stream. */
export function sequenceIdCases(events: readonly StreamEvent[]): AnswerCase[] {
  const withId = events.filter((e) => e.id !== undefined);
  const sequences = withId.map((e) => Number(e.id));
  return [
    { ok: sequences.every((n) => Number.isInteger(n)), check: 'every SSE id is the integer sequence Last-Event-ID carries', why: `SSE ids [${withId.map((e) => e.id).join(', ')}] are not the integer sequence Last-Event-ID carries` },
    { ok: sequences.every((n, i) => i === 0 || n > sequences[i - 1]!), check: 'the SSE ids increase along the stream', why: `SSE ids [${sequences.join(', ')}] do not increase` },
  ];
}

// --- Idempotency ("Replay with the same key and the same body returns the original response"; "... gives `409`") ---

/** An answer as the idempotency judgements compare it. */
export interface Answer {
  status: number;
  body: string;
}

/** A replay answers what the original answered: the same status and the same body (as JSON, whatever its key order or spacing). */
export function replayCase(original: Answer, replay: Answer): AnswerCase {
  const check = 'a replay answers the original status and body';
  if (replay.status !== original.status) return { ok: false, check, why: `answered ${replay.status}, the original ${original.status}` };
  const a = parseJson(original.body);
  const b = parseJson(replay.body);
  const same = a.ok && b.ok ? canonicalJson(a.value) === canonicalJson(b.value) : original.body === replay.body;
  return { ok: same, check, why: 'answered another body than the original response' };
}

/**
 * Whether the answer to a same-key same-body request sent while the first was still being
 * processed (before its answer) is the refusal a deployment may give it instead of a replay. Both
 * replay sentences speak of an original that was answered ("returns the original response", v8
 * Endpoints > Rules 3; "replays safely", v1 Endpoints > Rules 2) and neither says what a duplicate
 * that arrives before it gets: many deployments answer it 409 "request in progress" (Stripe's;
 * the IETF httpapi Idempotency-Key draft, "Concurrent Request"), which admits nothing and creates
 * nothing, so it is no replay to judge. A 409 whose `code` is `conflict` is not that refusal: /v1
 * gives `conflict` to "a different request", which the same request is not (`code` undefined where
 * the surface has no codes, /v8). A 2xx is still a replay (or a second execution: "without
 * re-executing"), and judged as one.
 */
export function refusedInFlight(status: number, code?: unknown): boolean {
  return status === 409 && code !== 'conflict';
}

/** A /v1 task replay names the original run (a second run_id means the request was executed twice). */
export function sameRunCase(original: unknown, again: unknown): AnswerCase {
  return { ok: again === original, check: 'a task replay answers the original run_id', why: `answered run_id ${String(again)}, the original ${String(original)}: the request was executed twice` };
}

/** The same key with another body is refused with 409. */
export function conflictStatusCase(status: number): AnswerCase {
  return { ok: status === 409, check: 'another body with a used key is answered 409', why: `answered ${status}` };
}

/** /v1 names the refusal: "a conflict (code `conflict`, HTTP `409`)". Judged on a 409's body. */
export function conflictCodeCase(problem: Record<string, unknown> | undefined): AnswerCase {
  return { ok: problem?.code === 'conflict', check: 'the 409 carries code conflict', why: `answered 409 with code ${JSON.stringify(problem?.code)}, expected conflict` };
}

// --- Rate limits ---

/** /v1 "Over the rate limit: HTTP `429`, `code` `rate_limited`, `retryable:true`, optional `retryAfterMs`." Judged on a 429's body. */
export function rateLimitedCases(problem: Record<string, unknown> | undefined): AnswerCase[] {
  const cases: AnswerCase[] = [
    { ok: problem?.code === 'rate_limited', check: 'a 429 carries code rate_limited', why: `the 429 carries code ${JSON.stringify(problem?.code)}, expected rate_limited` },
    { ok: problem?.retryable === true, check: 'a 429 carries retryable:true', why: `the 429 says retryable: ${String(problem?.retryable)}, expected true` },
  ];
  const ms = problem?.retryAfterMs;
  if (ms !== undefined) cases.push({ ok: Number.isInteger(ms) && (ms as number) >= 0, check: 'retryAfterMs, when present, is an integer of at least 0', why: `retryAfterMs is ${JSON.stringify(ms)}, expected an integer of at least 0` });
  return cases;
}

/** /v1 "A numeric `Retry-After` header is expected alongside it." */
export function retryAfterCase(value: string | undefined): AnswerCase {
  return {
    ok: value !== undefined && /^\d+$/.test(value.trim()),
    check: 'a 429 carries a numeric Retry-After header',
    why: value === undefined ? 'the 429 carries no Retry-After header (clients then fall back to 60 seconds)' : `Retry-After is "${value}", expected a number of seconds`,
  };
}

/**
 * /v1 "When the rate-limit protection is itself unavailable ...: HTTP `503` (fail-closed)", neither
 * 429 nor served. No sentence orders a deployment's checks: a request that carries another cause of
 * refusal (a malformed body, an unknown run) may be refused for it instead. `otherCause`, when the
 * request carries one: what it is, and whether the answer is its refusal (never a 429 or a 2xx).
 */
export function failClosedCase(status: number, otherCause?: { what: string; refused: boolean }): AnswerCase {
  const other = otherCause === undefined ? '' : ` or the refusal of ${otherCause.what}`;
  return {
    ok: status === 503 || (otherCause?.refused === true && status !== 429 && (status < 200 || status >= 300)),
    check: 'a key whose limiter is down gets 503 (fail-closed), neither 429 nor served',
    why: `a request on a tier whose limiter is unavailable answered ${status}, expected 503 (fail-closed)${other}`,
  };
}

/**
 * The fail-closed 503's problem: `retryable: true`, since `retryable` is the "authoritative retry
 * signal for this response" and "`429` and `503` are safe to retry with the same idempotency key,
 * because nothing was accepted". Its code is open: no ErrorCode names an unavailable limiter, and
 * "Mapping of each `code` to an HTTP status: not shown." (`rate_limited` is a fair pick); "Clients
 * must handle this differently from `429`" is met by the status. Judged on a 503's body.
 */
export function failClosedProblemCases(problem: Record<string, unknown> | undefined): AnswerCase[] {
  return [
    { ok: problem?.retryable === true, check: 'a fail-closed 503 carries retryable:true', why: `the fail-closed 503 says retryable: ${JSON.stringify(problem?.retryable ?? null)}, expected true (a 503 is safe to retry with the same idempotency key)` },
  ];
}

// --- /v8 problems ("Failures are `application/problem+json` (RFC 9457)") ---

/** A /v8 failure is labelled application/problem+json. `headers`: lower-cased names. */
export function problemTypeCase(status: number, headers: Readonly<Record<string, string>>): AnswerCase {
  const type = mediaType(headers);
  return { ok: type === PROBLEM_CONTENT_TYPE, check: 'a failure is labelled application/problem+json', why: `the ${status} answer is ${type || 'without a content type'}, expected ${PROBLEM_CONTENT_TYPE}` };
}

/** The problem's `status` member is the HTTP status (RFC 9457 3.1.3). */
export function problemStatusCase(status: number, problemStatus: unknown): AnswerCase {
  return { ok: problemStatus === status, check: 'the problem carries the HTTP status as its status', why: `the problem says status ${String(problemStatus)} but the HTTP status is ${status}` };
}
