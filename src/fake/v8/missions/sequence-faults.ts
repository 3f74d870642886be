/**
 * Faults that only a sequence of operations reveals: each request on its own is answered as the
 * seeds say, so the rules that test one transition pass, and only v8.missions.lifecycle.model,
 * which remembers what came before, can tell.
 */
import type { FakeContext } from '../../context.ts';
import { isTerminal, type Mission, type MissionEngine } from './engine.ts';

/** A signal that was recorded before a cancel is delivered afterwards and wakes the mission again. */
export function reviveAfterSignal(fake: FakeContext, mission: Mission): void {
  if (!fake.faults.has('v8.missions.lifecycle.model/signal-revives-cancelled') || mission.signals.length === 0 || mission.status !== 'cancelled') return;
  fake.lifecycle.later(5, () => {
    mission.status = 'waiting';
    mission.sequence += 1;
  });
}

/** A resume (with Last-Event-ID) leaves out mission.cancelled from the events it replays. */
export function skipsCancelOnResume(fake: FakeContext, after: number): boolean {
  return after >= 0 && fake.faults.has('v8.missions.lifecycle.model/resume-skips-cancel');
}

/**
 * Cancel checks the state, then commits a moment later without checking again: two cancels that
 * overlap both commit, and the mission gets two terminal events.
 */
export async function cancelWithGap(fake: FakeContext, engine: MissionEngine, mission: Mission, reason: string): Promise<boolean> {
  if (!fake.faults.has('v8.missions.lifecycle.model/concurrent-cancels-two-terminal-events')) return false;
  if (isTerminal(mission.status)) return true;
  await new Promise<void>((resolve) => fake.lifecycle.later(15, resolve));
  engine.cancel(mission, reason, { recheck: false });
  return true;
}
