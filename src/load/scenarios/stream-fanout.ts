/**
 * Stream fan-out: many readers follow one live mission (/v8) or run (/v1) at once and must see
 * the same events with ids; readers that resume with Last-Event-ID must see the rest, with no
 * repeat and no gap.
 */
import { parseEventStreamText, type TextEvent } from '../../sse/text.ts';
import { parseJsonObject, Verdicts, type LoadRequest, type StepResult, type Transport } from '../transport.ts';
import { bearer, repeat } from './common.ts';

export interface FanoutConfig {
  baseUrl: string;
  token: string;
  readers: number;
  /** Readers that resume from a cursor taken from the first reader's events. */
  resumers: number;
  streamTimeoutMs: number;
  key: () => string;
}

const V8_TERMINAL = new Set(['mission.completed', 'mission.failed', 'mission.cancelled']);

function signature(events: readonly TextEvent[]): string {
  return events.map((e) => `${e.id ?? '-'}|${e.event ?? 'message'}`).join(' ');
}

/** Cursor positions spread over the stream, never its last event (nothing would follow it). */
export function cursorPositions(length: number, count: number): number[] {
  if (length < 2 || count < 1) return [];
  const positions = repeat(count, (i) => Math.floor(((i + 1) * (length - 1)) / (count + 1)));
  return [...new Set(positions)].sort((a, b) => a - b);
}

interface FanoutRules {
  surface: 'v8' | 'v1';
  /** The events path as a template, for the `name` tag. */
  endpoint: string;
  same: string;
  resume: string;
  terminal?: string;
  /** The id rule of the surface: any id (/v8), a sequence number increasing along the stream (/v1). */
  idsOk: (events: readonly TextEvent[]) => boolean;
  idCheck: string;
}

function streamRequest(url: string, token: string, name: string, timeoutMs: number, lastEventId?: string): LoadRequest {
  const headers = bearer(token, { Accept: 'text/event-stream' });
  if (lastEventId !== undefined) headers['Last-Event-ID'] = lastEventId;
  return { method: 'GET', url, headers, name, expect: lastEventId === undefined ? [200] : [200, 409], timeoutMs };
}

async function judgeFanout(t: Transport, c: FanoutConfig, url: string, rules: FanoutRules, v: Verdicts): Promise<void> {
  const streams = await t.batch(repeat(c.readers, () => streamRequest(url, c.token, `fanout readers GET ${rules.endpoint}`, c.streamTimeoutMs)));
  let reference: TextEvent[] | undefined;
  for (const res of streams) {
    if (res.status === 0 || res.status === 429) continue;
    if (!v.judge(rules.same, res.status === 200, "a reader's stream opens with 200")) continue;
    const events = parseEventStreamText(res.body).events;
    v.judge(rules.same, rules.idsOk(events), rules.idCheck);
    if (!reference) reference = events;
    v.judge(rules.same, signature(events) === signature(reference), 'every reader sees the same events in the same order');
    if (rules.terminal) {
      const terminals = events.filter((e) => V8_TERMINAL.has(e.event ?? ''));
      v.judge(rules.terminal, terminals.length === 1 && V8_TERMINAL.has(events.at(-1)?.event ?? ''), 'a reader sees exactly one terminal event, and it is the last');
    }
  }
  v.figure(`${rules.surface}_fanout_readers_judged`, streams.filter((s) => s.status === 200).length);
  if (!reference || !rules.idsOk(reference)) return;
  const positions = cursorPositions(reference.length, c.resumers);
  const resumed = await t.batch(positions.map((p) => streamRequest(url, c.token, `fanout resume GET ${rules.endpoint}`, c.streamTimeoutMs, reference![p]!.id!)));
  resumed.forEach((res, i) => {
    // 409: the cursor left the replay window, which the seed allows.
    if (res.status === 0 || res.status === 429 || res.status === 409) return;
    if (!v.judge(rules.resume, res.status === 200, 'a resumed stream opens with 200 (or 409 outside the replay window)')) return;
    const expected = reference!.slice(positions[i]! + 1);
    v.judge(rules.resume, signature(parseEventStreamText(res.body).events) === signature(expected), 'a resumed reader sees the events after its cursor, none repeated, none missing');
  });
}

export interface V8FanoutConfig extends FanoutConfig {
  missionBody: unknown;
}

export async function v8StreamFanout(t: Transport, c: V8FanoutConfig): Promise<StepResult> {
  const v = new Verdicts();
  const [created] = await t.batch([
    { method: 'POST', url: `${c.baseUrl}/v8/missions`, headers: bearer(c.token, { 'Content-Type': 'application/json', 'Idempotency-Key': c.key() }), body: JSON.stringify(c.missionBody), name: 'fanout setup POST /v8/missions', expect: [202] },
  ]);
  const runId = parseJsonObject(created!.body)?.runId;
  if (created!.status !== 202 || typeof runId !== 'string') return v;
  await judgeFanout(t, c, `${c.baseUrl}/v8/missions/${encodeURIComponent(runId)}/events`, {
    surface: 'v8',
    endpoint: '/v8/missions/{runId}/events',
    same: 'load.v8.events.fanout-same-events',
    resume: 'load.v8.events.fanout-resume',
    terminal: 'load.v8.events.fanout-one-terminal',
    idsOk: (events) => events.length > 0 && events.every((e) => e.id !== undefined && e.id !== ''),
    idCheck: 'every event carries an id',
  }, v);
  return v;
}

/** /v1 ids are the stored event's sequence: whole numbers that increase along the stream. */
export function sequenceIdsOk(events: readonly TextEvent[]): boolean {
  if (events.length === 0) return false;
  let last = -Infinity;
  for (const e of events) {
    if (e.id === undefined || !/^\d+$/.test(e.id) || Number(e.id) <= last) return false;
    last = Number(e.id);
  }
  return true;
}

export interface V1FanoutConfig extends FanoutConfig {
  taskBody: unknown;
}

export async function v1EventsFanout(t: Transport, c: V1FanoutConfig): Promise<StepResult> {
  const v = new Verdicts();
  const [created] = await t.batch([
    { method: 'POST', url: `${c.baseUrl}/v1/execute`, headers: bearer(c.token, { 'Content-Type': 'application/json', Accept: 'application/json', 'Idempotency-Key': c.key() }), body: JSON.stringify(c.taskBody), name: 'fanout setup POST /v1/execute', expect: [200] },
  ]);
  const runId = parseJsonObject(created!.body)?.run_id;
  if (created!.status !== 200 || typeof runId !== 'string') return v;
  await judgeFanout(t, c, `${c.baseUrl}/v1/runs/${encodeURIComponent(runId)}/events`, {
    surface: 'v1',
    endpoint: '/v1/runs/{id}/events',
    same: 'load.v1.events.fanout-same-events',
    resume: 'load.v1.events.fanout-resume',
    idsOk: sequenceIdsOk,
    idCheck: 'every event carries its sequence as id, increasing along the stream',
  }, v);
  return v;
}

