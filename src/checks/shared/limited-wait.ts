/**
 * How a bulk sender (the probe catalogue, the generated probes) waits out a rate limiter: a request
 * a limiter refused (429, or /v1's fail-closed 503: "`429` and `503` are safe to retry ... because
 * nothing was accepted") is sent again once the wait it asks for is over, within these bounds; a
 * request still refused is left unjudged. "Per-key tier values and request-rate numbers: not shown."
 */
import { askedWaitMs } from '../stateful/limiter.ts';

/** The most times a limited request is sent again: the limiter's answer is none to the request. */
export const LIMITED_RESENDS = 2;
/** The longest wait asked for that is waited out (a per-minute tier's window); a longer one leaves the request unjudged. */
export const LIMITED_WAIT_MAX_MS = 60_000;
/** The wait when the refusal names none (a 503, a 429 without Retry-After or retryAfterMs). */
export const LIMITED_DEFAULT_WAIT_MS = 1_000;
/** Resends happen only within this time from the start of the surface's run: a limiter that never lets up costs minutes, not the rule's deadline. */
export const LIMITED_RESENDS_UNTIL_MS = 240_000;

/** The wait a limiter's answer asks for (`askedWaitMs`), else LIMITED_DEFAULT_WAIT_MS. */
export function limitedWaitMs(res: { headers: Record<string, string>; json?: unknown }, now = Date.now()): number {
  return askedWaitMs(res, now) ?? LIMITED_DEFAULT_WAIT_MS;
}

/** Whether a resend after `wait` ms stays within the bounds: the wait itself, and the run's resend window ending at `until` (performance.now()). */
export function waitFits(wait: number, until: number): boolean {
  return wait <= LIMITED_WAIT_MAX_MS && performance.now() + wait <= until;
}
