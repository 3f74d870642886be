/**
 * Idempotency judged across a recording: where the same key comes back from the same caller, a
 * request with the same body must be answered as the first one was (a replay), and one with another
 * body must be refused 409. Only keys whose first request was accepted (2xx) are remembered, and
 * at most IDEMPOTENCY_WINDOW of them (the oldest is forgotten first), so a recording of any length
 * is judged in bounded memory.
 */
import { canonicalJson, parseJson } from '../../util/json.ts';
import type { TrafficExchange } from '../exchange.ts';
import { operationOf, type Operation } from '../endpoints.ts';
import { hasWholeBody, responseJson, type Judgement } from '../judging.ts';

/** How many accepted keys the judge remembers at once. */
export const IDEMPOTENCY_WINDOW = 10_000;

function bodyKey(ex: TrafficExchange): string {
  const text = ex.requestBody ?? '';
  const parsed = parseJson(text);
  return parsed.ok ? canonicalJson(parsed.value) : text;
}

export interface IdempotencyOptions {
  operation: Operation;
  keyOf: (ex: TrafficExchange) => string | undefined;
  judge: 'replay' | 'conflict';
  /** Why `later` is not a replay of `first`, or undefined when it is; by default the same status and body. */
  sameAnswer?: (first: TrafficExchange, later: TrafficExchange) => string | undefined;
  /** Why `later` is not the conflict refusal, or undefined when it is; by default a 409. */
  conflict?: (later: TrafficExchange) => string | undefined;
}

function sameStatusAndBody(first: TrafficExchange, later: TrafficExchange): string | undefined {
  if (later.status !== first.status) return `answered ${later.status}, the original ${first.status}`;
  if (!hasWholeBody(first) || !hasWholeBody(later)) return undefined;
  const a = responseJson(first);
  const b = responseJson(later);
  const same = a !== undefined && b !== undefined ? canonicalJson(a) === canonicalJson(b) : first.responseBody === later.responseBody;
  return same ? undefined : 'answered another body than the original response';
}

export function judgeIdempotency(j: Judgement, options: IdempotencyOptions): void {
  const remembered = new Map<string, { first: TrafficExchange; body: string }>();
  for (const ex of j.exchanges) {
    if (operationOf(ex) !== options.operation || ex.status === undefined || ex.requestBodyTruncated) continue;
    // Same body or another one cannot be told from a body the recorder did not keep.
    if (!j.holds(ex, 'request-body')) continue;
    const key = options.keyOf(ex);
    if (key === undefined) continue;
    const scope = `${ex.requestHeaders.authorization ?? ''}\n${key}`;
    const known = remembered.get(scope);
    if (!known) {
      if (ex.status < 200 || ex.status >= 300) continue;
      remembered.set(scope, { first: ex, body: bodyKey(ex) });
      if (remembered.size > IDEMPOTENCY_WINDOW) remembered.delete(remembered.keys().next().value!);
      continue;
    }
    const same = bodyKey(ex) === known.body;
    if (options.judge === 'replay' && same) {
      const why = (options.sameAnswer ?? sameStatusAndBody)(known.first, ex);
      j.check(ex, why === undefined, `the same key and body as exchange #${known.first.index} ${why ?? ''}: not a replay of the original`, [known.first]);
    } else if (options.judge === 'conflict' && !same) {
      const why = options.conflict ? options.conflict(ex) : ex.status === 409 ? undefined : `answered ${ex.status}`;
      j.check(ex, why === undefined, `the key of exchange #${known.first.index} with another body ${why ?? ''}, expected a 409 conflict`, [known.first]);
    }
  }
}
