/** `apicert proxy`'s live findings: a console line per failing judgement, and the `--findings FILE` JSON-lines stream, judged on a worker thread. */
import { open } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { RecordedBytes } from '../passive/har.ts';
import { WEBHOOK_SECRET_VARIABLE } from '../passive/judge.ts';
import { packBatch, type PackedBatch } from '../passive/live-batch.ts';
import { MAX_PENDING, MAX_PENDING_BYTES } from '../passive/live.ts';
import type { LiveMessage, LiveReply, LiveWorkerData } from '../passive/live-worker.ts';
import type { Profile } from '../profile/schema.ts';
import { UsageError } from './errors.ts';

/**
 * The judging thread's module: its source in a checkout; installed (below node_modules, where Node
 * strips no types), the one bundled beside the CLI at pack time (scripts/prepare.js), as
 * bin/apicert.js chooses the CLI itself.
 */
function liveWorkerUrl(): URL {
  const source = new URL('../passive/live-worker.ts', import.meta.url);
  return fileURLToPath(source).split(/[\\/]/).includes('node_modules') ? new URL('../../dist/cli/live-worker.js', import.meta.url) : source;
}

/** How long a completed exchange waits to be handed over with the next ones (a finding is said that much later at most). */
const HAND_OVER_MS = 20;

export interface LiveFindings {
  /** Hands a completed exchange to the judging thread. */
  add: (rec: RecordedBytes, index: number) => void;
  /**
   * Judges what is still pending, closes the findings file and ends the thread. `record`: the
   * exchanges the record dropped before the report (`limits` say why), so what was not judged live
   * is not said to be judged in the report when the record may no longer hold it.
   */
  stop: (record?: { exchanges: number; limits: string }) => Promise<void>;
}

/** Bytes of bodies an exchange hands over. */
const bodyBytes = (rec: RecordedBytes) => (rec.requestBody?.length ?? 0) + (rec.responseBody?.length ?? 0);

/** What the stop says of exchanges live judging never judged: judged in the report, unless the record dropped some. */
export function outranLine(outran: number, record: { exchanges: number; limits: string } | undefined): string | undefined {
  if (outran <= 0) return undefined;
  if (!record || record.exchanges <= 0) return `apicert proxy: traffic outran live judging: ${outran} exchange(s) were judged only in the report written now`;
  return `apicert proxy: traffic outran live judging: ${outran} exchange(s) were not judged live; the report written now judges only those the record still holds, and it dropped ${record.exchanges} exchange(s) unjudged (${record.limits}), so up to ${Math.min(outran, record.exchanges)} of them were judged nowhere`;
}

/**
 * `secrets`: values the traffic never shows in a request but an answer may echo (the headers the
 * proxy adds upstream, `networkSecrets`), each with its label, hidden in findings as in the report.
 */
export async function liveJudging(opts: { rules?: string[]; quiet?: boolean; findings?: string; bodyLimit: number }, profile: Profile | undefined, labelKey?: string, secrets: ReadonlyArray<[label: string, value: string]> = []): Promise<LiveFindings> {
  if (opts.findings) {
    // Created now, so a wrong path is a usage error before the proxy listens, not a lost stream later.
    try {
      await (await open(opts.findings, 'w', 0o600)).close();
    } catch (error) {
      throw new UsageError(`--findings ${opts.findings}: cannot write it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); give a file path in a writable folder`);
    }
  }
  const webhookSecret = process.env[WEBHOOK_SECRET_VARIABLE] || undefined;
  // labelKey: the worker hands it to its LiveJudge, so live findings name learned secrets as the report does.
  const workerData: LiveWorkerData = {
    ...(labelKey !== undefined ? { labelKey } : {}),
    ...(opts.rules ? { patterns: opts.rules } : {}),
    ...(profile ? { profile } : {}),
    ...(webhookSecret ? { webhookSecret } : {}),
    ...(secrets.length > 0 ? { secrets: [...secrets] } : {}),
    webhookSecretVariable: WEBHOOK_SECRET_VARIABLE,
    quiet: opts.quiet ?? false,
    ...(opts.findings ? { findings: opts.findings } : {}),
    bodyLimit: opts.bodyLimit,
  };
  const worker = new Worker(liveWorkerUrl(), { workerData });
  // If the judging thread cannot run, the proxy goes on forwarding and the report at the stop is
  // unaffected: say so once instead of failing the traffic.
  let failed = false;
  worker.once('error', (error) => {
    failed = true;
    console.error(`apicert proxy: live judging stopped (${error.message}); the report written at the stop judges all the traffic`);
  });
  const post = (message: LiveMessage, transfer: ArrayBuffer[] = []) => {
    if (!failed) worker.postMessage(message, transfer);
  };
  // The judging thread waits with at most MAX_PENDING exchanges, and MAX_PENDING_BYTES of their
  // bodies; beyond its room, an exchange is not handed over at all (judged only in the report at
  // the stop): when traffic outruns judging, the forwarding thread spends nothing on exchanges the
  // judging thread would drop. It settles exchanges in the order they were handed over, so the
  // bytes each `room` message frees are those of the oldest handed over.
  let room = MAX_PENDING;
  let pendingBytes = 0;
  const handed: number[] = [];
  let handedHead = 0;
  const settled = (n: number) => {
    for (let i = 0; i < n && handedHead < handed.length; i += 1) pendingBytes -= handed[handedHead++]!;
    if (handedHead > 1024 && handedHead * 2 > handed.length) {
      handed.splice(0, handedHead);
      handedHead = 0;
    }
  };
  let skipped = 0;
  /** Exchanges not handed over since the last batch: the judging thread is told, so it does not take what follows for a whole history. */
  let gap = 0;
  let stopped: ((message: Extract<LiveReply, { stopped: true }>) => void) | undefined;
  worker.on('message', (message: LiveReply) => {
    if ('room' in message) {
      room += message.room;
      settled(message.room);
    } else stopped?.(message);
  });
  // After the listener, which refs the thread's port again: the judging thread never keeps the process alive (a proxy that failed to start exits).
  worker.unref();
  // Handed over in batches, every HAND_OVER_MS: a message per exchange (and a wake-up of the judging thread) cost the forwarding thread more than the batch's one copy.
  let batch: Array<{ rec: RecordedBytes; index: number }> = [];
  const send = () => {
    const ready = batch;
    batch = [];
    if (ready.length === 0) return;
    const packed: PackedBatch & { gap?: number } = packBatch(ready);
    if (gap > 0) packed.gap = gap;
    gap = 0;
    post(packed, [packed.bodies]);
  };
  return {
    add: (rec, index) => {
      if (failed) return;
      const bytes = bodyBytes(rec);
      // One exchange may pass alone whatever its size: the ring holds it anyway, and live judging is not starved by one large body.
      if (room === 0 || (pendingBytes > 0 && pendingBytes + bytes > MAX_PENDING_BYTES)) {
        // What was handed over before the gap goes now, so the gap falls between two batches.
        if (gap === 0) send();
        skipped += 1;
        gap += 1;
        return;
      }
      room -= 1;
      pendingBytes += bytes;
      handed.push(bytes);
      if (batch.length === 0) setTimeout(send, HAND_OVER_MS).unref();
      batch.push({ rec, index });
    },
    stop: async (record) => {
      send();
      if (failed) return;
      const said = new Promise<void>((resolve) => {
        stopped = (message) => {
          const line = outranLine(skipped + message.skipped, record);
          if (line) console.error(line);
          resolve();
        };
        worker.once('error', () => resolve());
        worker.once('exit', () => resolve());
      });
      // Its answer is awaited now: the thread keeps the process alive until it comes.
      worker.ref();
      post({ stop: true });
      await said;
      await worker.terminate();
    },
  };
}
