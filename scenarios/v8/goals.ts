/** Context-twin goals of the fake; one compartment per principal boundary, one outside both. */
import type { ContextGoal } from '../../src/contract/v8/goals.ts';
import { PRIMARY_PRINCIPAL, SECOND_PRINCIPAL } from './principal.ts';

export const goalCompartments: Record<string, readonly string[]> = {
  [PRIMARY_PRINCIPAL]: ['apicert-research', 'apicert-ops'],
  [SECOND_PRINCIPAL]: ['apicert-finance'],
};

function goal(goalId: string, title: string, status: ContextGoal['status'], priority: ContextGoal['priority'], compartment: string): ContextGoal {
  return {
    goalId,
    title,
    description: `${title} (reference fake goal)`,
    status,
    priority,
    compartment,
    createdAt: '2026-10-02T09:00:00Z',
    updatedAt: '2026-11-15T16:30:00.250Z',
  };
}

export const contextGoals: ContextGoal[] = [
  goal('goal-research-1', 'Keep the supplier brief current', 'active', 'high', 'apicert-research'),
  goal('goal-research-2', 'Archive last year’s reviews', 'archived', 'low', 'apicert-research'),
  goal('goal-ops-1', 'Cut incident response time', 'paused', 'critical', 'apicert-ops'),
  goal('goal-ops-2', 'Plan the storage migration', 'active', 'medium', 'apicert-ops'),
  goal('goal-finance-1', 'Close the quarter', 'active', 'critical', 'apicert-finance'),
];
