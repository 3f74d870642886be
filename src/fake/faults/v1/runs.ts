import type { FaultDefinition } from '../types.ts';

/** Faults of the v1.runs rules: each breaks exactly the rule named before its slash. */
export const v1RunsFaults = [
  { id: 'v1.runs.get/html', description: 'the run resource is labelled text/html' },
  { id: 'v1.runs.events.identity/progress-without-id', description: 'progress events carry neither an SSE id nor an event_id' },
  { id: 'v1.runs.events.resume/repeats-cursor-event', description: 'resume repeats the event named by Last-Event-ID' },
  { id: 'v1.runs.events.dropped-connection/forgets-run', description: 'a task run in flight is dropped when its stream reader disconnects' },
  { id: 'v1.runs.approve.resumes/no-resume', description: 'approve answers 200 but the run stays parked' },
  { id: 'v1.runs.approve.request-shape/open-body', description: 'approve accepts a body with extra properties' },
  { id: 'v1.runs.approve.digest-binds/ignores-digest', description: 'approve accepts any action_digest' },
  { id: 'v1.runs.cancel.terminal-event/no-event', description: 'cancel answers 200 but no request.cancelled event follows' },
] as const satisfies readonly FaultDefinition[];
