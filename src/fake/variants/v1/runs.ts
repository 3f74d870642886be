import { sseWireVariants } from '../sse-wire.ts';
import type { VariantDefinition } from '../types.ts';

const DOC = 'v1-execution-fabric.md';

export const v1RunsVariants = [
  ...sseWireVariants('v1.runs', { document: DOC, section: 'Endpoints', quote: 'GET | `/v1/runs/{id}/events` | SSE' }),
  {
    id: 'v1.runs/sse-framing',
    description: 'run event streams carry comments (keepalives), a retry: field and each JSON payload split over several data: lines',
    spec: { document: DOC, section: 'Endpoints', quote: 'GET | `/v1/runs/{id}/events` | SSE' },
  },
  {
    id: 'v1.runs/extra-properties',
    description: 'the run resource, the approve and cancel answers and every run event payload carry unknown properties (nested objects, arrays, nulls, odd names)',
    spec: { document: DOC, section: 'Resources and their fields > Run, usage and webhook endpoint records', quote: 'Fields of the run resource returned by `GET /v1/runs/{id}`: not shown.' },
  },
  {
    id: 'v1.runs/id-format',
    description: 'run ids take other shapes in turn: characters a path must percent-encode (space, /, ?, #, %, +, non-ASCII), purely numeric, 128 characters with . : _ -; event ids are numeric or long',
    spec: { document: DOC, section: 'Endpoints', quote: '| GET | `/v1/runs/{id}` | path `id`: string run identifier |' },
  },
  {
    id: 'v1.runs/sparse-sequences',
    description: "event sequences come from one counter shared by every run: they start high and leave gaps within a run's stream",
    spec: { document: DOC, section: 'Events > Run event stream', quote: 'Resume: `Last-Event-ID` carries the `sequence` value of the stored run event.' },
  },
  {
    id: 'v1.runs/state-names',
    description: 'runs read back (and count in usage) with other state names: running, awaiting_approval, succeeded, errored, canceled',
    spec: { document: DOC, section: 'States and transitions', quote: 'Run state names: not shown beyond these conditions: a run can be in flight, parked awaiting approval, or finished.' },
  },
  {
    id: 'v1.runs/extra-event-kinds',
    description: 'run streams carry event kinds beyond the known ones (informational, before every step and while parked), with odd kind names',
    spec: { document: DOC, section: 'Events > Run event stream', quote: 'Event kinds beyond `request.accepted` and `request.cancelled`, and the payload fields of events: not shown.' },
  },
  {
    id: 'v1.runs/kind-in-data-only',
    description: 'run events name their kind only in the JSON data (type), with no SSE event: field',
    spec: { document: DOC, section: 'Events > Run event stream', quote: 'Turn mode on `/v1/execute` and `GET /v1/runs/{id}/events` stream AiPlatformEventV1 items.' },
  },
  {
    id: 'v1.runs/kind-in-event-type',
    description: 'run events name their kind only in the JSON data, as event_type (the name deliveries may use), with no SSE event: field and no type',
    spec: { document: DOC, section: 'Events > Run event stream', quote: 'Event kinds beyond `request.accepted` and `request.cancelled`, and the payload fields of events: not shown.' },
  },
  {
    // The kind of a turn stream, a run event stream and a webhook delivery alike: the fake names it in one place (src/fake/v1/runs/engine.ts).
    id: 'v1.runs/event-kind-in-data',
    description: 'run events name their kind only in a data member named eventType (no SSE event: field, no type), in turn streams, run event streams and webhook delivery bodies alike',
    spec: { document: DOC, section: 'Events > Run event stream', quote: 'Event kinds beyond `request.accepted` and `request.cancelled`, and the payload fields of events: not shown.' },
    excludes: ['v1.runs/kind-in-event-type', 'v1.webhooks/event-type-field'],
  },
  {
    id: 'v1.runs/per-read-payload-field',
    description: 'each read of GET /v1/runs/{id}/events carries fields that belong to the read in every event payload (sent_at, the read number): a resumed event has the same SSE id and kind but other data bytes',
    spec: { document: DOC, section: 'Events > Run event stream', quote: 'Event kinds beyond `request.accepted` and `request.cancelled`, and the payload fields of events: not shown.' },
  },
  {
    // Turn streams are written by the run stream writer (src/fake/v1/runs/stream.ts): the fake bends there.
    id: 'v1.runs/turn-without-sse-ids',
    description: 'turn-mode POST /v1/execute streams carry no SSE id (each event keeps its event_id in its data); GET /v1/runs/{id}/events still carries the sequence ids',
    spec: { document: DOC, section: 'Endpoints > Rules 4', quote: 'After a dropped connection on a task-mode run, read the run back or resume its event stream with `Last-Event-ID` before posting again.' },
  },
  {
    id: 'v1.runs/empty-bodies',
    description: 'approve and cancel answer 200 with an empty JSON object {}',
    spec: { document: DOC, section: 'Endpoints', quote: 'Contents of the approve and cancel response bodies: not shown.' },
    excludes: ['v1.runs/extra-properties'],
  },
  {
    id: 'v1.runs/cancel-finished-refused',
    description: 'cancelling a run that already finished is refused with 400 invalid_request (the fake answers 200 by default)',
    spec: { document: DOC, section: 'Errors', quote: 'Mapping of each `code` to an HTTP status: not shown.' },
  },
  {
    id: 'v1.runs/wrong-digest-fails',
    description: 'an approve with a wrong action_digest is refused (409 conflict) and ends the parked run: run.failed, without carrying out the proposed action',
    spec: { document: DOC, section: 'States and transitions', quote: 'Transitions: not shown.' },
  },
  {
    id: 'v1.runs/parked-reminders',
    description: 'a parked run sends a reminder of a kind of its own (vendor:run/approval-reminder) every 4 s until it leaves the parked state: longer than a read of what it sends while parked, so the first reminder may come after an approve',
    spec: { document: DOC, section: 'Events > Run event stream', quote: 'Event kinds beyond `request.accepted` and `request.cancelled`, and the payload fields of events: not shown.' },
  },
  {
    id: 'v1.runs/state-before-body',
    description: "an approve to a run that is not parked is refused 409 conflict before its body is read, so a body that is no ApproveRequest sent to such a run is refused for the run's state (the fake checks the body first by default: 400 invalid_request)",
    spec: { document: DOC, section: 'Errors', quote: 'Mapping of each `code` to an HTTP status: not shown.' },
  },
  {
    id: 'v1.runs/slow-resume',
    description: 'an approved run shows its resume (approval.resolved, then its remaining steps) only 4.5 s after the approve was answered 200, longer than the approve rules\' default watch (safety.approvalWatchMs)',
    spec: { document: DOC, section: 'States and transitions', quote: '| `POST /v1/runs/{id}/approve` | run is parked awaiting approval | the resume is delivered and confirmed; the response is `200` |' },
  },
  {
    id: 'v1.runs/approve-text-bounds',
    description: 'approve bodies are refused (400 invalid_request) when action_digest or decision is empty, blank or longer than 4096 characters, or decision is not approved or rejected',
    spec: { document: DOC, section: 'Resources and their fields > ApproveRequest (no extra properties)', quote: 'Format of `action_digest` and the allowed values of `decision`: not shown.' },
  },
  {
    // The embedded profile names the approving word under it (src/fake/v1/embedded.ts): fixtures.v1.approval.approveDecision `approve`.
    id: 'v1.runs/decision-verbs',
    description: 'approve takes decision `approve` or `reject` and refuses `approved` and `rejected` (400 invalid_request); the embedded profile says approveDecision `approve`',
    spec: { document: DOC, section: 'Resources and their fields > ApproveRequest (no extra properties)', quote: 'Format of `action_digest` and the allowed values of `decision`: not shown.' },
  },
  {
    id: 'v1.runs/run-id-validated',
    description: 'a run id that is not of the fabric\'s own format (run_ and 24 hex digits) is refused with 400 invalid_request on every /v1/runs/{id} path',
    spec: { document: DOC, section: 'Endpoints', quote: '| GET | `/v1/runs/{id}` | path `id`: string run identifier |' },
    excludes: ['v1.runs/id-format'],
  },
  {
    id: 'v1.runs/quiet-long-run',
    description: 'the "long" task run sends its steps 4.5 s apart (QUIET_GAP_MS, scenarios/v1/runs.ts): a resumed stream of it stays silent for longer than 3 s before its next event',
    spec: { document: DOC, section: 'Endpoints > Rules 4', quote: 'After a dropped connection on a task-mode run, read the run back or resume its event stream with `Last-Event-ID` before posting again. The run may be in flight, parked on approval, or finished.' },
  },
  {
    id: 'v1.runs/text-payloads',
    description: 'run events other than request.accepted and approval.required carry plain text data (the kind and sequence in words, as a chat stream sends its text deltas), not JSON; each keeps its SSE event field and id',
    spec: { document: DOC, section: 'Events > Run event stream', quote: 'Event kinds beyond `request.accepted` and `request.cancelled`, and the payload fields of events: not shown.' },
    excludes: ['v1.runs/kind-in-data-only', 'v1.runs/kind-in-event-type', 'v1.runs/event-kind-in-data', 'v1.runs/turn-without-sse-ids'],
  },
  {
    id: 'v1.runs/z-timestamps',
    description: 'the run resource and the usage answer write their date-times with `Z` (no field is declared a Timestamp, and the embedded profile declares none), and the run resource carries an `output` holding date-times of its own',
    spec: { document: 'v1-execution-fabric.md', section: 'Resources and their fields > Run, usage and webhook endpoint records', quote: 'Fields of the run resource returned by `GET /v1/runs/{id}`: not shown.' },
  },
  {
    id: 'v1.runs/buffered-streams',
    description: 'every /v1 event stream (turn-mode POST /v1/execute and GET /v1/runs/{id}/events) is written whole, its head with it, when it ends, as behind an ETag middleware that hashes the body: a run read in flight arrives only once it has ended, and a parked run\'s stream only once it leaves the parked state',
    spec: { document: DOC, section: 'Endpoints', quote: 'GET | `/v1/runs/{id}/events` | SSE' },
    // The cancel's read shows the run ended, and the approve rules' reads of a parked run get no head until it leaves the parked state.
    leavesInconclusive: ['the read of the run before the cancel showed it ended', 'UND_ERR_HEADERS_TIMEOUT: no response headers'],
  },
  {
    // Audit s27 (Koa) F1: Node sends the head of an answer whose body is written later (Koa's `ctx.body = new PassThrough()`) with its first byte.
    id: 'v1.runs/headers-with-first-event',
    description: "every /v1 event stream sends its status line and headers only with its first event, as Node does for a body written later (Koa's ctx.body = new PassThrough()): a parked run's stream resumed after its parked event sends nothing at all, not even its head, until the run moves on",
    spec: { document: DOC, section: 'Endpoints', quote: 'GET | `/v1/runs/{id}/events` | SSE' },
    excludes: ['v1.runs/split-writes'],
  },
  {
    id: 'v1.runs/not-parked-422',
    description: 'an approve to a run that is not parked awaiting approval (in flight, already approved, finished) is refused 422 invalid_request, not 409 conflict',
    spec: { document: DOC, section: 'Errors', quote: 'Mapping of each `code` to an HTTP status: not shown.' },
  },
  {
    // Audit s27 /v1 F0: the cancel row's condition ("cancellation accepted") binds what an accepted cancel does, not which are accepted.
    id: 'v1.runs/cancel-parked-refused',
    description: 'a run parked awaiting approval refuses its cancel (409 conflict, retryable false) and stays parked: only approve resolves it (decision rejected); runs in flight and finished runs are cancelled as by default',
    spec: { document: DOC, section: 'States and transitions', quote: '| `POST /v1/runs/{id}/cancel` | cancellation accepted | a terminal `request.cancelled` event is emitted on the run\'s stream |' },
  },
] as const satisfies readonly VariantDefinition[];
