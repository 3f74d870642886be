import { z } from 'zod';
import { isoUtc } from './common.ts';

export const GOAL_STATUSES = ['active', 'paused', 'archived'] as const;
export const GOAL_PRIORITIES = ['critical', 'high', 'medium', 'low'] as const;

export const contextGoal = z.looseObject({
  goalId: z.string(),
  title: z.string(),
  description: z.string(),
  status: z.enum(GOAL_STATUSES),
  priority: z.enum(GOAL_PRIORITIES),
  compartment: z.string(),
  createdAt: isoUtc,
  updatedAt: isoUtc,
});
export type ContextGoal = z.infer<typeof contextGoal>;

/** "The response is an object `{goals: [...]}`. The prose calls the payload an array." Both readings are accepted. */
export const goalsResponse = z.union([z.looseObject({ goals: z.array(z.unknown()) }), z.array(z.unknown())]);
