/**
 * Idempotency judged across exchanges, for every operation that takes an Idempotency-Key: where
 * the same key comes back from the same caller, a request with the same body must be answered as
 * the first one was (a replay), and one with another body must be refused (a conflict). The
 * requests are paired by what was sent (operation, caller, key, body); a first request is
 * remembered only once it was accepted (2xx), and at most IDEMPOTENCY_WINDOW keys at once (the
 * oldest is forgotten first), so a journal of any length is judged in bounded memory.
 *
 * "Answered" is the end of the first exchange (for a stream, its end: a recording keeps no time of
 * the head). A request sent before it is a duplicate met while the first may still be in progress,
 * which neither description speaks of ("Replay with the same key and the same body returns the
 * original response without re-executing", v8; "Same key with the same request replays safely",
 * v1): its in-progress refusal (`refusedInFlight`) is not judged, and which of the two the
 * deployment took first is not in the traffic. What is still judged of it: accepted (2xx), it is
 * a replay of the first or the first of it ("without re-executing"); with another body, it is
 * refused 409. Apicert's own probes send a replay only once the first exchange ended (a turn's
 * stream read to its terminal event), so they are judged as before.
 */
import type { Exchange, Judge } from '../rule/index.ts';
import { canonicalJson } from '../util/json.ts';
import { conflictStatusCase, refusedInFlight, replayCase } from './answer-cases.ts';
import { bodyJson, bodyMissing, exchangeFact, exchangesOf, openRequestForm, openWireForm, operation, requestBodyMissing, startsAfterEnd } from './read.ts';

/** How many accepted keys the judgement remembers at once. */
export const IDEMPOTENCY_WINDOW = 10_000;

/**
 * The canonical text of a request body (JSON canonicalized, else the text): two requests are the
 * same request when these are equal. Several rules pair every keyed request by it: worked out once
 * per request body (all it reads).
 */
export function canonicalRequestBody(ex: Exchange): string {
  return exchangeFact(ex, canonicalOf, ex.requestBody);
}

function canonicalOf(ex: Exchange): string {
  const text = ex.requestBody ?? '';
  // The body's JSON as parsed once for every rule (undefined when it is no JSON: JSON has no undefined).
  const value = bodyJson(ex, 'request', text);
  return value === undefined ? text : canonicalJson(value);
}

const bodyKey = canonicalRequestBody;

export interface IdempotencyOptions {
  /** The catalogue operation (`v8.missions.create`, `v1.execute`). */
  operation: string;
  keyOf: (ex: Exchange) => string | undefined;
  /** The key may stand in the request's body (a /v1 turn body's `idempotencyKey`): without the body, whether a key was sent is unknown. */
  keyInBody?: boolean;
  judge: 'replay' | 'conflict';
  /** Why `later` is not a replay of `first`, or undefined when it is; by default the same status and body. */
  sameAnswer?: (first: Exchange, later: Exchange, j: Judge) => string | undefined;
  /** Why `later` is not the conflict refusal, or undefined when it is; by default a 409. */
  conflict?: (later: Exchange, j: Judge) => string | undefined;
  /**
   * A refusal that read no key (a rate limiter's): neither a replay nor a conflict, so the request
   * is not judged. By default a 429 (both descriptions name it for the rate limit); /v1 adds its
   * fail-closed 503: "`429` and `503` are safe to retry with the same idempotency key, because
   * nothing was accepted."
   */
  limiterRefused?: (ex: Exchange) => boolean;
  /**
   * Whether a request with another body than the key's first (`first`) may be judged as a conflict:
   * one the deployment would have to admit under a fresh key (else its refusal may be for the body
   * itself, not the key), and another request under every normalization of the digest the
   * description allows. By default every such request.
   */
  conflictJudged?: (later: Exchange, first: Exchange) => boolean;
  /**
   * Whether a refusal of a same-key same-body request sent before the key's first was answered is
   * the in-progress one (`refusedInFlight`), undefined when the answer does not show it (said with
   * `j.lacks`). By default a 409: /v8 names no codes.
   */
  inFlightRefused?: (later: Exchange, j: Judge) => boolean | undefined;
  /**
   * Whether a later request under a known key is the rule's subject, its replay or conflict checked;
   * by default every one. One passed over still says what it lacks: it was paired all the same.
   */
  judged?: (later: Exchange) => boolean;
}

/** The rate limit's refusal both surfaces name. */
const rateLimited = (ex: Exchange) => ex.status === 429;

const accepted = (status: number) => status >= 200 && status < 300;

/** The answer as the shared replay judgement compares it (only once both bodies are known whole). */
const answerOf = (ex: Exchange) => ({ status: ex.status!, body: ex.responseBody ?? '' });

/** Why `later` is not the original answer `first` (the status, then the body once both are kept whole), or undefined: the default `sameAnswer`. */
export function sameStatusAndBody(first: Exchange, later: Exchange, j: Judge): string | undefined {
  if (later.status !== first.status) return replayCase(answerOf(first), answerOf(later)).why;
  for (const ex of [first, later]) {
    const missing = bodyMissing(ex);
    if (missing !== undefined) {
      j.lacks(later, `the body of exchange #${ex.index}, to compare with the original: ${missing}`);
      return undefined;
    }
  }
  const replay = replayCase(answerOf(first), answerOf(later));
  return replay.ok ? undefined : replay.why;
}

/** A key's first accepted request: `body` its canonical body (undefined when not kept), `open` whether that body is in an open wire form. */
interface Remembered {
  first: Exchange;
  body: string | undefined;
  open: boolean;
}

export function judgeIdempotency(j: Judge, options: IdempotencyOptions): void {
  // `body` undefined: the first request's body was not kept, so what follows under its key cannot be paired.
  const remembered = new Map<string, Remembered>();
  const remember = (scope: string, entry: Remembered) => {
    remembered.set(scope, entry);
    if (remembered.size > IDEMPOTENCY_WINDOW) remembered.delete(remembered.keys().next().value!);
  };
  for (const ex of exchangesOf(j.exchanges, options.operation)) {
    if (operation(ex) !== options.operation || ex.status === undefined || (options.limiterRefused ?? rateLimited)(ex)) continue;
    const key = options.keyOf(ex);
    if (key === undefined) {
      const unkept = options.keyInBody ? requestBodyMissing(ex) : undefined;
      if (unkept !== undefined) j.lacks(ex, `the request body, which may carry its idempotency key: ${unkept}`);
      continue;
    }
    const scope = `${ex.credential ?? ex.requestHeaders.authorization ?? ''}\n${key}`;
    const known = remembered.get(scope);
    // Whether two bodies are the same is all the pairing rests on: a body not kept whole decides nothing.
    const missing = requestBodyMissing(ex);
    if (missing !== undefined) {
      if (known) j.lacks(ex, `the request body, to compare with exchange #${known.first.index}: ${missing}`);
      else if (ex.status >= 200 && ex.status < 300) remember(scope, { first: ex, body: undefined, open: false });
      continue;
    }
    if (!known) {
      if (ex.status < 200 || ex.status >= 300) continue;
      remember(scope, { first: ex, body: bodyKey(ex), open: openWireForm(ex) });
      continue;
    }
    // A later request carrying a form a deployment may refuse or answer otherwise for itself (a head past its limit, a query, a precondition) may get that answer first: no replay or conflict to judge.
    if (openRequestForm(ex) !== undefined) continue;
    if (known.body === undefined) {
      j.lacks(ex, `the request body of exchange #${known.first.index}, which first used the key: ${requestBodyMissing(known.first) ?? 'not kept'}`);
      continue;
    }
    // A body a deployment may read two ways (a member named twice, a byte order mark, another media type, coding or charset) is the same
    // request as another only byte for byte: whether `{"a":1,"a":2}` is `{"a":2}` is the deployment's reading, so such a pair is judged neither way.
    if ((known.open || openWireForm(ex)) && ex.requestBody !== known.first.requestBody) continue;
    const same = bodyKey(ex) === known.body;
    const overlapping = !startsAfterEnd(ex, known.first);
    const check = options.judged === undefined || options.judged(ex) ? j.check.bind(j) : () => true;
    if (options.judge === 'replay' && same) {
      if (overlapping && !accepted(ex.status)) {
        const refused = options.inFlightRefused ? options.inFlightRefused(ex, j) : refusedInFlight(ex.status);
        if (refused === undefined) continue;
        if (refused) {
          j.observe('a same-key same-body request sent before the first was answered', ex.status, 'refused while the first was in progress: not a replay to judge');
          continue;
        }
      }
      const sameAnswer = options.sameAnswer ?? sameStatusAndBody;
      let why = sameAnswer(known.first, ex, j);
      // Two accepted requests that overlapped: the deployment may have taken the later one first, and the first is then its replay.
      if (why !== undefined && overlapping && accepted(ex.status) && sameAnswer(ex, known.first, j) === undefined) why = undefined;
      check(ex, why === undefined, `the same key and body as exchange #${known.first.index} ${why ?? ''}: not a replay of the original`, [known.first]);
    } else if (options.judge === 'conflict' && !same && (options.conflictJudged?.(ex, known.first) ?? true)) {
      const status = conflictStatusCase(ex.status);
      if (overlapping) {
        // Sent while the first may have been in progress: its 409 may be the in-progress refusal, whose code and
        // retry advice are not the conflict's; accepted, two bodies were taken under one key, whichever came first.
        check(ex, status.ok, `the key of exchange #${known.first.index} with another body, sent before it was answered, ${status.why}, expected a 409 (conflict or in progress)`, [known.first]);
        continue;
      }
      const why = options.conflict ? options.conflict(ex, j) : status.ok ? undefined : status.why;
      check(ex, why === undefined, `the key of exchange #${known.first.index} with another body ${why ?? ''}, expected a 409 conflict`, [known.first]);
    }
  }
}
