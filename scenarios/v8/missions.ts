/**
 * Mission scenarios: the create bodies the checks send (as profile fixtures) and the script the
 * reference fake plays for each. A real deployment's profile gives its own bodies for the same names.
 */
import type { CreateMissionRequest } from '../../src/contract/v8/missions.ts';

/** One beat of a scripted mission, played by the fake after `afterMs`. */
export type ScriptBeat =
  /** `toolCalls`: how many tool calls the step needs (none when absent). */
  | { afterMs: number; do: 'step'; outcome: 'completed' | 'failed'; toolCalls?: number }
  | { afterMs: number; do: 'wait' }
  | { afterMs: number; do: 'finish'; status: 'succeeded' | 'failed' };

export interface MissionScenario {
  /** What the checks need the mission to do. */
  purpose: string;
  request: CreateMissionRequest;
  script: ScriptBeat[];
}

const budget = (maximumElapsedMs: number) => ({ maximumSteps: 50, maximumToolCalls: 20, maximumElapsedMs, maximumParallelism: 2 });

const steps = (count: number, everyMs: number, toolCalls = 0): ScriptBeat[] =>
  Array.from({ length: count }, () => ({ afterMs: everyMs, do: 'step' as const, outcome: 'completed' as const, ...(toolCalls > 0 ? { toolCalls } : {}) }));

export const missionScenarios = {
  succeeds: {
    purpose: 'reaches succeeded after a few steps, each with a trace and one tool call (a budget of fewer tool calls ends it failed)',
    request: { goalSpec: { task: 'apicert scenario succeeds: summarise three short documents' }, resourceBudget: budget(60_000) },
    script: [...steps(3, 15, 1), { afterMs: 10, do: 'finish', status: 'succeeded' }],
  },
  waits: {
    purpose: 'parks in waiting after one step until cancelled',
    request: { goalSpec: { task: 'apicert scenario waits: ask the operator before sending' }, resourceBudget: budget(600_000) },
    script: [...steps(1, 10), { afterMs: 5, do: 'wait' }],
  },
  fails: {
    purpose: 'reaches failed after a failed step',
    request: { goalSpec: { task: 'apicert scenario fails: call a tool that always errors' }, resourceBudget: budget(60_000) },
    script: [...steps(1, 10), { afterMs: 10, do: 'step', outcome: 'failed', toolCalls: 1 }, { afterMs: 5, do: 'finish', status: 'failed' }],
  },
  cancellable: {
    purpose: 'keeps running for several seconds so it can be cancelled while running',
    request: { goalSpec: { task: 'apicert scenario cancellable: crawl a slow catalogue' }, resourceBudget: budget(600_000) },
    script: [...steps(40, 100), { afterMs: 10, do: 'finish', status: 'succeeded' }],
  },
  timeLimit: {
    purpose: 'runs past its maximumElapsedMs of 150 ms',
    request: {
      goalSpec: { task: 'apicert scenario time-limit: crawl a slow catalogue under a tight budget' },
      resourceBudget: { maximumSteps: 50, maximumToolCalls: 20, maximumElapsedMs: 150, maximumParallelism: 1 },
    },
    script: [...steps(20, 100), { afterMs: 10, do: 'finish', status: 'succeeded' }],
  },
  overBudget: {
    purpose: 'needs six steps under a budget of two, with time to spare: the step limit ends it failed',
    request: {
      goalSpec: { task: 'apicert scenario over-budget: compare six reports one step each' },
      resourceBudget: { maximumSteps: 2, maximumToolCalls: 20, maximumElapsedMs: 60_000, maximumParallelism: 1 },
    },
    script: [...steps(6, 10), { afterMs: 10, do: 'finish', status: 'succeeded' }],
  },
} satisfies Record<string, MissionScenario>;

export type MissionScenarioName = keyof typeof missionScenarios;

/** The script a fake plays for a body that matches no scenario (generated bodies in property checks). */
export const defaultMissionScript: ScriptBeat[] = [...steps(1, 10), { afterMs: 10, do: 'finish', status: 'succeeded' }];

export function scenarioForTask(task: string): MissionScenario | undefined {
  return Object.values(missionScenarios).find((s) => s.request.goalSpec.task === task);
}
