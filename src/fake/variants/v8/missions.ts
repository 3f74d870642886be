import { sseWireVariants } from '../sse-wire.ts';
import type { VariantDefinition } from '../types.ts';

const DOC = 'v8-integration-gateway.md';
const CANCEL = { document: DOC, section: 'Endpoints', quote: 'Cancel request body and response body: not shown.' } as const;
const EVENT_DATA = { document: DOC, section: 'Events', quote: 'Data payload fields of `mission.started`, `mission.completed`, `mission.failed` and `mission.cancelled`: not shown.' } as const;

export const v8MissionsVariants = [
  {
    id: 'v8.missions/events-accept-required',
    description: 'a request for mission events without Accept: text/event-stream is refused with 406 Not Acceptable',
    spec: { document: DOC, section: 'Endpoints', quote: 'path `runId`; header `Accept: text/event-stream`; optional `Last-Event-ID` | `200` `text/event-stream`' },
  },
  ...sseWireVariants('v8.missions', { document: DOC, section: 'Endpoints', quote: 'path `runId`; header `Accept: text/event-stream`; optional `Last-Event-ID` | `200` `text/event-stream`' }),
  {
    id: 'v8.missions/sse-framing',
    description: 'mission event streams carry comments (keepalives), a retry: field and each JSON payload split over several data: lines',
    spec: { document: DOC, section: 'Endpoints', quote: 'path `runId`; header `Accept: text/event-stream`; optional `Last-Event-ID` | `200` `text/event-stream`' },
  },
  {
    id: 'v8.missions/extra-properties',
    description: 'mission projections, their step summaries and every event data payload carry unknown properties (nested objects, arrays, nulls, odd names)',
    spec: EVENT_DATA,
  },
  {
    id: 'v8.missions/other-ids',
    description: 'stepIds of 120 characters with `_`, `:`, `.` and `-`, and event ids that are long base64 cursors with `+`, `/` and `=`',
    spec: { document: DOC, section: 'Events', quote: 'opaque stable cursor; send it back as `Last-Event-ID` to resume' },
  },
  {
    id: 'v8.missions/key-statuses',
    description: 'a mutating request without Idempotency-Key answers 428, one with a malformed key 422 (the seed names no status for either)',
    spec: { document: DOC, section: 'Endpoints > Rules 2', quote: 'Mutating operations require `Idempotency-Key`: 16-128 characters, only alphanumerics and `.`, `_`, `:`, `-`.' },
  },
  {
    id: 'v8.missions/cancel-204',
    description: 'cancel answers 204 with no body',
    spec: CANCEL,
    excludes: ['v8.missions/cancel-202-async'],
  },
  {
    id: 'v8.missions/cancel-202-async',
    description: 'cancel answers 202 with a receipt that is not a projection, and the mission reaches cancelled a moment later',
    spec: CANCEL,
    excludes: ['v8.missions/cancel-204'],
  },
  {
    id: 'v8.missions/created-waiting',
    description: 'a new mission reads `waiting` until its execution begins, then `running`',
    spec: { document: DOC, section: 'States and transitions', quote: '`running` or `waiting` (almost always one of these)' },
  },
  {
    id: 'v8.missions/other-step-statuses',
    description: 'steps read `in_progress` while they run and end `succeeded` or `errored` (none of the examples)',
    spec: { document: DOC, section: 'Resources > Mission projection', quote: 'The full list of step status values: not shown.' },
  },
  {
    id: 'v8.missions/fails-before-steps',
    description: 'the "fails" fixture mission is rejected at planning: mission.started then mission.failed, no step event and no trace (a failed step\'s trace is then nowhere to read)',
    spec: { document: DOC, section: 'States and transitions', quote: '| `running` or `waiting` | budget limit reached, policy rejection or unrecoverable error | | `failed` | event `mission.failed` |' },
    leavesUntestable: 'gave a mission that named no traceId in its step events',
  },
  {
    id: 'v8.missions/time-limit-failed',
    description: 'a mission whose maximumElapsedMs elapses ends `failed` with mission.failed (the budget text\'s reading) instead of `cancelled`',
    spec: {
      document: DOC,
      section: 'States and transitions',
      quote: '`cancelled` (as stated for the time limit; the budget text also lists limits generally as leading to `failed`)',
    },
  },
  {
    id: 'v8.missions/minimal-event-data',
    description: 'event data carries only what the seed names: mission.started and the terminal events an empty object, step.started only traceId, step.completed its result summary under `result`',
    spec: EVENT_DATA,
  },
  {
    id: 'v8.missions/small-replay-window',
    description: 'the replay window holds only the last three events of a mission: older cursors answer 409',
    spec: { document: DOC, section: 'Events', quote: 'Size or duration of the replay window: not shown.' },
  },
  {
    id: 'v8.missions/replay-window-one',
    description: 'the replay window holds only the newest event of a mission: a cursor of any earlier event answers 409, that of the event before the terminal one too',
    spec: { document: DOC, section: 'Events', quote: 'Size or duration of the replay window: not shown.' },
    excludes: ['v8.missions/small-replay-window'],
  },
  {
    id: 'v8.missions/task-text-bounds',
    description: 'goalSpec.task is refused when empty or blank (400) or longer than 4096 characters (413)',
    spec: { document: DOC, section: 'Resources and their fields > Goal specification and budget (create request)', quote: '| goalSpec.task | string | yes | natural-language task |' },
  },
  {
    id: 'v8.missions/signal-null-payload-accepted',
    description: 'a signal whose payload is JSON null is accepted (200) like any other JSON value',
    spec: { document: DOC, section: 'Resources and their fields > Signal request', quote: "| payload | any JSON value (object, array, string, number or boolean) | yes | shape is set by the agent's handler, not the gateway |" },
  },
  {
    id: 'v8.missions/extra-event-type',
    description: 'every step also emits a `mission.step.progress` event (an event type beyond the six the Events table lists)',
    spec: { document: DOC, section: 'Resources and their fields > Mission projection (responses of create and get)', quote: 'The full list of step status values: not shown.' },
  },
  {
    id: 'v8.missions/informational-after-terminal',
    description: 'after its terminal event every mission emits one informational event (`mission.audit-note`, data `{}`, with an id), then its stream closes',
    spec: { document: DOC, section: 'Events > Rules 2', quote: 'Events after a terminal event are informational only, not state-changing.' },
  },
  {
    id: 'v8.missions/cancel-ended-refused',
    description: 'a cancel (under a new Idempotency-Key) of a mission that already ended is refused with a 422 problem; a replay of an accepted cancel still answers as the original',
    spec: CANCEL,
  },
  {
    id: 'v8.missions/malformed-cursor-400',
    description: 'a Last-Event-ID that is not one of the fake\'s cursors is refused as malformed with a 400 problem; a cursor of the fake outside the replay window still answers 409',
    spec: { document: DOC, section: 'Events > Rules 1', quote: 'A `Last-Event-ID` outside the window gives `409`, and the client must re-fetch from the beginning.' },
  },
  {
    id: 'v8.missions/signal-ends-waiting',
    description: 'an accepted signal is what a parked (`waits`) mission waits for: it ends `succeeded` (mission.completed) at once, or when it would park if the signal came first; later signals answer 409',
    spec: { document: DOC, section: 'States and transitions', quote: 'Transitions out of `waiting` (for example on receipt of a signal): not shown.' },
  },
  {
    id: 'v8.missions/live-step-details',
    description: 'every step summary of a projection carries `observedAt`, the time of the read: it changes on every read while status, steps and sequence stay the same',
    spec: { document: DOC, section: 'Resources and their fields > Mission projection (responses of create and get)', quote: 'Step summary: `stepId` (string), `status` (string; examples `completed`, `failed`, `running`).' },
  },
  {
    id: 'v8.missions/limit-on-creates',
    description: 'the per-principal limiter refuses creates (POST /v8/missions) alone: reads, event streams, signals and cancels of missions are served whatever the principal\'s count',
    spec: { document: DOC, section: 'Limits', quote: 'A per-principal rate limit exists (`429`). Its numeric values: not shown.' },
  },
  {
    id: 'v8.missions/signal-replay-terminal-first',
    description: 'a signal to a mission that has ended answers 409 even when it replays an accepted one (same key and body): the terminal state is looked at before the idempotency record',
    spec: { document: DOC, section: 'Endpoints > Rules 4', quote: 'A signal to a mission in a terminal state gives `409`.' },
  },
  {
    id: 'v8.missions/late-start',
    description: 'execution begins 150 ms after intake (mission.started then): a mission cancelled before that never carries mission.started',
    spec: { document: DOC, section: 'Events', quote: '`mission.started` | the agent first begins executing the mission' },
  },
  {
    id: 'v8.missions/in-flight-409',
    description: 'a create whose Idempotency-Key belongs to a create still being processed (the fake holds each new keyed create 50 ms) is answered 409: "in progress" for the same body, the conflict for another',
    spec: { document: DOC, section: 'Endpoints > Rules 3', quote: 'Replay with the same key and the same body returns the original response without re-executing.' },
  },
  {
    id: 'v8.missions/stream-duration-cap',
    description: 'the server closes every mission event stream 1 s after it opened, terminal event or not: the client resumes with Last-Event-ID',
    spec: { document: DOC, section: 'Events > Rules 1', quote: 'The stream is resumable within a bounded replay window.' },
  },
] as const satisfies readonly VariantDefinition[];
