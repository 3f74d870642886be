import type { ServerResponse } from 'node:http';
import { COMPLETED, FAILED } from '../../../../scenarios/v1/runs.ts';
import { CANCELLED } from '../../../contract/v1/runs.ts';
import type { FakeContext } from '../../context.ts';
import { streamedEventData } from '../execute/accepted-event.ts';
import { isFinished, type Run, type RunEngine, type RunEvent } from './engine.ts';

const TERMINAL_KINDS: ReadonlySet<string> = new Set([COMPLETED, FAILED, CANCELLED]);

export interface PipeOptions {
  /** The stream answers a replayed Idempotency-Key. */
  replayed?: boolean;
  /** Runs when the reader leaves before the terminal event. */
  onEarlyClose?: () => void;
}

function writeEvent(fake: FakeContext, res: ServerResponse, e: RunEvent, replayed: boolean): void {
  let data = streamedEventData(fake, e, replayed);
  let id = `id: ${e.sequence}\n`;
  if (e.type === 'run.progress' && fake.faults.has('v1.runs.events.identity/progress-without-id')) {
    id = '';
    const { event_id: _dropped, ...rest } = data;
    data = rest;
  }
  res.write(`${id}event: ${e.type}\ndata: ${JSON.stringify(data)}\n\n`);
}

/** Streams a run's events after `after` until its terminal event. */
export function pipe(fake: FakeContext, engine: RunEngine, res: ServerResponse, run: Run, after: number, options: PipeOptions = {}): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  // A parked run may have nothing to send yet; the reader still gets its headers now.
  res.flushHeaders();
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    run.listeners.delete(write);
    unregister();
    res.end();
  };
  const write = (e: RunEvent) => {
    writeEvent(fake, res, e, options.replayed ?? false);
    if (TERMINAL_KINDS.has(e.type)) end();
  };
  const unregister = fake.lifecycle.onClose(end);
  res.on('close', () => {
    if (ended) return;
    options.onEarlyClose?.();
    end();
  });
  for (const e of engine.eventsAfter(run, after)) {
    write(e);
    if (ended) return;
  }
  if (isFinished(run)) end();
  else run.listeners.add(write);
}
