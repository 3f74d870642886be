/**
 * /v1 task-mode run scenarios: the bodies the checks post to `POST /v1/execute` (as profile
 * fixtures) and what the reference fake does with each. The webhook rules use `completes` and
 * `fails`; the run rules use all of them.
 */
export interface TaskScenario {
  /** What the checks need the run to do. */
  purpose: string;
  /** A task-mode body (`mode: "task"`); extra properties are allowed by the contract. */
  request: { mode: 'task'; task: Record<string, unknown> } & Record<string, unknown>;
}

export const taskScenarios = {
  completes: {
    purpose: 'finishes successfully within about 100 ms',
    request: { mode: 'task', task: { scenario: 'apicert.completes', instruction: 'summarise three short documents' } },
  },
  fails: {
    purpose: 'fails within about 100 ms',
    request: { mode: 'task', task: { scenario: 'apicert.fails', instruction: 'call a tool that always errors' } },
  },
  parks: {
    purpose: 'parks awaiting approval until approved, rejected or cancelled',
    request: { mode: 'task', task: { scenario: 'apicert.parks', instruction: 'send the prepared payment after approval' } },
  },
  long: {
    purpose: 'stays in flight for several seconds, so it can be cancelled or its stream dropped',
    request: { mode: 'task', task: { scenario: 'apicert.long', instruction: 'crawl a slow catalogue' } },
  },
} satisfies Record<string, TaskScenario>;

export type TaskScenarioName = keyof typeof taskScenarios;

/** The scenario a task body names, by `task.scenario`. */
export function taskScenarioOf(body: unknown): TaskScenarioName | undefined {
  const scenario = (body as { task?: { scenario?: unknown } } | undefined)?.task?.scenario;
  const found = Object.entries(taskScenarios).find(([, s]) => s.request.task.scenario === scenario);
  return found?.[0] as TaskScenarioName | undefined;
}
