/**
 * The proxy's live judging, on a thread of its own: the forwarding thread hands completed
 * exchanges over and goes on forwarding; judging a batch (every rule over it) never holds up a
 * request in flight. Findings are printed and written to the findings file from here.
 *
 * Forwarding wins the CPU: this thread lowers its own scheduling priority as it starts
 * (live-priority.ts), and it is handed only as many exchanges as it has room to keep waiting
 * (`room` messages give the room back): when traffic outruns judging, the forwarding thread stops
 * handing exchanges over instead of copying them to a thread that would drop them.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import type { Profile } from '../profile/schema.ts';
import { RULES } from '../registry.ts';
import { selectRules } from '../runner/run.ts';
import { unpackBatch, type PackedBatch } from './live-batch.ts';
import { findingLine, LiveJudge } from './live.ts';
import { yieldToForwarding } from './live-priority.ts';
import { exchangeOfBytes } from './proxy.ts';

export interface LiveWorkerData {
  patterns?: string[];
  profile?: Profile;
  webhookSecret?: string;
  webhookSecretVariable: string;
  quiet: boolean;
  findings?: string;
  bodyLimit: number;
  /** The run's key for naming learned secrets, so live findings name them as the report does (secrets.ts keyedLabels). */
  labelKey?: string;
  /** Secrets no request the proxy records shows (the headers it adds upstream), labelled as the report labels them. */
  secrets?: Array<[label: string, value: string]>;
}

/** What the forwarding thread sends: a batch of completed exchanges (after `gap` it had no room to hand over), or the end. */
export type LiveMessage = (PackedBatch & { gap?: number }) | { stop: true };

/** What this thread answers: room for that many more exchanges, or the end (with findings said and exchanges skipped here). */
export type LiveReply = { room: number } | { stopped: true; findings: number; skipped: number };

yieldToForwarding();

const data = workerData as LiveWorkerData;
const stream: WriteStream | undefined = data.findings ? createWriteStream(data.findings, { flags: 'a', mode: 0o600 }) : undefined;
const judge = new LiveJudge({
  rules: selectRules(RULES, { patterns: data.patterns }),
  ...(data.profile ? { profile: data.profile } : {}),
  ...(data.webhookSecret ? { webhookSecret: data.webhookSecret } : {}),
  webhookSecretVariable: data.webhookSecretVariable,
  ...(data.labelKey !== undefined ? { labelKey: data.labelKey } : {}),
  onFinding: (finding) => {
    if (!data.quiet) process.stdout.write(`${findingLine(finding)}\n`);
    stream?.write(`${JSON.stringify(finding)}\n`);
  },
  onSettled: (n) => parentPort!.postMessage({ room: n } satisfies LiveReply),
});
for (const [label, value] of data.secrets ?? []) judge.redactor.add(value, label);

parentPort!.on('message', (message: LiveMessage) => {
  if ('stop' in message) {
    judge.flush();
    const done = () => parentPort!.postMessage({ stopped: true, findings: judge.count, skipped: judge.skipped } satisfies LiveReply);
    if (stream) stream.end(done);
    else done();
    return;
  }
  if (message.gap !== undefined) judge.gap(message.gap);
  for (const { rec, index } of unpackBatch(message)) judge.add(exchangeOfBytes(rec, index, data.bodyLimit));
});
