import { CANCELLED } from '../../../contract/v1/runs.ts';
import type { Run } from './engine.ts';

/**
 * The cancel bound the fake declares in its embedded profile (fixtures.v1.cancelledWithinMs): it emits
 * request.cancelled as it answers the cancel; the margin is for a loaded machine. Declared, a run that
 * never shows it (the `v1.runs.cancel.terminal-event/silent` fault) fails instead of going inconclusive.
 */
export const DECLARED_CANCEL_WITHIN_MS = 5_000;

/** A run cancelled without its terminal event (`RunEngine.cancelSilently`, under the fault): finished, yet no event of its stream says so. */
export function silentlyCancelled(run: Run): boolean {
  return run.state === 'cancelled' && !run.events.some((e) => e.type === CANCELLED);
}
