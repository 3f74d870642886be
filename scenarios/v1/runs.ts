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

/**
 * Scripts: what the reference fake plays for each /v1 run: the events a run emits after `request.accepted`,
 * one beat after another. The spec names only `request.accepted` and `request.cancelled` as stream
 * kinds; the other kinds here are the fake's own choice (the terminal ones reuse the webhook event
 * type names `run.completed` and `run.failed`).
 */
export interface RunBeat {
  /** Delay after the previous beat; 0 plays it at once, before the response is written. */
  afterMs: number;
  emit: string;
  data?: Record<string, unknown>;
  /** The run parks awaiting approval at this beat; the event carries the run's action_digest. */
  park?: true;
  /** The run finishes with this beat. */
  end?: 'completed' | 'failed';
}

export const COMPLETED = 'run.completed';
export const FAILED = 'run.failed';
export const APPROVAL_REQUIRED = 'approval.required';

const progress = (afterMs: number, step: number): RunBeat => ({ afterMs, emit: 'run.progress', data: { step } });

export const taskScripts: Record<TaskScenarioName, RunBeat[]> = {
  completes: [progress(20, 1), progress(20, 2), { afterMs: 20, emit: COMPLETED, end: 'completed', data: { outcome: 'succeeded' } }],
  fails: [progress(20, 1), { afterMs: 30, emit: FAILED, end: 'failed', data: { code: 'tool_failed' } }],
  parks: [progress(20, 1), { afterMs: 10, emit: APPROVAL_REQUIRED, park: true, data: { action: 'send the prepared payment' } }],
  long: [...Array.from({ length: 25 }, (_, i) => progress(200, i + 1)), { afterMs: 50, emit: COMPLETED, end: 'completed', data: { outcome: 'succeeded' } }],
};

/**
 * The `long` run as `v1.runs/quiet-long-run` plays it: steps `QUIET_GAP_MS` apart. No sentence bounds how often a run
 * in flight sends an event, and a run backed by a model or a slow tool may be quiet for seconds.
 */
export const QUIET_GAP_MS = 4_500;
export const quietLongScript: RunBeat[] = [progress(20, 1), progress(QUIET_GAP_MS, 2), progress(QUIET_GAP_MS, 3), { afterMs: 50, emit: COMPLETED, end: 'completed', data: { outcome: 'succeeded' } }];

/** A task body that names no scenario runs like `completes`. */
export const defaultTaskScript: RunBeat[] = taskScripts.completes;

/** After an approval: the resume is delivered, then the run finishes. */
export const approvedScript: RunBeat[] = [progress(20, 2), { afterMs: 20, emit: COMPLETED, end: 'completed', data: { outcome: 'succeeded' } }];
export const rejectedScript: RunBeat[] = [{ afterMs: 10, emit: FAILED, end: 'failed', data: { code: 'cancelled', reason: 'approval rejected' } }];

/** A turn is answered at once, so the many turn requests of a property check stay cheap. */
export const turnScript: RunBeat[] = [
  { afterMs: 0, emit: 'message.delta', data: { text: 'apicert reference answer' } },
  { afterMs: 0, emit: COMPLETED, end: 'completed', data: { outcome: 'succeeded' } },
];
