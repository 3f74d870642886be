/**
 * The legal alternatives of the missions area (src/fake/variants/v8/missions.ts): where the seed
 * leaves ids, step statuses, event data and cancel's answer open, the fake can take another choice.
 */
import type { MissionProjection } from '../../../contract/v8/missions.ts';
import type { FakeContext } from '../../context.ts';
import { withExtraProperties } from '../../support/extra-properties.ts';

/** Bytes that make base64 emit `+` and `/`; the payload is padded so it ends in `=`. */
const CURSOR_HEAD = Buffer.from([0xfb, 0xef, 0xbe, 0xff, 0xff, 0xff]);

/** An event's cursor: the fake's compact one, or under the variant a long base64 string with `+`, `/` and `=`. */
export function cursorOf(fake: FakeContext, runId: string, n: number): string {
  if (!fake.variants.has('v8.missions/other-ids')) return `c${n.toString(36)}.${runId.slice(-8)}`;
  let payload = `${n}|${runId}|apicert-cursor|${runId}`;
  while ((payload.length + CURSOR_HEAD.length) % 3 !== 1) payload += '~';
  return Buffer.concat([CURSOR_HEAD, Buffer.from(payload)]).toString('base64');
}

/** The event number a cursor of this mission names, undefined for anything the fake did not issue. */
export function cursorNumber(fake: FakeContext, runId: string, cursor: string): number | undefined {
  if (!fake.variants.has('v8.missions/other-ids')) {
    const match = /^c([0-9a-z]+)\.(.{8})$/.exec(cursor);
    return match && match[2] === runId.slice(-8) ? Number.parseInt(match[1]!, 36) : undefined;
  }
  const bytes = Buffer.from(cursor, 'base64');
  if (bytes.toString('base64') !== cursor) return undefined; // not a cursor this fake encoded
  const [n, run] = bytes.subarray(CURSOR_HEAD.length).toString().split('|');
  return run === runId && /^\d+$/.test(n ?? '') ? Number(n) : undefined;
}

export function stepIdOf(fake: FakeContext, runId: string, k: number): string {
  if (!fake.variants.has('v8.missions/other-ids')) return `step-${k}`;
  return `Step_${String(k).padStart(4, '0')}:plan.${runId.slice(-12)}-`.padEnd(120, 'x');
}

/** A step status as the projection shows it: the seed's examples, or other words under the variant. */
export function stepStatusWord(fake: FakeContext, status: 'running' | 'completed' | 'failed'): string {
  if (!fake.variants.has('v8.missions/other-step-statuses')) return status;
  return { running: 'in_progress', completed: 'succeeded', failed: 'errored' }[status];
}

export function initialStatus(fake: FakeContext): 'running' | 'waiting' {
  return fake.variants.has('v8.missions/created-waiting') ? 'waiting' : 'running';
}

export function timeLimitEndsFailed(fake: FakeContext): boolean {
  return fake.variants.has('v8.missions/time-limit-failed');
}

/** What an event's data carries: the fake's fields, only what the seed names (its own name for the result summary), or more. */
export function eventData(fake: FakeContext, event: string, data: Record<string, unknown>): Record<string, unknown> {
  const base = fake.variants.has('v8.missions/minimal-event-data') ? minimalData(event, data) : data;
  return fake.variants.has('v8.missions/extra-properties') ? withExtraProperties(base) : base;
}

function minimalData(event: string, data: Record<string, unknown>): Record<string, unknown> {
  // "data includes `traceId`"
  if (event === 'mission.step.started') return { traceId: data.traceId };
  // "data includes `stepId`, `traceId` and a result summary": the summary's name is not shown.
  if (event === 'mission.step.completed') return { stepId: data.stepId, traceId: data.traceId, result: { text: data.summary } };
  return {};
}

/** "Size or duration of the replay window: not shown": the fake's configured window, or a variant's last three events or last one. */
export function replayWindow(fake: FakeContext): number {
  if (fake.variants.has('v8.missions/replay-window-one')) return 1;
  return fake.variants.has('v8.missions/small-replay-window') ? 3 : fake.config.v8ReplayWindow;
}

export function projectionBody(fake: FakeContext, projection: MissionProjection): MissionProjection {
  return fake.variants.has('v8.missions/extra-properties') ? withExtraProperties(projection) : projection;
}

/** How cancel answers: the fake's 200 with the projection, 204 with nothing, or 202 with a receipt before the cancel lands. */
export function cancelAnswer(fake: FakeContext): 'projection' | 'empty' | 'async' {
  if (fake.variants.has('v8.missions/cancel-204')) return 'empty';
  return fake.variants.has('v8.missions/cancel-202-async') ? 'async' : 'projection';
}

/** The informational event the variant sends after the terminal event, before the stream closes. */
export const AFTER_TERMINAL_NOTE = 'mission.audit-note';

/**
 * "Events after a terminal event are informational only, not state-changing" and "The stream closes
 * after a terminal event" (not right after): under the variant one informational event follows it.
 */
export function notesAfterTerminal(fake: FakeContext): boolean {
  return fake.variants.has('v8.missions/informational-after-terminal');
}

/** Keys of the cancels each mission accepted: their replays answer as the original, not as a refusal. */
const acceptedCancelKeys = new WeakMap<object, Set<string>>();

/**
 * Whether a cancel is refused because the mission already ended: no status is shown for it ("Cancel
 * request body and response body: not shown"; the Errors table has no cancel row), the variant's is 422.
 * A cancel it lets through is remembered under its key, so that its replay is not refused.
 */
export function refusesEndedCancel(fake: FakeContext, mission: object, key: string | null, ended: boolean): boolean {
  if (key === null) return false;
  const keys = acceptedCancelKeys.get(mission) ?? new Set<string>();
  acceptedCancelKeys.set(mission, keys);
  if (keys.has(key)) return false;
  // Asked only where the fake bends: a new key for a mission that ended.
  if (ended && fake.variants.has('v8.missions/cancel-ended-refused')) return true;
  keys.add(key);
  return false;
}

/** Statuses for an Idempotency-Key that is missing or malformed. */
export function keyStatuses(fake: FakeContext): { missing: number; malformed: number } {
  return fake.variants.has('v8.missions/key-statuses') ? { missing: 428, malformed: 422 } : { missing: 400, malformed: 400 };
}

/**
 * "Transitions out of `waiting` (for example on receipt of a signal): not shown." Under the variant
 * an accepted signal is what a parked mission waits for: it ends `succeeded`, at once if the mission
 * is waiting, else when it would park. Later signals meet a terminal mission (409).
 */
export function signalEndsWaiting(fake: FakeContext): boolean {
  return fake.variants.has('v8.missions/signal-ends-waiting');
}

/**
 * "Step summary: `stepId` (string), `status` (string; ...)" closes nothing: under the variant each
 * step summary also carries `observedAt`, the time of the read, which changes on every read while
 * the mission's state (and its sequence) stays the same.
 */
export function stepSummaries(fake: FakeContext, steps: MissionProjection['steps']): MissionProjection['steps'] {
  if (steps.length === 0 || !fake.variants.has('v8.missions/live-step-details')) return steps;
  const observedAt = new Date().toISOString();
  return steps.map((s) => ({ ...s, observedAt }));
}

/**
 * "A per-principal rate limit exists (`429`)", and the Errors table gives `429` to `POST /v8/missions`
 * only: under the variant the limiter refuses creates alone, and serves every other mission request
 * whatever the principal's count.
 */
export function limitsCreatesOnly(fake: FakeContext): { neverLimits: boolean } {
  return { neverLimits: fake.variants.has('v8.missions/limit-on-creates') };
}

/**
 * "A signal to a mission in a terminal state gives `409`" and "Replay with the same key and the same
 * body returns the original response" do not say which is looked at first: under the variant a
 * replayed signal to a mission that ended meets the terminal state first.
 */
export function signalReplayTerminalFirst(fake: FakeContext): boolean {
  return fake.variants.has('v8.missions/signal-replay-terminal-first');
}

/** Delay from intake to execution (mission.started): "measured from when execution begins" leaves it open. */
export function startDelayMs(fake: FakeContext): number {
  return fake.variants.has('v8.missions/late-start') ? 150 : 1;
}

/** How long the variant keeps one event stream open before it closes it, terminal event or not. */
export const STREAM_DURATION_CAP_MS = 1_000;

/**
 * "The stream closes after a terminal event" (not only then) and "The stream is resumable within a
 * bounded replay window": under the variant the server closes each stream after a fixed time, and
 * the client resumes with Last-Event-ID. Undefined: streams stay open until the terminal event.
 */
export function streamDurationCap(fake: FakeContext): number | undefined {
  return fake.variants.has('v8.missions/stream-duration-cap') ? STREAM_DURATION_CAP_MS : undefined;
}
