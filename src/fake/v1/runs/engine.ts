import { createHash, randomBytes } from 'node:crypto';
import { ACCEPTED, CANCELLED } from '../../../contract/v1/runs.ts';
import { approvedScript, rejectedScript, type RunBeat } from '../../../../scenarios/v1/runs.ts';
import type { FakeCaller } from '../../auth.ts';
import type { FakeContext } from '../../context.ts';

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

/** Timestamps with a numeric offset: the spec's Timestamp wants more than `Z`. */
function timestamp(zulu: boolean): string {
  const now = new Date().toISOString();
  return zulu ? now : now.replace('Z', '+00:00');
}

/** /v1 runs and their scripted lives inside one fake; every event is also published on `fake.runEvents`. */
export class RunEngine {
  readonly runs = new Map<string, Run>();

  private readonly fake: FakeContext;
  constructor(fake: FakeContext) {
    this.fake = fake;
  }

  start(caller: FakeCaller, mode: Run['mode'], script: RunBeat[]): Run {
    const run: Run = {
      id: `run_${randomBytes(12).toString('hex')}`,
      tenant: caller.tenant,
      principal: caller.principal,
      mode,
      state: 'in_flight',
      events: [],
      listeners: new Set(),
      timers: [],
      createdAt: timestamp(this.fake.faults.has('v1.runs.timestamp-offset/zulu')),
    };
    this.runs.set(run.id, run);
    this.emit(run, ACCEPTED, { replayed: false });
    this.play(run, script);
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

  projection(run: Run): Record<string, unknown> {
    return {
      run_id: run.id,
      mode: run.mode,
      state: run.state,
      sequence: run.events.at(-1)?.sequence ?? 0,
      created_at: run.createdAt,
      ...(run.state === 'parked' ? { awaiting_approval: true } : {}),
    };
  }

  eventsAfter(run: Run, sequence: number): RunEvent[] {
    return run.events.filter((e) => e.sequence > sequence);
  }

  approve(run: Run, digest: string, decision: 'approved' | 'rejected', ignoreDigest: boolean): 'approved' | 'not-parked' | 'digest-mismatch' {
    // Under the fault a cancelled run still holds its digest, and approving it brings it back.
    const revive = run.state === 'cancelled' && run.actionDigest !== undefined && this.fake.faults.has('v1.runs.lifecycle.model/approve-revives-cancelled');
    if (run.state !== 'parked' && !revive) return 'not-parked';
    if (digest !== run.actionDigest && !ignoreDigest) return 'digest-mismatch';
    run.state = 'in_flight';
    delete run.actionDigest;
    this.emit(run, 'approval.resolved', { decision });
    this.play(run, decision === 'approved' ? approvedScript : rejectedScript);
    return 'approved';
  }

  cancel(run: Run): void {
    for (const timer of run.timers) this.fake.lifecycle.cancel(timer);
    run.timers = [];
    if (!this.fake.faults.has('v1.runs.lifecycle.model/approve-revives-cancelled')) delete run.actionDigest;
    run.state = 'cancelled';
    this.emit(run, CANCELLED, { reason: 'cancelled by request' });
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
    this.emit(run, beat.emit, data);
  }

  private emit(run: Run, type: string, payload: Record<string, unknown>): void {
    const sequence = (run.events.at(-1)?.sequence ?? 0) + 1;
    const event: RunEvent = {
      sequence,
      type,
      data: { apiVersion: 'v1', event_id: `${run.id}.${sequence}`, run_id: run.id, sequence, type, created_at: timestamp(this.fake.faults.has('v1.runs.timestamp-offset/zulu')), ...payload },
    };
    run.events.push(event);
    for (const listener of run.listeners) listener(event);
    this.fake.runEvents.emit('run', { tenant: run.tenant, principal: run.principal, runId: run.id, type, sequence, data: { ...event.data } });
  }
}
