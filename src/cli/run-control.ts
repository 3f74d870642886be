/** What the certify command needs around a run: parsing its deadline, and stopping it cleanly on a signal. */
import { InvalidArgumentError } from 'commander';
import { Stopped } from '../probe/transport.ts';

const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** `90s`, `20m`, `1h`, `500ms`, or a plain number of seconds. */
export function durationOf(value: string): number {
  const m = /^(\d{1,9}(?:\.\d{1,3})?)(ms|s|m|h)?$/.exec(value.trim());
  const ms = m ? Number(m[1]) * UNITS[m[2] ?? 's']! : Number.NaN;
  if (!Number.isFinite(ms) || ms < 1_000 || ms > 24 * 3_600_000) throw new InvalidArgumentError('give a duration from 1s to 24h, e.g. 90s, 20m or 1h');
  return Math.round(ms);
}

export type StopSignal = 'SIGINT' | 'SIGTERM';

/** A signal repeated within this long is the same request (a launcher forwarding what the terminal also sent). */
const REPEAT_WINDOW_MS = 1_000;

/**
 * Runs `work` with a signal that SIGINT or SIGTERM aborts, so the run stops, writes its partial
 * report and the caller exits 130 or 143. A second signal later than the first exits at once.
 */
export async function whileInterruptible<T>(work: (signal: AbortSignal) => Promise<T>, stopping = 'stopping, writing the partial report'): Promise<{ value: T; signal?: StopSignal }> {
  const controller = new AbortController();
  let received: StopSignal | undefined;
  let receivedAt = 0;
  const handler = (signal: StopSignal) => {
    if (!received) {
      received = signal;
      receivedAt = performance.now();
      console.error(`apicert: ${signal} received: ${stopping} (send it again to quit at once)`);
      controller.abort(new Stopped(`interrupted by ${signal} before the rule finished`));
    } else if (performance.now() - receivedAt > REPEAT_WINDOW_MS) {
      process.exit(signal === 'SIGINT' ? 130 : 143);
    }
  };
  const onInt = () => handler('SIGINT');
  const onTerm = () => handler('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  try {
    const value = await work(controller.signal);
    return received ? { value, signal: received } : { value };
  } finally {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
  }
}
