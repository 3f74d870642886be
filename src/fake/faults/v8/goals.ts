import type { FaultDefinition } from '../types.ts';

/** Faults of the v8.goals rules: each breaks exactly the rule named before its slash. */
export const v8GoalsFaults = [
  { id: 'v8.goals.shape/priority-urgent', description: 'a goal has priority "urgent"' },
  { id: 'v8.goals.shape/local-time', description: 'updatedAt carries a +02:00 offset' },
  { id: 'v8.goals.compartment-boundary/leaks', description: 'goals of every compartment are listed' },
] as const satisfies readonly FaultDefinition[];
