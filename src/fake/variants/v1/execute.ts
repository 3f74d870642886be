import type { VariantDefinition } from '../types.ts';

export const v1ExecuteVariants = [
  {
    id: 'v1.execute/extra-properties',
    description: 'the task response carries unknown properties beside run_id (nested objects, arrays, nulls, odd names)',
    spec: { document: 'v1-execution-fabric.md', section: 'Resources and their fields > Task response', quote: 'A JSON object with required `run_id` (string). Other properties are allowed.' },
  },
  {
    id: 'v1.execute/replay-marked',
    description: 'a replayed task request answers the original run_id with more than the original said: replayed: true and a request id of its own',
    spec: { document: 'v1-execution-fabric.md', section: 'Endpoints > Rules 2', quote: 'Same key with the same request replays safely.' },
  },
  {
    id: 'v1.execute/unknown-references-refused',
    description: 'a turn body naming what the fabric does not hold (an approval receipt, a file id, a model, an output schema, a tool, a session, conversation or organization) or a message id twice is refused with 400 invalid_request',
    spec: { document: 'v1-execution-fabric.md', section: 'Resources and their fields > Other nested objects (no extra properties)', quote: 'ApprovalReceipt is the inline approval transport for turn requests. Its relationship to `action_digest` and `decision` of the approve operation is unspecified.' },
  },
  {
    id: 'v1.execute/closed-task',
    description: 'a task whose `task` object names members other than the fixtures\' (scenario, instruction) is refused with 400 invalid_request: the deployment decides which work it can take',
    spec: { document: 'v1-execution-fabric.md', section: 'Resources and their fields > Task request body (extra properties allowed)', quote: 'Sub-field shapes of `task`, `context`, `policy` and `delivery`: not shown.' },
  },
  {
    id: 'v1.execute/in-flight-409',
    description: 'a request whose Idempotency-Key belongs to a request still being processed (the fake holds each new keyed request 50 ms) is answered 409: code idempotency_replay, retryable:true, for the same request; conflict for another',
    spec: { document: 'v1-execution-fabric.md', section: 'Errors', quote: 'Mapping of each `code` to an HTTP status: not shown.' },
  },
  {
    id: 'v1.execute/digest-known-members',
    description: 'the idempotency digest of a task request covers its documented members only (mode, task, context, tools, policy, delivery): a task that differs only in an unknown top-level member is the same request, and replays',
    spec: { document: 'v1-execution-fabric.md', section: 'Endpoints > Rules 1', quote: '`Idempotency-Key` is scoped to the authenticated principal, tenant, API version and a normalized digest of the request.' },
  },
  {
    // Audit s27 (Koa) F2: a turn's requestId names the request; a digest may leave it out.
    id: 'v1.execute/digest-without-request-id',
    description: "the idempotency digest of a turn request leaves out its requestId: the same key with the same turn under a new requestId is the same request, and replays (another message or client is still a 409 conflict)",
    spec: { document: 'v1-execution-fabric.md', section: 'Endpoints > Rules 1', quote: '`Idempotency-Key` is scoped to the authenticated principal, tenant, API version and a normalized digest of the request.' },
  },
  {
    id: 'v1.execute/body-key-ignored',
    description: "the turn body's idempotencyKey keys nothing: only the Idempotency-Key header does, so a turn keyed only in its body starts a new run each time",
    spec: { document: 'v1-execution-fabric.md', section: 'Resources and their fields > Turn request body (AiPlatformChatRequestV1; no extra properties)', quote: '| idempotencyKey | Identifier | no | |' },
  },
] as const satisfies readonly VariantDefinition[];
