import type { ServerResponse } from 'node:http';
import { APPROVAL_REQUIRED, COMPLETED, FAILED } from '../../../../scenarios/v1/runs.ts';
import { ACCEPTED, CANCELLED } from '../../../contract/v1/runs.ts';
import type { FakeContext } from '../../context.ts';
import { sseFrame, sseWire, wireOptions } from '../../sse-framing.ts';
import { streamedEventData } from '../execute/accepted-event.ts';
import { isFinished, type Run, type RunEngine, type RunEvent } from './engine.ts';
import { silentlyCancelled } from './silent-cancel.ts';

const TERMINAL_KINDS: ReadonlySet<string> = new Set([COMPLETED, FAILED, CANCELLED]);

export interface PipeOptions {
  /** The stream answers a replayed Idempotency-Key. */
  replayed?: boolean;
  /** Runs when the reader leaves before the terminal event. */
  onEarlyClose?: () => void;
  /** A reader of GET /v1/runs/{id}/events from the start (counted for a load fault). */
  reader?: boolean;
  /** Keep the stream open after its terminal event until the fake closes (a turn-stream fault of execute). */
  holdOpen?: boolean;
  /** The stream answers GET /v1/runs/{id}/events (else it is a turn-mode POST /v1/execute). */
  runEvents?: boolean;
}

const readersFromStart = new WeakMap<Run, number>();

/** The sequence the fifth and later readers of one run from its start miss under the load fault, if on. */
function crowdSkips(fake: FakeContext, run: Run, after: number, reader: boolean): number | undefined {
  if (!reader || after !== 0) return undefined;
  const crowd = (readersFromStart.get(run) ?? 0) + 1;
  readersFromStart.set(run, crowd);
  return crowd > 4 && fake.faults.has('load.v1.events.fanout-same-events/late-subscriber-gap') ? (run.events[0]?.sequence ?? 1) + 1 : undefined;
}

/** One read of a run's events: which stream it is, and what the legal choices of one read put in it. */
interface Read {
  replayed: boolean;
  /** GET /v1/runs/{id}/events; otherwise a turn-mode POST /v1/execute stream. */
  runEvents: boolean;
  /** Counts the reads of the fake's run events, for the per-read payload field. */
  number: number;
}

let readsMade = 0;

/** "…and the payload fields of events: not shown.": a field that belongs to the read, not the event. */
function withReadFields(fake: FakeContext, data: Record<string, unknown>, read: Read): Record<string, unknown> {
  if (!read.runEvents || !fake.variants.has('v1.runs/per-read-payload-field')) return data;
  return { ...data, sent_at: new Date().toISOString().replace('Z', '+00:00'), read: read.number };
}

/** The kind rides in the data's `type` too; under the variant it is named `event_type` there instead. */
function withKindField(fake: FakeContext, data: Record<string, unknown>): Record<string, unknown> {
  if (!fake.variants.has('v1.runs/kind-in-event-type')) return data;
  const { type, ...rest } = data;
  return { ...rest, event_type: type };
}

/**
 * A turn stream is retried by re-sending its POST with the same key, not resumed: "After a dropped
 * connection on a task-mode run, read the run back or resume its event stream with `Last-Event-ID`".
 */
function turnWithoutIds(fake: FakeContext, read: Read): boolean {
  return !read.runEvents && fake.variants.has('v1.runs/turn-without-sse-ids');
}

/**
 * "the payload fields of events: not shown": under the variant an event carries plain text, but
 * request.accepted ("carries boolean `replayed`") and approval.required (whose data holds the
 * action digest where the embedded profile's `fixtures.v1.approval.digestField` says) stay JSON.
 */
function textPayload(fake: FakeContext, e: RunEvent): boolean {
  return fake.variants.has('v1.runs/text-payloads') && e.type !== ACCEPTED && e.type !== APPROVAL_REQUIRED;
}

function writeEvent(fake: FakeContext, res: ServerResponse, e: RunEvent, read: Read): void {
  let data = withKindField(fake, withReadFields(fake, streamedEventData(fake, e, read.replayed), read));
  // The resume fault keeps each event's identity in its data (event_id) but sends no SSE id.
  let id: string | undefined = fake.faults.has('v1.runs.events.resume/no-sse-ids') || turnWithoutIds(fake, read) ? undefined : String(e.sequence);
  if (e.type === 'run.progress' && fake.faults.has('v1.runs.events.identity/progress-without-id')) {
    id = undefined;
    const { event_id: _dropped, ...rest } = data;
    data = rest;
  }
  // Without the SSE event field a reader finds the kind in the data.
  const dataOnly = fake.variants.has('v1.runs/kind-in-data-only') || fake.variants.has('v1.runs/kind-in-event-type') || fake.variants.has('v1.runs/event-kind-in-data');
  const event = dataOnly ? {} : { event: e.type };
  const text = textPayload(fake, e) ? `${e.type} #${e.sequence}` : JSON.stringify(data);
  res.write(sseFrame({ ...event, data: text, ...(id === undefined ? {} : { id }) }, fake.variants.has('v1.runs/sse-framing')));
}

/** Keeps every write of `res` until `release`, which sends them as one (unless the reader has gone). */
function holdWrites(res: ServerResponse): { release(): void } {
  const write = res.write.bind(res) as (chunk: Buffer) => boolean;
  const held: Buffer[] = [];
  res.write = ((chunk: string | Buffer) => {
    held.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk));
    return true;
  }) as typeof res.write;
  return {
    release() {
      if (held.length > 0 && !res.destroyed && !res.writableEnded) write(Buffer.concat(held));
      held.length = 0;
    },
  };
}

/** Streams a run's events after `after` until its terminal event. */
export function pipe(fake: FakeContext, engine: RunEngine, res: ServerResponse, run: Run, after: number, options: PipeOptions = {}): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const { variants } = fake;
  // Under the variant the answer leaves whole when the stream ends, its head with it (as behind an ETag middleware).
  const whole = variants.has('v1.runs/buffered-streams') ? holdWrites(res) : undefined;
  // A parked run may have nothing to send yet; the reader still gets its headers now (under the variant, with the first event, as Node sends them).
  if (!whole && !variants.has('v1.runs/headers-with-first-event')) res.flushHeaders();
  sseWire(res, wireOptions(fake.config.sseSplitSeed, { crlf: variants.has('v1.runs/crlf-line-endings'), cr: variants.has('v1.runs/cr-line-endings'), split: variants.has('v1.runs/split-writes') }));
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    run.listeners.delete(write);
    unregister();
    whole?.release();
    res.end();
  };
  const skipped = crowdSkips(fake, run, after, options.reader ?? false);
  // Held open, the stream never ends on its own: the fake's close ends it.
  const holdOpen = options.holdOpen ?? false;
  let held = false;
  readsMade += 1;
  const read: Read = { replayed: options.replayed ?? false, runEvents: options.runEvents ?? false, number: readsMade };
  const write = (e: RunEvent) => {
    if (e.sequence !== skipped) writeEvent(fake, res, e, read);
    if (!TERMINAL_KINDS.has(e.type)) return;
    if (holdOpen) held = true;
    else end();
  };
  const unregister = fake.lifecycle.onClose(end);
  res.on('close', () => {
    if (ended) return;
    options.onEarlyClose?.();
    end();
  });
  // Under the fault a resume (Last-Event-ID given) leaves out the request.cancelled it should replay.
  const skipCancelled = after > 0 && fake.faults.has('v1.runs.lifecycle.model/resume-skips-cancelled-event');
  for (const e of engine.eventsAfter(run, after)) {
    if (skipCancelled && e.type === CANCELLED) continue;
    write(e);
    if (ended || held) return;
  }
  // A run cancelled without its terminal event (a fault) shows no end: its stream stays open, as one in flight.
  const shownFinished = isFinished(run) && !silentlyCancelled(run);
  if (shownFinished && !holdOpen) end();
  else if (!shownFinished) run.listeners.add(write);
}
