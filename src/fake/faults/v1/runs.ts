import type { FaultDefinition } from '../types.ts';

/** Faults of the v1.runs rules: each breaks exactly the rule named before its slash. */
export const v1RunsFaults = [
  { id: 'v1.runs.get/html', description: 'the run resource is labelled text/html' },
  { id: 'v1.runs.events.stream/json-stream', description: "a run's events are answered 200 application/json (a JSON array of the events so far), not as an event stream" },
  { id: 'v1.runs.events.identity/progress-without-id', description: 'progress events carry neither an SSE id nor an event_id' },
  { id: 'v1.runs.events.resume/no-sse-ids', description: 'run events carry their event_id in the data but no SSE id, so Last-Event-ID has nothing to name' },
  { id: 'v1.runs.events.resume/repeats-cursor-event', description: 'resume repeats the event named by Last-Event-ID' },
  { id: 'v1.runs.events.dropped-connection/forgets-run', description: 'a task run in flight is dropped when its stream reader disconnects' },
  { id: 'v1.runs.approve.resumes/no-resume', description: 'approve answers 200 but the run stays parked' },
  { id: 'v1.runs.approve.request-shape/open-body', description: 'approve accepts a body with extra properties' },
  { id: 'v1.runs.approve.digest-binds/ignores-digest', description: 'approve accepts any action_digest' },
  { id: 'v1.runs.cancel.terminal-event/no-event', description: 'cancel answers 200 but the run ends run.failed, with no request.cancelled event' },
  { id: 'v1.runs.cancel.terminal-event/silent', description: "cancel answers 200 and stops the run, but no event follows: the run's stream stays open without request.cancelled" },
  { id: 'v1.runs.timestamp-offset/zulu', description: 'the run resource writes its timestamps with Z instead of a numeric offset' },
  // Faults only a sequence reveals: every fixed-sequence rule passes under each of them (suites/sequence-faults.test.ts).
  { id: 'v1.runs.lifecycle.model/approve-revives-cancelled', description: 'approving a run after it was cancelled resumes it: events follow request.cancelled' },
  { id: 'v1.runs.lifecycle.model/resume-skips-cancelled-event', description: 'a resume from a sequence before a cancel skips the request.cancelled event' },
] as const satisfies readonly FaultDefinition[];
