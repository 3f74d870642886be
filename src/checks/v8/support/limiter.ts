/**
 * Limits: "A per-principal rate limit exists (`429`). Its numeric values: not shown." Any request a
 * check sends may meet a deployment's limit, however low, and its 429 says nothing of what the
 * request asked: it is no verdict for the rule that sent it (v8.missions.rate-limit-429 judges the 429
 * itself). A rule whose every exchange was refused so ends inconclusive (active) or untestable (a
 * recording), saying why; never failed.
 */
import type { CheckContext, Exchange, Judge } from '../../../rule/index.ts';
import { sentPastOneRefusal } from '../../stateful/limiter.ts';

const REMEDY = 'the per-principal rate limit refused it (429; "Its numeric values: not shown"), so it shows nothing of this rule: lower --max-rps or use a credential of a higher tier';

/** What a rule lacks of an exchange the rate limit refused. */
export const LIMITED_ANSWER = `its answer: ${REMEDY}`;

/** Whether the rate limit refused `ex`; if so the rule lacks its answer (a lack, not a case), and the caller judges nothing of it. */
export function limiterRefused(j: Pick<Judge, 'lacks'>, ex: Exchange): boolean {
  if (ex.status !== 429) return false;
  j.lacks(ex, LIMITED_ANSWER);
  return true;
}

/**
 * The longest wait a check's one resend waits out. A model's wait is shorter (its time is shared by
 * its sequences); a check sends a few requests, and a resend before the window a 429 names has
 * passed (a tier of 150 requests per 5 s) is refused again: a window of seconds is waited out.
 */
const CHECK_WAIT_MAX_MS = 10_000;

/** Sends once more after the wait a 429 asks for (up to CHECK_WAIT_MAX_MS); returns the last answer, which may be a 429 still. */
export async function admitted<R extends { status: number; headers: Record<string, string>; json?: unknown }>(ctx: CheckContext, send: () => Promise<R>): Promise<R> {
  // /v8 names only 429 for its limit ("A per-principal rate limit exists (`429`)"): a 503 is judged as the rule judges it.
  return (await sentPastOneRefusal(ctx, send, (status) => status === 429, CHECK_WAIT_MAX_MS)).last;
}

/**
 * A setup request (a fixture's create, the original of a replay pair, a query whose entries the rule
 * reads): sent again once after the wait a 429 asks for, and refused again, the check ends
 * inconclusive saying the limiter stopped `what`, not that the setup failed.
 */
export async function setupSent<R extends { status: number; headers: Record<string, string>; json?: unknown }>(ctx: CheckContext, what: string, send: () => Promise<R>): Promise<R> {
  const res = await admitted(ctx, send);
  stopIfLimited(ctx, res, what);
  return res;
}

/** For a check that judges one answer: a 429 (after `admitted`'s resend) ends it inconclusive. */
export function stopIfLimited(ctx: CheckContext, res: { status: number }, what: string): void {
  if (res.status === 429) ctx.inconclusive(`${what} was answered 429 twice, the second time after the wait it asked for: ${REMEDY}`);
}
