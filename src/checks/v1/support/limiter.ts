/**
 * /v1's limiter met by a setup step. "Over the rate limit: HTTP `429`" and, "When the rate-limit
 * protection is itself unavailable", "HTTP `503` (fail-closed)"; both "are safe to retry with the
 * same idempotency key, because nothing was accepted". Its numbers are not shown, so any setup
 * request (a fixture run, the original of a replay pair, a registration) may meet it: sent again
 * once after the wait the refusal asks for, and refused again, the check ends inconclusive saying
 * the limiter stopped it, not that the setup failed.
 */
import type { CheckContext } from '../../../rule/index.ts';
import { limiterRefusal, sentPastOneRefusal } from '../../stateful/limiter.ts';

export async function setupSent<R extends { status: number; headers: Record<string, string>; json?: unknown }>(ctx: CheckContext, what: string, send: () => Promise<R>): Promise<R> {
  const { last, first } = await sentPastOneRefusal(ctx, send);
  if (first && limiterRefusal(last.status)) {
    ctx.inconclusive(`${what} was answered ${first.status}, then ${last.status} after the wait it asked for: the rate limiter refused it (429 over the limit, 503 while the limiter is unavailable; "nothing was accepted"), so it shows nothing of this rule: lower --max-rps or use a key of a higher tier`);
  }
  return last;
}
