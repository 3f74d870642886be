import { createHash, randomBytes } from 'node:crypto';
import { ACCEPTED, CANCELLED } from '../../../contract/v1/runs.ts';
import { approvedScript, FAILED, quietLongScript, rejectedScript, taskScripts, type RunBeat } from '../../../../scenarios/v1/runs.ts';
import type { FakeCaller } from '../../auth.ts';
import type { FakeContext } from '../../context.ts';
import { withExtraProperties } from '../../support/extra-properties.ts';

export type RunState = 'in_flight' | 'parked' | 'completed' | 'failed' | 'cancelled';

export interface RunEvent {
  sequence: number;
  type: string;
  /** The JSON written as the event's data: identity, run, sequence, kind and payload. */
  data: Record<string, unknown>;
}

export interface Run {
  id: string;
  tenant: string;
  principal: string;
  mode: 'turn' | 'task';
  state: RunState;
  events: RunEvent[];
  listeners: Set<(event: RunEvent) => void>;
  timers: NodeJS.Timeout[];
  createdAt: string;
  /** Set while the run is parked: what the approve request must echo. */
  actionDigest?: string;
}

export const TERMINAL_STATES: readonly RunState[] = ['completed', 'failed', 'cancelled'];

export function isFinished(run: Run): boolean {
  return TERMINAL_STATES.includes(run.state);
}

/** Other state names a deployment may use (`v1.runs/state-names`): the seed shows none. */
const OTHER_STATE_NAMES: Record<RunState, string> = { in_flight: 'running', parked: 'awaiting_approval', completed: 'succeeded', failed: 'errored', cancelled: 'canceled' };

/** A state as the fake names it on the wire (run resource, approve and cancel answers, usage). */
export function stateName(fake: FakeContext, state: RunState): string {
  return fake.variants.has('v1.runs/state-names') ? OTHER_STATE_NAMES[state] : state;
}

/**
 * Run ids of other shapes, in turn (`v1.runs/id-format`): `run_id` is only "string", so one needs
 * percent-encoding in a path, one is all digits, one is 128 characters of Identifier punctuation.
 */
const RUN_ID_SHAPES: ReadonlyArray<(hex: string) => string> = [
  (hex) => `run ${hex.slice(0, 8)}/é?q=1&x#y%z+${hex.slice(8)}`,
  (hex) => BigInt(`0x${hex}`).toString().padStart(30, '7'),
  (hex) => `Run.${hex}:_-`.padEnd(128, '.:_-9'),
];

/** Event ids of other shapes, in turn: all digits, or 128 characters. */
function otherEventId(hex: string, n: number): string {
  return n % 2 === 0 ? BigInt(`0x${hex}`).toString() : `evt:${hex}.${n}_`.padEnd(128, '-._:0');
}

/** Which member names a run event's kind is not shown: `type`, or only `eventType` under the variant (streams and webhook deliveries alike). */
export function eventKindField(fake: FakeContext): 'type' | 'eventType' {
  return fake.variants.has('v1.runs/event-kind-in-data') ? 'eventType' : 'type';
}

/** Informational kinds the seed does not name (`v1.runs/extra-event-kinds`): a reader must read past them. */
const INFO_KIND = 'x-apicert.heartbeat';
const PARKED_INFO_KIND = 'vendor:run/awaiting-approval';
/** `v1.runs/parked-reminders`: what a parked run repeats, and how often (longer than the approve rules' read of a parked run). */
const REMINDER_KIND = 'vendor:run/approval-reminder';
const REMINDER_EVERY_MS = 4_000;

/** A date-time with a numeric offset (the spec's Timestamp wants more than `Z`), or with `Z` when `zulu`. */
function dateTime(ms: number, zulu: boolean): string {
  const text = new Date(ms).toISOString();
  return zulu ? text : text.replace('Z', '+00:00');
}

/**
 * A date-time of the run resource and the usage answer. No /v1 field is declared a Timestamp (their
 * fields are "not shown"), so under `v1.runs/z-timestamps` they are written with `Z`, as JavaScript's
 * toISOString, Go's RFC3339 in UTC and Java's Instant do.
 */
export function serviceTime(fake: FakeContext, ms: number): string {
  return dateTime(ms, fake.variants.has('v1.runs/z-timestamps'));
}

/**
 * The members the embedded profile declares Timestamps (fixtures.v1.timestampFields): the fake's own
 * `+00:00` times. Under `v1.runs/z-timestamps` the fake declares none, as a deployment whose fields
 * are only RFC 3339 date-times would.
 */
export function declaredTimestampFields(fake: FakeContext): { run: string[]; usage: string[] } | undefined {
  return fake.variants.has('v1.runs/z-timestamps') ? undefined : { run: ['created_at'], usage: ['period.start', 'period.end'] };
}

/** The run's own output under `v1.runs/z-timestamps`: content holding date-times of its own, never a Timestamp of the service's. */
const DATED_OUTPUT = { text: 'The report is due 2026-12-01T09:00:00Z.', due: '2026-12-01T09:00:00Z' };

/**
 * How long after an accepted approve a run shows its resume under `v1.runs/slow-resume`: longer than the
 * approve rules' default watch (safety.approvalWatchMs, 3 s), as a deployment queueing resumes may be.
 */
export const SLOW_RESUME_MS = 4_500;

/**
 * The resume bound the fake declares in its embedded profile (fixtures.v1.approval.resumesWithinMs): it
 * resumes an approved run at once, or SLOW_RESUME_MS later under `v1.runs/slow-resume`; the margin is for
 * a loaded machine. Declared, a run that never resumes (the `no-resume` fault) fails instead of going inconclusive.
 */
export function declaredResumeWithinMs(fake: FakeContext): number {
  return 10_000 + (fake.variants.has('v1.runs/slow-resume') ? SLOW_RESUME_MS : 0);
}

/** /v1 runs and their scripted lives inside one fake; every event is also published on `fake.runEvents`. */
export class RunEngine {
  readonly runs = new Map<string, Run>();

  private readonly fake: FakeContext;
  /** Run ids minted in `v1.runs/id-format` shapes so far: picks the next shape. */
  private minted = 0;
  /** The one sequence counter of every run under `v1.runs/sparse-sequences`. */
  private sharedSequence = 1_000_000;
  constructor(fake: FakeContext) {
    this.fake = fake;
  }

  start(caller: FakeCaller, mode: Run['mode'], script: RunBeat[]): Run {
    const run: Run = {
      id: this.newRunId(),
      tenant: caller.tenant,
      principal: caller.principal,
      mode,
      state: 'in_flight',
      events: [],
      listeners: new Set(),
      timers: [],
      createdAt: dateTime(Date.now(), this.fake.faults.has('v1.runs.timestamp-offset/zulu') || this.fake.variants.has('v1.runs/z-timestamps')),
    };
    this.runs.set(run.id, run);
    this.emit(run, ACCEPTED, { replayed: false });
    this.play(run, script === taskScripts.long && this.fake.variants.has('v1.runs/quiet-long-run') ? quietLongScript : script);
    return run;
  }

  /** Runs of one tenant (or of every tenant), newest first. */
  ofTenant(tenant: string | undefined): Run[] {
    return [...this.runs.values()].filter((r) => tenant === undefined || r.tenant === tenant).reverse();
  }

  find(tenant: string, id: string): Run | undefined {
    const run = this.runs.get(id);
    return run && run.tenant === tenant ? run : undefined;
  }

  private newRunId(): string {
    const hex = randomBytes(12).toString('hex');
    if (!this.fake.variants.has('v1.runs/id-format')) return `run_${hex}`;
    this.minted += 1;
    return RUN_ID_SHAPES[this.minted % RUN_ID_SHAPES.length]!(hex);
  }

  projection(run: Run): Record<string, unknown> {
    const view = {
      run_id: run.id,
      mode: run.mode,
      state: stateName(this.fake, run.state),
      sequence: run.events.at(-1)?.sequence ?? 0,
      created_at: run.createdAt,
      ...(run.state === 'parked' ? { awaiting_approval: true } : {}),
      ...(this.fake.variants.has('v1.runs/z-timestamps') ? { output: DATED_OUTPUT } : {}),
    };
    return this.fake.variants.has('v1.runs/extra-properties') ? withExtraProperties(view) : view;
  }

  eventsAfter(run: Run, sequence: number): RunEvent[] {
    return run.events.filter((e) => e.sequence > sequence);
  }

  approve(run: Run, digest: string, decision: 'approved' | 'rejected', ignoreDigest: boolean): 'approved' | 'not-parked' | 'digest-mismatch' {
    // Under the fault a cancelled run still holds its digest, and approving it brings it back.
    const revive = run.state === 'cancelled' && run.actionDigest !== undefined && this.fake.faults.has('v1.runs.lifecycle.model/approve-revives-cancelled');
    if (run.state !== 'parked' && !revive) return 'not-parked';
    if (digest !== run.actionDigest && !ignoreDigest) {
      // A deployment may end a run whose approval was tampered with: it fails, the action is never carried out.
      if (run.state === 'parked' && this.fake.variants.has('v1.runs/wrong-digest-fails')) this.failParked(run);
      return 'digest-mismatch';
    }
    run.state = 'in_flight';
    delete run.actionDigest;
    const resume = () => {
      this.emit(run, 'approval.resolved', { decision });
      this.play(run, decision === 'approved' ? approvedScript : rejectedScript);
    };
    // No sentence bounds how soon "the resume is delivered": under the variant the approve is answered at
    // once and the run, in flight, shows its resume only SLOW_RESUME_MS later (a cancel meanwhile ends it).
    if (this.fake.variants.has('v1.runs/slow-resume')) {
      run.timers.push(
        this.fake.lifecycle.later(SLOW_RESUME_MS, () => {
          if (run.state === 'in_flight') resume();
        }),
      );
    } else resume();
    return 'approved';
  }

  private failParked(run: Run): void {
    delete run.actionDigest;
    run.state = 'failed';
    this.emit(run, FAILED, { code: 'invalid_request', reason: 'approval with a wrong action_digest' });
  }

  cancel(run: Run): void {
    for (const timer of run.timers) this.fake.lifecycle.cancel(timer);
    run.timers = [];
    if (!this.fake.faults.has('v1.runs.lifecycle.model/approve-revives-cancelled')) delete run.actionDigest;
    run.state = 'cancelled';
    this.emit(run, CANCELLED, { reason: 'cancelled by request' });
  }

  /**
   * Ends a run at once with run.failed, never request.cancelled (only under the fault that drops a
   * cancel's terminal event): the stream shows its end without the cancellation at once, however slow
   * the machine, where a run left to finish its script might outlast the reader.
   */
  failInsteadOfCancel(run: Run, silently = false): void {
    for (const timer of run.timers) this.fake.lifecycle.cancel(timer);
    run.timers = [];
    delete run.actionDigest;
    run.state = silently ? 'cancelled' : 'failed';
    if (!silently) this.emit(run, FAILED, { reason: 'ended without its cancellation' });
  }

  /** Stops a run as cancelled and emits nothing (only under a fault: silent-cancel.ts). */
  cancelSilently(run: Run): void {
    this.failInsteadOfCancel(run, true);
  }

  /** Drops a run as if the server had lost it (only under a fault). */
  forget(run: Run): void {
    for (const timer of run.timers) this.fake.lifecycle.cancel(timer);
    this.runs.delete(run.id);
  }

  /** Plays `script` from `from`: beats due at once are emitted now, the next delayed one on a timer. */
  private play(run: Run, script: readonly RunBeat[], from = 0): void {
    for (let i = from; i < script.length; i += 1) {
      const beat = script[i]!;
      if (beat.afterMs > 0) {
        run.timers.push(
          this.fake.lifecycle.later(beat.afterMs, () => {
            if (run.state !== 'in_flight') return;
            this.beat(run, beat);
            if (run.state === 'in_flight') this.play(run, script, i + 1);
          }),
        );
        return;
      }
      this.beat(run, beat);
      if (run.state !== 'in_flight') return;
    }
  }

  private beat(run: Run, beat: RunBeat): void {
    const data: Record<string, unknown> = { ...beat.data };
    if (beat.park) {
      run.actionDigest = `sha256:${createHash('sha256').update(`${run.id}\u0000${beat.emit}\u0000${JSON.stringify(beat.data ?? {})}`).digest('hex')}`;
      data.action_digest = run.actionDigest;
      run.state = 'parked';
    }
    if (beat.end) run.state = beat.end;
    const info = this.fake.variants.has('v1.runs/extra-event-kinds');
    if (info) this.emit(run, INFO_KIND, { note: `before ${beat.emit}` });
    this.emit(run, beat.emit, data);
    // A parked run may go on talking without resuming: an informational event, then silence.
    if (info && beat.park) this.emit(run, PARKED_INFO_KIND, { waiting_for: 'approval' });
    if (beat.park && this.fake.variants.has('v1.runs/parked-reminders')) this.remind(run, run.actionDigest!);
  }

  /** Repeats a reminder while the run stays parked on the same action (an approve, a cancel or another park ends it). */
  private remind(run: Run, digest: string): void {
    run.timers.push(
      this.fake.lifecycle.later(REMINDER_EVERY_MS, () => {
        if (run.state !== 'parked' || run.actionDigest !== digest) return;
        this.emit(run, REMINDER_KIND, { waiting_for: 'approval' });
        this.remind(run, digest);
      }),
    );
  }

  private emit(run: Run, type: string, payload: Record<string, unknown>): void {
    const sequence = this.fake.variants.has('v1.runs/sparse-sequences') ? (this.sharedSequence += 7) : (run.events.at(-1)?.sequence ?? 0) + 1;
    const eventId = this.fake.variants.has('v1.runs/id-format') ? otherEventId(randomBytes(8).toString('hex'), sequence) : `${run.id}.${sequence}`;
    const data = { apiVersion: 'v1', event_id: eventId, run_id: run.id, sequence, [eventKindField(this.fake)]: type, created_at: dateTime(Date.now(), this.fake.faults.has('v1.runs.timestamp-offset/zulu')), ...payload };
    const event: RunEvent = { sequence, type, data: this.fake.variants.has('v1.runs/extra-properties') ? withExtraProperties(data) : data };
    run.events.push(event);
    for (const listener of run.listeners) listener(event);
    this.fake.runEvents.emit('run', { tenant: run.tenant, principal: run.principal, runId: run.id, type, sequence, data: { ...event.data } });
  }
}
