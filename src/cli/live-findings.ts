/** `apicert proxy`'s live findings: a console line per failing judgement, and the `--findings FILE` JSON-lines stream, judged on a worker thread. */
import { open } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import type { RecordedBytes } from '../passive/har.ts';
import { WEBHOOK_SECRET_VARIABLE } from '../passive/judge.ts';
import type { LiveMessage, LiveWorkerData } from '../passive/live-worker.ts';
import type { Profile } from '../profile/schema.ts';
import { UsageError } from './errors.ts';

export interface LiveFindings {
  /** Hands a completed exchange to the judging thread. */
  add: (rec: RecordedBytes, index: number) => void;
  /** Judges what is still pending, closes the findings file and ends the thread. */
  stop: () => Promise<void>;
}

export async function liveJudging(opts: { rules?: string[]; quiet?: boolean; findings?: string; bodyLimit: number }, profile: Profile | undefined): Promise<LiveFindings> {
  if (opts.findings) {
    // Created now, so a wrong path is a usage error before the proxy listens, not a lost stream later.
    try {
      await (await open(opts.findings, 'w', 0o600)).close();
    } catch (error) {
      throw new UsageError(`--findings ${opts.findings}: cannot write it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); give a file path in a writable folder`);
    }
  }
  const webhookSecret = process.env[WEBHOOK_SECRET_VARIABLE] || undefined;
  const workerData: LiveWorkerData = {
    ...(opts.rules ? { patterns: opts.rules } : {}),
    ...(profile ? { profile } : {}),
    ...(webhookSecret ? { webhookSecret } : {}),
    webhookSecretVariable: WEBHOOK_SECRET_VARIABLE,
    quiet: opts.quiet ?? false,
    ...(opts.findings ? { findings: opts.findings } : {}),
    bodyLimit: opts.bodyLimit,
  };
  const worker = new Worker(new URL('../passive/live-worker.ts', import.meta.url), { workerData });
  worker.unref();
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
  // Handed over in batches, once per turn of the event loop: a message per exchange cost the forwarding thread more than the batch's one copy.
  let batch: Array<{ rec: RecordedBytes; index: number }> = [];
  let transfer: ArrayBuffer[] = [];
  // A small Buffer is a view of Node's shared 8 KiB pool, and a clone copies the whole pool: each body goes as its own bytes, moved, not copied again.
  const own = (body: Buffer | undefined): Buffer | undefined => {
    if (body === undefined) return undefined;
    const bytes = new Uint8Array(body).buffer;
    transfer.push(bytes);
    return Buffer.from(bytes);
  };
  const send = () => {
    const ready = batch;
    const moved = transfer;
    batch = [];
    transfer = [];
    if (ready.length > 0) post({ batch: ready }, moved);
  };
  return {
    add: (rec, index) => {
      if (batch.length === 0) setImmediate(send);
      const requestBody = own(rec.requestBody);
      const responseBody = own(rec.responseBody);
      batch.push({ rec: { ...rec, ...(requestBody ? { requestBody } : {}), ...(responseBody ? { responseBody } : {}) }, index });
    },
    stop: async () => {
      send();
      if (failed) return;
      const stopped = new Promise<void>((resolve) => {
        worker.once('message', (message: { skipped?: number }) => {
          if (message.skipped) console.error(`apicert proxy: traffic outran live judging: ${message.skipped} exchange(s) were judged only in the report written now`);
          resolve();
        });
        worker.once('error', () => resolve());
        worker.once('exit', () => resolve());
      });
      post({ stop: true });
      await stopped;
      await worker.terminate();
    },
  };
}
