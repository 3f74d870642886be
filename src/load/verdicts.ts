/**
 * Verdicts over what a load script saw, shared by the k6 scripts and vitest. Plain functions of
 * plain data, no Node or k6 APIs, so both runtimes compute the same answer.
 */
import type { TextEvent } from '../sse/text.ts';

export interface Observed {
  status: number;
  body: string;
}

export interface LoadVerdict {
  ok: boolean;
  /** One line a person reads in the k6 summary or a test failure. */
  summary: string;
}

function runIdOf(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { runId?: unknown };
    return typeof parsed.runId === 'string' ? parsed.runId : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Many concurrent creates with one Idempotency-Key and one body: "Replay with the same key and
 * the same body returns the original response without re-executing." Every accepted answer must
 * name the same mission; a 409 during the race is tolerated only if the target says so.
 */
export function judgeIdempotencyStorm(responses: readonly Observed[]): LoadVerdict {
  const accepted = responses.filter((r) => r.status === 202);
  const runIds = new Set(accepted.map((r) => runIdOf(r.body)));
  const statuses = [...new Set(responses.map((r) => r.status))].sort().join(',');
  if (accepted.length === 0) return { ok: false, summary: `no create was accepted (statuses ${statuses})` };
  if (runIds.has(undefined)) return { ok: false, summary: 'an accepted create carried no runId' };
  if (runIds.size > 1) return { ok: false, summary: `${runIds.size} different missions were created for one key and body` };
  const other = responses.filter((r) => r.status !== 202 && r.status !== 409 && r.status !== 429);
  if (other.length > 0) return { ok: false, summary: `unexpected statuses during the storm: ${statuses}` };
  return { ok: true, summary: `${accepted.length}/${responses.length} accepted, one mission (statuses ${statuses})` };
}

/** The same key with a different body must never be accepted: "The same key with a different body gives `409`." */
export function judgeConflicts(responses: readonly Observed[]): LoadVerdict {
  const accepted = responses.filter((r) => r.status >= 200 && r.status < 300).length;
  if (accepted > 0) return { ok: false, summary: `${accepted} of ${responses.length} different bodies with a reused key were accepted` };
  const conflicts = responses.filter((r) => r.status === 409).length;
  return { ok: conflicts === responses.length, summary: `${conflicts}/${responses.length} answered 409` };
}

const TERMINAL = new Set(['mission.completed', 'mission.failed', 'mission.cancelled']);

/** Every reader of one finished mission's stream must see the same events, ending in one terminal event. */
export function judgeFanout(readers: ReadonlyArray<readonly TextEvent[]>): LoadVerdict {
  if (readers.length === 0) return { ok: false, summary: 'no reader finished' };
  const key = (events: readonly TextEvent[]) => events.map((e) => `${e.id ?? '-'}|${e.event ?? 'message'}`).join(' ');
  const reference = key(readers[0]!);
  const differing = readers.filter((events) => key(events) !== reference).length;
  if (differing > 0) return { ok: false, summary: `${differing} of ${readers.length} readers saw a different sequence of events` };
  const last = readers[0]!.at(-1);
  if (!last || !TERMINAL.has(last.event ?? '')) return { ok: false, summary: `the stream ended with ${last?.event ?? 'no event'}, not a terminal event` };
  return { ok: true, summary: `${readers.length} readers saw the same ${readers[0]!.length} events ending with ${last.event}` };
}

export interface BurstSummary {
  sent: number;
  firstLimitedAt?: number;
  retryAfter?: string;
  statuses: Record<string, number>;
}

/** A burst stops at the first 429; what it saw is recorded, since the seed shows no limit values. */
export function summariseBurst(observed: ReadonlyArray<{ status: number; retryAfter?: string }>): BurstSummary {
  const statuses: Record<string, number> = {};
  let firstLimitedAt: number | undefined;
  let retryAfter: string | undefined;
  observed.forEach((o, i) => {
    statuses[o.status] = (statuses[o.status] ?? 0) + 1;
    if (o.status === 429 && firstLimitedAt === undefined) {
      firstLimitedAt = i + 1;
      retryAfter = o.retryAfter;
    }
  });
  const summary: BurstSummary = { sent: observed.length, statuses };
  if (firstLimitedAt !== undefined) summary.firstLimitedAt = firstLimitedAt;
  if (retryAfter !== undefined) summary.retryAfter = retryAfter;
  return summary;
}
