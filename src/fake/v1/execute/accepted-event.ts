import { ACCEPTED } from '../../../contract/v1/runs.ts';
import type { FakeContext } from '../../context.ts';
import type { RunEvent } from '../runs/engine.ts';

/** An event's data as a stream writes it: `request.accepted` says whether the key answered a replay. */
export function streamedEventData(fake: FakeContext, e: RunEvent, replayed: boolean): Record<string, unknown> {
  if (e.type !== ACCEPTED) return e.data;
  const data = { ...e.data, replayed: replayed || e.data.replayed === true };
  if (data.replayed === false && fake.faults.has('v1.execute.turn.accepted-event/replayed-missing')) delete (data as Record<string, unknown>).replayed;
  return data;
}
