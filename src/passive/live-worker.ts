/**
 * The proxy's live judging, on a thread of its own: the forwarding thread hands each completed
 * exchange over and goes on forwarding; judging a batch (every rule over it) never holds up a
 * request in flight. Findings are printed and written to the findings file from here.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import type { Profile } from '../profile/schema.ts';
import { RULES } from '../registry.ts';
import { selectRules } from '../runner/run.ts';
import type { RecordedBytes } from './har.ts';
import { findingLine, LiveJudge } from './live.ts';
import { exchangeOfBytes } from './proxy.ts';

export interface LiveWorkerData {
  patterns?: string[];
  profile?: Profile;
  webhookSecret?: string;
  webhookSecretVariable: string;
  quiet: boolean;
  findings?: string;
  bodyLimit: number;
}

/** What the forwarding thread sends: a completed exchange, or the end. */
export type LiveMessage = { batch: Array<{ rec: RecordedBytes; index: number }> } | { stop: true };

const data = workerData as LiveWorkerData;
const stream: WriteStream | undefined = data.findings ? createWriteStream(data.findings, { flags: 'a', mode: 0o600 }) : undefined;
const judge = new LiveJudge({
  rules: selectRules(RULES, { patterns: data.patterns }),
  ...(data.profile ? { profile: data.profile } : {}),
  ...(data.webhookSecret ? { webhookSecret: data.webhookSecret } : {}),
  webhookSecretVariable: data.webhookSecretVariable,
  onFinding: (finding) => {
    if (!data.quiet) process.stdout.write(`${findingLine(finding)}\n`);
    stream?.write(`${JSON.stringify(finding)}\n`);
  },
});

parentPort!.on('message', (message: LiveMessage) => {
  if ('stop' in message) {
    judge.flush();
    const done = () => parentPort!.postMessage({ stopped: true, findings: judge.count, skipped: judge.skipped });
    if (stream) stream.end(done);
    else done();
    return;
  }
  for (const { rec, index } of message.batch) {
    // Dates and buffers arrive as their clones: a Date stays a Date, a Buffer arrives as a Uint8Array.
    if (rec.requestBody) rec.requestBody = Buffer.from(rec.requestBody.buffer, rec.requestBody.byteOffset, rec.requestBody.byteLength);
    if (rec.responseBody) rec.responseBody = Buffer.from(rec.responseBody.buffer, rec.responseBody.byteOffset, rec.responseBody.byteLength);
    judge.add(exchangeOfBytes(rec, index, data.bodyLimit));
  }
});
