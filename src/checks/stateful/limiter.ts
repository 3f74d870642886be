/**
 * A rate limiter's refusal judges nothing in a model: v1 "Over the rate limit: HTTP `429` ...
 * `retryable:true`" and "`503` ... fail-closed"; v8 "A per-principal rate limit exists (`429`). Its
 * numeric values: not shown." A model sends hundreds of requests within seconds, so any deployment's
 * tier may refuse some. Every request a model command sends goes through `limiterAware`: a refusal is
 * sent again once after the wait the answer asks for (bounded), and a second refusal ends the
 * sequence without a verdict (`SequenceLimited`), never a failure.
 */
import type { CheckContext, Http, ProbeRequest, ProbeResponse, StreamRequest, StreamResponse } from '../../rule/index.ts';
import { isRecord } from '../../util/json.ts';

/** The longest wait before the one resend: a model's time is shared by all its sequences. */
const MAX_WAIT_MS = 2_000;
/** The wait when the refusal names none (a 503 of a limiter that is down, a 429 without a hint). */
const DEFAULT_WAIT_MS = 1_000;

/** The limiter refused a request twice: the sequence ends here, judged up to this step. */
export class SequenceLimited extends Error {
  override readonly name = 'SequenceLimited';
}

export function limiterRefusal(status: number): boolean {
  return status === 429 || status === 503;
}

/**
 * The wait a limiter's refusal asks for, in ms: `Retry-After` as delta-seconds or an HTTP-date (RFC
 * 9110 §10.2.3), else /v1's `retryAfterMs`; undefined when it names none. Every sender that waits out
 * a 429/503 reads it here, and bounds it and fills it in its own way.
 */
export function askedWaitMs(res: { headers: Record<string, string>; json?: unknown }, now = Date.now()): number | undefined {
  const header = (res.headers['retry-after'] ?? '').trim();
  if (/^\d+$/.test(header)) return Number(header) * 1000;
  const date = header === '' ? Number.NaN : Date.parse(header);
  if (Number.isFinite(date)) return Math.max(0, date - now);
  const fromBody = isRecord(res.json) ? res.json.retryAfterMs : undefined;
  return typeof fromBody === 'number' && Number.isFinite(fromBody) && fromBody >= 0 ? fromBody : undefined;
}

/** The wait before a model's one resend: what the refusal asks for (`askedWaitMs`), else DEFAULT_WAIT_MS, bounded by `maxMs` (MAX_WAIT_MS). */
export function refusalWaitMs(res: { headers: Record<string, string>; json?: unknown }, maxMs = MAX_WAIT_MS): number {
  return Math.min(askedWaitMs(res) ?? DEFAULT_WAIT_MS, maxMs);
}

type Refusable = { status: number; headers: Record<string, string>; json?: unknown };

/**
 * `send`, and once more after the wait its refusal asks for (`refusalWaitMs`) when `refused` takes
 * its answer for a limiter's: `last` is the answer that stands, `first` the refusal when there were two.
 */
export async function sentPastOneRefusal<R extends Refusable>(ctx: CheckContext, send: () => Promise<R>, refused: (status: number) => boolean = limiterRefusal, maxWaitMs = MAX_WAIT_MS): Promise<{ last: R; first?: R }> {
  const first = await send();
  if (!refused(first.status)) return { last: first };
  await ctx.sleep(refusalWaitMs(first, maxWaitMs));
  return { last: await send(), first };
}

async function unlimited<R extends Refusable>(ctx: CheckContext, send: () => Promise<R>, what: string): Promise<R> {
  const { last, first } = await sentPastOneRefusal(ctx, send);
  if (first && limiterRefusal(last.status)) throw new SequenceLimited(`${what} was refused ${first.status}, then ${last.status} after the wait it asked for`);
  return last;
}

function describe(req: ProbeRequest): string {
  return req.label ?? `${req.method} ${req.path}`;
}

/** The rule's `ctx` whose `http` sends every request as `unlimited` does; everything else is the rule's own. */
export function limiterAware(ctx: CheckContext): CheckContext {
  const http: Http = new Proxy(ctx.http, {
    get(target, prop) {
      if (prop === 'send') return (req: ProbeRequest): Promise<ProbeResponse> => unlimited(ctx, () => target.send(req), describe(req));
      if (prop === 'stream') return (req: StreamRequest): Promise<StreamResponse> => unlimited(ctx, () => target.stream(req), describe(req));
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return new Proxy(ctx, {
    get(target, prop) {
      if (prop === 'http') return http;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
