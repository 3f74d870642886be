/**
 * The hand-written part of the traceability matrix: every normative unit of the seeds
 * (src/coverage/units.ts) that no rule quotes word for word (those are derived from the quotes,
 * src/coverage/derive.ts), mapped to the rules that judge it though they quote another sentence,
 * or to the reason (src/coverage/reasons.ts) it cannot be judged from outside. The rules are
 * certify's (src/registry.ts) and the other side's: `receiver.*` and `client.*` (other-side.ts).
 * suites/harness/coverage.test.ts fails when a unit is mapped by neither, when an entry here names
 * a rule that quotes the unit already, or gives a reason for a unit a rule quotes.
 */
import type { ReasonCode } from './reasons.ts';

export interface UnitMapping {
  rules?: readonly string[];
  reason?: ReasonCode;
  /** What of the unit its rules leave unjudged, printed as "partly: …" so the unit is not read as wholly judged. */
  partly?: string;
  /** Rules that quote the unit only beside the sentence they judge, and do not judge it (each must quote it). */
  notJudgedBy?: readonly string[];
}

export const MAPPING: Readonly<Record<string, UnitMapping>> = {
  // This document covers the `/v1` surface served at `{base_url}`: task admission, runs, event streaming, approvals, usage and webhooks.
  'v1:execution-fabric-api-v1-developer-preview:this-document-covers-the-v1-surface': { reason: 'INFORMATIVE' },
  // A second document covers the separate `/v8` integration gateway (missions, memory, capabilities, traces, skills, context goals, world certificates, co
  'v1:execution-fabric-api-v1-developer-preview:a-second-document-covers-the-separate': { reason: 'INFORMATIVE' },
  // The service is an execution fabric for delegated work. A caller submits a task. The service routes it across models, tools, agents and memory under an
  'v1:what-the-service-does:the-service-is-an-execution-fabric': { reason: 'INTERNAL' },
  // The service is a developer preview and does not yet serve public traffic. Its interface version is `1.0.0-preview`.
  'v1:what-the-service-does:the-service-is-a-developer-preview': { reason: 'INFORMATIVE' },
  // `POST /v1/execute` has two modes:
  'v1:what-the-service-does:post-v1-execute-has-two-modes': { rules: ['v1.execute.turn.stream', 'v1.execute.task.run-id'] },
  // Progress of a run can be followed through the event stream, through registered webhooks, or by reading the run back.
  'v1:what-the-service-does:progress-of-a-run-can-be': { rules: ['v1.runs.events.resume', 'v1.webhooks.delivery.body', 'v1.runs.get'] },
  // Admission of a request, a webhook delivery attempt and a cancellation request are acknowledgements only. None of them proves that the run completed.
  // v1.runs.cancel.not-rollback records a cancel after an approval and says nothing of acknowledgements: the sentence tells the client what not to infer.
  'v1:what-the-service-does:admission-of-a-request-a-webhook': { reason: 'CLIENT' },
  // Identifier | string | length 1-128; pattern `^[A-Za-z0-9][A-Za-z0-9._:-]*$`
  'v1:resources-and-their-fields-shared-primitives:identifier': { rules: ['v1.execute.turn.bodies'] },
  // Timestamp | string, RFC 3339 date-time | … (quoted by v1.runs.timestamp-offset)
  'v1:resources-and-their-fields-shared-primitives:timestamp': { partly: 'judged only where fixtures.v1.timestampFields names the members a deployment types Timestamp: no field of a shown answer is typed Timestamp' },
  // MetadataValue | string (max 512 chars), number, boolean or null |
  'v1:resources-and-their-fields-shared-primitives:metadatavalue': { rules: ['v1.execute.turn.bodies'] },
  // Metadata | object | at most 32 keys; each key 1-64 chars; values are MetadataValue
  'v1:resources-and-their-fields-shared-primitives:metadata': { rules: ['v1.execute.turn.bodies'] },
  // ClientKind | string enum | `expo`, `web`, `nextjs`, `macos`, `ide`, `cli`, `backend`, `external`
  'v1:resources-and-their-fields-shared-primitives:clientkind': { rules: ['v1.execute.turn.bodies'] },
  // kind | ClientKind | yes |
  'v1:resources-and-their-fields-clientinfo-no-extra-properties:kind': { rules: ['v1.execute.turn.bodies'] },
  // name | string | yes | 1-128 chars
  'v1:resources-and-their-fields-clientinfo-no-extra-properties:name': { rules: ['v1.execute.turn.bodies'] },
  // version | string | yes | 1-64 chars
  'v1:resources-and-their-fields-clientinfo-no-extra-properties:version': { rules: ['v1.execute.turn.bodies'] },
  // capabilities | array of string | no | default empty; max 64 items; each 1-96 chars
  'v1:resources-and-their-fields-clientinfo-no-extra-properties:capabilities': { rules: ['v1.execute.turn.bodies'] },
  // TextPart | type | const `text` | yes |
  'v1:resources-and-their-fields-message-parts-and-messages:textpart:type': { rules: ['v1.execute.turn.bodies'] },
  // TextPart | text | string | yes | 1-200000 chars
  'v1:resources-and-their-fields-message-parts-and-messages:textpart:text': { rules: ['v1.execute.turn.bodies'] },
  // FileReferencePart | type | const `file_reference` | yes |
  'v1:resources-and-their-fields-message-parts-and-messages:filereferencepart:type': { rules: ['v1.execute.turn.bodies'] },
  // FileReferencePart | fileId | Identifier | yes |
  'v1:resources-and-their-fields-message-parts-and-messages:filereferencepart:fileid': { rules: ['v1.execute.turn.bodies'] },
  // FileReferencePart | mediaType | string | yes | 1-128 chars
  'v1:resources-and-their-fields-message-parts-and-messages:filereferencepart:mediatype': { rules: ['v1.execute.turn.bodies'] },
  // FileReferencePart | name | string | no | 1-255 chars
  'v1:resources-and-their-fields-message-parts-and-messages:filereferencepart:name': { rules: ['v1.execute.turn.bodies'] },
  // Message | id | Identifier | yes |
  'v1:resources-and-their-fields-message-parts-and-messages:message:id': { rules: ['v1.execute.turn.bodies'] },
  // Message | role | string | yes | `user` or `assistant`
  'v1:resources-and-their-fields-message-parts-and-messages:message:role': { rules: ['v1.execute.turn.bodies'] },
  // Message | parts | array of TextPart or FileReferencePart, discriminated by `type` | yes | 1-64 items
  'v1:resources-and-their-fields-message-parts-and-messages:message:parts': { rules: ['v1.execute.turn.bodies'] },
  // ToolsFilter | allow | array of string | max 256 items; each 1-128 chars
  'v1:resources-and-their-fields-other-nested-objects-no:toolsfilter:allow': { rules: ['v1.execute.turn.bodies'] },
  // ToolsFilter | deny | array of string | default empty; max 256 items; each 1-128 chars
  'v1:resources-and-their-fields-other-nested-objects-no:toolsfilter:deny': { rules: ['v1.execute.turn.bodies'] },
  // ApprovalReceipt | approvalId | Identifier (required) |
  'v1:resources-and-their-fields-other-nested-objects-no:approvalreceipt:approvalid': { rules: ['v1.execute.turn.bodies'] },
  // ApprovalReceipt | receipt | string (required) | 16-4096 chars
  'v1:resources-and-their-fields-other-nested-objects-no:approvalreceipt:receipt': { rules: ['v1.execute.turn.bodies'] },
  // MemoryPolicy | read | string | `inherit`, `allow`, `deny`; default `inherit`
  'v1:resources-and-their-fields-other-nested-objects-no:memorypolicy:read': { rules: ['v1.execute.turn.bodies'] },
  // MemoryPolicy | write | string | `inherit`, `allow`, `deny`; default `inherit`
  'v1:resources-and-their-fields-other-nested-objects-no:memorypolicy:write': { rules: ['v1.execute.turn.bodies'] },
  // OutputPolicy | mode | string | `text`, `structured`, `ui`; default `text`
  'v1:resources-and-their-fields-other-nested-objects-no:outputpolicy:mode': { rules: ['v1.execute.turn.bodies'] },
  // OutputPolicy | schemaId | Identifier | optional
  'v1:resources-and-their-fields-other-nested-objects-no:outputpolicy:schemaid': { rules: ['v1.execute.turn.bodies'] },
  // ApprovalReceipt is the inline approval transport for turn requests.
  'v1:resources-and-their-fields-other-nested-objects-no:approvalreceipt-is-the-inline-approval-transport': { rules: ['v1.execute.turn.bodies'] },
  // Its relationship to `action_digest` and `decision` of the approve operation is unspecified.
  'v1:resources-and-their-fields-other-nested-objects-no:its-relationship-to-action-digest-and': { reason: 'UNSPECIFIED' },
  // apiVersion | const `v1` | yes |
  'v1:resources-and-their-fields-turn-request-body-aiplatformchatrequestv1:apiversion': { rules: ['v1.execute.turn.bodies'] },
  // requestId | Identifier | yes |
  'v1:resources-and-their-fields-turn-request-body-aiplatformchatrequestv1:requestid': { rules: ['v1.execute.turn.bodies'] },
  // sessionId | Identifier | no |
  'v1:resources-and-their-fields-turn-request-body-aiplatformchatrequestv1:sessionid': { rules: ['v1.execute.turn.bodies'] },
  // conversationId | Identifier | no |
  'v1:resources-and-their-fields-turn-request-body-aiplatformchatrequestv1:conversationid': { rules: ['v1.execute.turn.bodies'] },
  // organizationId | Identifier | no |
  'v1:resources-and-their-fields-turn-request-body-aiplatformchatrequestv1:organizationid': { rules: ['v1.execute.turn.bodies'] },
  // client | ClientInfo | yes |
  'v1:resources-and-their-fields-turn-request-body-aiplatformchatrequestv1:client': { rules: ['v1.execute.turn.bodies'] },
  // messages | array of Message | yes | 1-512 items
  'v1:resources-and-their-fields-turn-request-body-aiplatformchatrequestv1:messages': { rules: ['v1.execute.turn.bodies'] },
  // modelPreference | string | no | 1-128 chars
  'v1:resources-and-their-fields-turn-request-body-aiplatformchatrequestv1:modelpreference': { rules: ['v1.execute.turn.bodies'] },
  // tools | ToolsFilter | no |
  'v1:resources-and-their-fields-turn-request-body-aiplatformchatrequestv1:tools': { rules: ['v1.execute.turn.bodies'] },
  // approvals | array of ApprovalReceipt | no | default empty; max 64
  'v1:resources-and-their-fields-turn-request-body-aiplatformchatrequestv1:approvals': { rules: ['v1.execute.turn.bodies'] },
  // memory | MemoryPolicy | no | default read `inherit`, write `inherit`
  'v1:resources-and-their-fields-turn-request-body-aiplatformchatrequestv1:memory': { rules: ['v1.execute.turn.bodies'] },
  // output | OutputPolicy | no | default mode `text`
  'v1:resources-and-their-fields-turn-request-body-aiplatformchatrequestv1:output': { rules: ['v1.execute.turn.bodies'] },
  // stream | boolean, const `true` | no | default `true`
  'v1:resources-and-their-fields-turn-request-body-aiplatformchatrequestv1:stream': { rules: ['v1.execute.turn.bodies'] },
  // timeoutMs | integer (milliseconds) | no | 1000-120000
  'v1:resources-and-their-fields-turn-request-body-aiplatformchatrequestv1:timeoutms': { rules: ['v1.execute.turn.bodies'] },
  // idempotencyKey | Identifier | no |
  'v1:resources-and-their-fields-turn-request-body-aiplatformchatrequestv1:idempotencykey': { rules: ['v1.execute.turn.bodies'] },
  // trace | Metadata | no |
  'v1:resources-and-their-fields-turn-request-body-aiplatformchatrequestv1:trace': { rules: ['v1.execute.turn.bodies'] },
  // mode | const `task` | yes |
  'v1:resources-and-their-fields-task-request-body-extra:mode': { rules: ['v1.execute.task.run-id'] },
  // context | object | no | session, conversation, organization and memory scoping
  'v1:resources-and-their-fields-task-request-body-extra:context': { rules: ['v1.execute.task.extra-properties'] },
  // tools | ToolsFilter | no |
  'v1:resources-and-their-fields-task-request-body-extra:tools': { rules: ['v1.execute.task.extra-properties'] },
  // policy | object | no | covers risk ceiling, budget caps, model-lane pin, tool allowlist, approval mode
  'v1:resources-and-their-fields-task-request-body-extra:policy': { rules: ['v1.execute.task.extra-properties'] },
  // delivery | object | no | progress-delivery preference, for example stream or webhook
  'v1:resources-and-their-fields-task-request-body-extra:delivery': { rules: ['v1.execute.task.extra-properties'] },
  // Sub-field shapes of `task`, `context`, `policy` and `delivery`: not shown.
  'v1:resources-and-their-fields-task-request-body-extra:sub-field-shapes-of-task-context': { reason: 'NOT_SHOWN' },
  // The `/v1/execute` request body is one of the two shapes above.
  'v1:resources-and-their-fields-task-request-body-extra:the-v1-execute-request-body-is': { rules: ['v1.execute.turn.stream', 'v1.execute.task.run-id', 'v1.execute.task.task-object'] },
  // action_digest | string | yes | binds the decision to the proposed action
  'v1:resources-and-their-fields-approverequest-no-extra-properties:action-digest': { rules: ['v1.runs.approve.digest-binds'] },
  // decision | string | yes | `approved` and `rejected` are expected by convention, unconfirmed
  'v1:resources-and-their-fields-approverequest-no-extra-properties:decision': { rules: ['v1.runs.approve.decisions'] },
  // Webhook endpoint creation request fields as used in practice: `url` (string, HTTPS, required), `event_types` (array of string), `description` (string)
  'v1:resources-and-their-fields-run-usage-and-webhook:webhook-endpoint-creation-request-fields-as': { rules: ['v1.webhooks.register.filter-field', 'v1.webhooks.url.https-only'] },
  // Fields of the registered endpoint record beyond `signing_secret`: not shown.
  'v1:resources-and-their-fields-run-usage-and-webhook:fields-of-the-registered-endpoint-record': { reason: 'NOT_SHOWN' },
  // Run state names: not shown beyond these conditions: a run can be in flight, parked awaiting approval, or finished.
  'v1:states-and-transitions:run-state-names-not-shown-beyond': { reason: 'NOT_SHOWN' },
  // Transitions: not shown.
  'v1:states-and-transitions:transitions-not-shown': { reason: 'NOT_SHOWN' },
  // Known facts about moves:
  'v1:states-and-transitions:known-facts-about-moves': { reason: 'LEAD_IN' },
  // `POST /v1/runs/{id}/cancel` | cancellation accepted | a terminal `request.cancelled` event is emitted on the run's stream
  'v1:states-and-transitions:post-v1-runs-id-cancel': { rules: ['v1.runs.cancel.terminal-event', 'v1.runs.lifecycle.model'] },
  // `POST /v1/runs/{id}/approve` | run is parked awaiting approval | the resume is delivered and confirmed; the response is `200`
  'v1:states-and-transitions:post-v1-runs-id-approve': { rules: ['v1.runs.approve.resumes', 'v1.runs.lifecycle.model'] },
  // All paths are relative to `{base_url}`.
  'v1:endpoints:all-paths-are-relative-to-base': { reason: 'INFORMATIVE' },
  // POST | `/v1/execute` | JSON body: turn body or task body. Headers: `Idempotency-Key` (optional, Identifier), `X-AI-Platform-Version` (optional, const 
  'v1:endpoints:post:v1-execute': { rules: ['v1.execute.accept-header', 'v1.execute.idempotency.key-format', 'v1.versioning.header', 'v1.execute.turn.stream', 'v1.execute.task.run-id'] },
  // GET | `/v1/runs/{id}` | path `id`: string run identifier | `200` JSON run resource
  'v1:endpoints:get:v1-runs-id': { rules: ['v1.runs.get'] },
  // GET | `/v1/runs/{id}/events` | path `id`; optional header `Last-Event-ID` (string) | `200` `text/event-stream`
  'v1:endpoints:get:v1-runs-id-events': { rules: ['v1.runs.events.identity', 'v1.runs.events.resume'] },
  // POST | `/v1/runs/{id}/approve` | path `id`; JSON ApproveRequest | `200` JSON object with open properties
  'v1:endpoints:post:v1-runs-id-approve': { rules: ['v1.runs.approve.resumes', 'v1.runs.approve.request-shape'] },
  // POST | `/v1/runs/{id}/cancel` | path `id`; no body defined | `200` JSON object with open properties
  'v1:endpoints:post:v1-runs-id-cancel': { rules: ['v1.runs.cancel.terminal-event'] },
  // GET | `/v1/usage` | none defined | `200` JSON, tenant-scoped usage and spend readback
  'v1:endpoints:get:v1-usage': { rules: ['v1.usage.readback', 'v1.usage.tenant-scoped'] },
  // POST | `/v1/webhooks` | JSON webhook registration | `201` JSON with `signing_secret`
  'v1:endpoints:post:v1-webhooks': { rules: ['v1.webhooks.register.created'] },
  // GET | `/v1/webhook-deliveries` | see note | see note
  'v1:endpoints:get:v1-webhook-deliveries': { rules: ['v1.webhooks.deliveries.listing'] },
  // `Idempotency-Key` is scoped to the authenticated principal, tenant, API version and a normalized digest … (quoted by v1.execute.idempotency.scope and .normalized)
  'v1:endpoints-rules:1': { partly: 'the principal, the tenant and the digest; only `v1` exists, so the API version part cannot vary' },
  // A streamed POST is not retried automatically. Retry only by re-sending the identical request with the same idempotency key, after reading back the sta
  'v1:endpoints-rules:5': { rules: ['client.v1.endpoints.streamed-retry', 'client.v1.errors.retry-429-same-key'] },
  // Contents of the approve and cancel response bodies: not shown.
  'v1:endpoints-rules:contents-of-the-approve-and-cancel': { reason: 'NOT_SHOWN' },
  // Query parameters and response shape of the delivery listing: not shown.
  'v1:endpoints-rules:query-parameters-and-response-shape-of': { reason: 'NOT_SHOWN' },
  // Scheme: HTTP bearer. The token is an API key whose format has the prefix `service_sk_`.
  'v1:authentication:scheme-http-bearer-the-token-is': { rules: ['v1.auth.key-prefix'] },
  // Example header shape: `Authorization: Bearer <API_KEY>`.
  'v1:authentication:example-header-shape-authorization-bearer-api': { rules: ['v1.auth.unauthenticated'] },
  // Creating or changing a webhook endpoint needs a key holding both `runs:read` and `runs:write`. (quoted by v1.webhooks.register.scopes-403)
  'v1:authentication:creating-or-changing-a-webhook-endpoint': { partly: 'creation only: no operation that changes an endpoint is shown' },
  // The gateway also accepts identity-provider JWT principals for the operator's own desktop and mobile clients. These are out of scope here.
  'v1:authentication:the-gateway-also-accepts-identity-provider': { reason: 'OUT_OF_SCOPE' },
  // Key issuance, rotation and revocation: not shown.
  'v1:authentication:key-issuance-rotation-and-revocation-not': { reason: 'NOT_SHOWN' },
  // Turn mode on `/v1/execute` and `GET /v1/runs/{id}/events` stream AiPlatformEventV1 items.
  'v1:events-run-event-stream-server-sent-events:turn-mode-on-v1-execute-and': { rules: ['v1.execute.turn.stream', 'v1.runs.events.identity'] },
  // Resume: `Last-Event-ID` carries the `sequence` value of the stored run event. Behavior against real clients is unverified.
  'v1:events-run-event-stream-server-sent-events:resume-last-event-id-carries-the': { rules: ['v1.runs.events.identity', 'v1.runs.events.resume', 'v1.runs.lifecycle.model'] },
  // Known event kinds:
  'v1:events-run-event-stream-server-sent-events:known-event-kinds': { reason: 'LEAD_IN' },
  // `request.accepted` | the request was admitted; carries boolean `replayed` (`true` when the admission is a replay of an earlier request with the same k
  'v1:events-run-event-stream-server-sent-events:request-accepted': { rules: ['v1.execute.turn.accepted-event'] },
  // `request.cancelled` | terminal event emitted after a cancel is accepted
  'v1:events-run-event-stream-server-sent-events:request-cancelled': { rules: ['v1.runs.cancel.terminal-event'] },
  // Event kinds beyond `request.accepted` and `request.cancelled`, and the payload fields of events: not shown.
  'v1:events-run-event-stream-server-sent-events:event-kinds-beyond-request-accepted-and': { reason: 'NOT_SHOWN' },
  // Delivery is at least once and may arrive out of order.
  'v1:events-webhooks:delivery-is-at-least-once-and': { rules: ['v1.webhooks.delivery.sequence-order'] },
  // A receiver rejects a timestamp that differs from its clock by more than 300 seconds (the reference verifier's tolerance).
  'v1:events-webhooks-signature-rules:4': { rules: ['v1.webhooks.delivery.timestamp'] },
  // A receiver returns `401` on a bad signature and `400` if `apiVersion` is not `v1` or header and body event ids differ.
  'v1:events-webhooks-signature-rules:5': { rules: ['receiver.v1.webhooks.bad-signature'] },
  // A receiver persists each `event_id` once (unique) before answering 2xx (`204` in the reference handlers). A duplicate is answered with success without
  'v1:events-webhooks-signature-rules:6': { rules: ['v1.webhooks.delivery.retry', 'receiver.v1.webhooks.accepts-valid', 'receiver.v1.webhooks.duplicate'] },
  // Rejected: localhost, IP literals, private networks, embedded credentials, unsafe redirect targets.
  'v1:events-webhooks-signature-rules:rejected-localhost-ip-literals-private-networks': { rules: ['v1.webhooks.url.loopback-names', 'v1.webhooks.url.ipv4-literal', 'v1.webhooks.url.ipv6-literal', 'v1.webhooks.url.private-network', 'v1.webhooks.url.credentials'] },
  // Behavior confirmed to exist: HMAC signing, exponential retry, dead-letter, per-tenant secret rotation, delivery listing, replay.
  'v1:events-webhooks-signature-rules:behavior-confirmed-to-exist-hmac-signing': { rules: ['v1.webhooks.delivery.retry'], partly: 'signing and retry; the listing and replay are judged under their own sentences, dead-letter is only recorded, and per-tenant secret rotation is not judged' },
  // Full list of webhook event types: not shown.
  'v1:events-webhooks-signature-rules:full-list-of-webhook-event-types': { reason: 'NOT_SHOWN' },
  // Errors are RFC 9457 `application/problem+json`.
  'v1:errors:errors-are-rfc-9457-application-problem': { rules: ['v1.errors.problem-shape'] },
  // type | string, URI | yes |
  'v1:errors:type': { rules: ['v1.errors.problem-shape'] },
  // title | string | yes | 1-256 chars
  'v1:errors:title': { rules: ['v1.errors.problem-shape'] },
  // status | integer | yes | 400-599
  'v1:errors:status': { rules: ['v1.errors.problem-shape'] },
  // detail | string | no | max 2048 chars
  'v1:errors:detail': { rules: ['v1.errors.problem-shape'] },
  // instance | string | no | free-form, not necessarily a URI
  'v1:errors:instance': { rules: ['v1.errors.problem-shape'] },
  // code | ErrorCode | yes |
  'v1:errors:code': { rules: ['v1.errors.problem-shape'] },
  // requestId | Identifier | no |
  'v1:errors:requestid': { rules: ['v1.errors.problem-shape'] },
  // retryable | boolean | yes | authoritative retry signal for this response
  'v1:errors:retryable': { rules: ['v1.errors.problem-shape'] },
  // retryAfterMs | integer | no | at least 0
  'v1:errors:retryafterms': { rules: ['v1.errors.problem-shape'] },
  // fieldErrors | array of FieldError | no | max 64 items
  'v1:errors:fielderrors': { rules: ['v1.errors.problem-shape'] },
  // FieldError: `path` (string, 1-256), `code` (string, 1-96), `message` (string, 1-512), all required.
  'v1:errors:fielderror-path-string-1-256-code': { rules: ['v1.errors.problem-shape'] },
  // ErrorCode values: `authentication_failed`, `authorization_failed`, `entitlement_failed`, `rate_limited`, `invalid_request`, `provider_failed`, `tool_f
  'v1:errors:errorcode-values-authentication-failed-authorization-failed': { rules: ['v1.errors.problem-shape'] },
  // Over the rate limit: HTTP `429`, `code` `rate_limited`, `retryable:true`, optional `retryAfterMs`. A numeric `Retry-After` header is expected alongsid
  'v1:errors-rules:1': { rules: ['v1.errors.rate-limited', 'v1.errors.rate-limited-retry-after', 'client.v1.limits.retry-after'] },
  // Mapping of each `code` to an HTTP status: not shown.
  // Each API key has its own rate-limit tier, enforced fail-closed. The limiter window on comparable public limits is 60 seconds. Use 60 seconds as the re
  'v1:limits:each-api-key-has-its-own': { rules: ['v1.errors.rate-limited', 'v1.errors.limiter-unavailable-503', 'client.v1.limits.retry-after', 'client.v1.limits.default-retry-hint'], partly: 'the 429 and the fail-closed 503; that each key has a tier of its own is judged only indirectly (another key\'s request after a 429 is served)' },
  // Per-key tier values and request-rate numbers: not shown.
  'v1:limits:per-key-tier-values-and-request': { reason: 'NOT_SHOWN' },
  // Path prefix: `/v1`.
  'v1:versioning:path-prefix-v1': { reason: 'INFORMATIVE' },
  // Body field `apiVersion` is the constant `v1` on turn requests and webhook bodies.
  'v1:versioning:body-field-apiversion-is-the-constant': { rules: ['v1.execute.turn.bodies', 'v1.webhooks.delivery.body'] },
  // The description version is `1.0.0-preview`, and the interface is labelled contract-stable for its first major version.
  'v1:versioning:the-description-version-is-1-0': { reason: 'INFORMATIVE' },
  // Deprecation and compatibility policy beyond `v1`: not shown.
  'v1:versioning:deprecation-and-compatibility-policy-beyond-v1': { reason: 'NOT_SHOWN' },
  // This document covers the `/v8` REST gateway and `/mcp`, served at `{base_url}`, the HTTPS the service of a deployment: governed missions, signals, eve
  'v8:integration-gateway-api-v8-1-0:this-document-covers-the-v8-rest': { reason: 'INFORMATIVE' },
  // A separate document covers the `/v1` execution fabric (developer preview).
  'v8:integration-gateway-api-v8-1-0:a-separate-document-covers-the-v1': { reason: 'INFORMATIVE' },
  // The gateway accepts goal specifications with resource budgets and records them durably as missions. It hands them to a private policy and broker plane
  'v8:what-the-service-does:the-gateway-accepts-goal-specifications-with': { rules: ['v8.missions.create.accepted', 'v8.missions.get.ok'] },
  // Provider outcomes are verified asynchronously. A `202` on creation confirms durable receipt, not completion.
  'v8:what-the-service-does:provider-outcomes-are-verified-asynchronously-a': { rules: ['v8.missions.create.accepted'] },
  // Models, SDKs, CLIs and MCP tools hold no action authority. Every effect is governed by policy and consent controls. Search results and skill definitio
  'v8:what-the-service-does:models-sdks-clis-and-mcp-tools': { reason: 'INTERNAL' },
  // `{base_url}` is the deployment's own HTTPS the service. No shared route exists.
  'v8:what-the-service-does:base-url-is-the-deployment-s': { reason: 'DEPLOYMENT' },
  // runId | string, UUID v7 | yes |
  'v8:resources-and-their-fields-mission-projection-responses-of:runid': { rules: ['v8.missions.create.accepted'] },
  // status | string | yes | `running`, `waiting`, `succeeded`, `failed`, `cancelled`
  'v8:resources-and-their-fields-mission-projection-responses-of:status': { rules: ['v8.missions.create.accepted', 'v8.missions.get.ok'] },
  // sequence | integer | yes | monotonically increasing; a higher value is a later state
  'v8:resources-and-their-fields-mission-projection-responses-of:sequence': { rules: ['v8.missions.sequence.monotonic'] },
  // steps | array of step summary | yes | empty right after creation; ordered
  'v8:resources-and-their-fields-mission-projection-responses-of:steps': { rules: ['v8.missions.create.accepted', 'v8.missions.get.ok'] },
  // Step summary: `stepId` (string), `status` (string; examples `completed`, `failed`, `running`).
  'v8:resources-and-their-fields-mission-projection-responses-of:step-summary-stepid-string-status-string': { rules: ['v8.missions.get.ok'] },
  // The full list of step status values: not shown.
  'v8:resources-and-their-fields-mission-projection-responses-of:the-full-list-of-step-status': { reason: 'NOT_SHOWN' },
  // goalSpec | object | yes | opaque to the gateway and forwarded intact
  'v8:resources-and-their-fields-goal-specification-and-budget:goalspec': { rules: ['v8.missions.create.missing-fields'] },
  // goalSpec.task | string | yes | natural-language task
  'v8:resources-and-their-fields-goal-specification-and-budget:goalspec-task': { rules: ['v8.missions.create.missing-fields'] },
  // resourceBudget | object | yes | all four fields required
  'v8:resources-and-their-fields-goal-specification-and-budget:resourcebudget': { rules: ['v8.missions.create.missing-fields'] },
  // resourceBudget.maximumSteps | integer | yes | at least 1
  'v8:resources-and-their-fields-goal-specification-and-budget:resourcebudget-maximumsteps': { rules: ['v8.missions.create.budget-bounds'] },
  // resourceBudget.maximumToolCalls | integer | yes | at least 0; `0` means planning only
  'v8:resources-and-their-fields-goal-specification-and-budget:resourcebudget-maximumtoolcalls': { rules: ['v8.missions.create.budget-bounds'] },
  // resourceBudget.maximumElapsedMs | integer (ms) | yes | at least 1; measured from when execution begins
  'v8:resources-and-their-fields-goal-specification-and-budget:resourcebudget-maximumelapsedms': { rules: ['v8.missions.create.budget-bounds', 'v8.missions.time-limit.terminal'] },
  // resourceBudget.maximumParallelism | integer | yes | 1-64
  'v8:resources-and-their-fields-goal-specification-and-budget:resourcebudget-maximumparallelism': { rules: ['v8.missions.create.budget-bounds'] },
  // payload | any JSON value (object, array, string, number or boolean) | yes | shape is set by the agent's handler, not the gateway
  'v8:resources-and-their-fields-signal-request:payload': { rules: ['v8.missions.signals.validation', 'v8.missions.signals.accepted'] },
  // queryEmbedding | array of number | no | 1-4096 items; when given, used instead of embedding `queryText`
  'v8:resources-and-their-fields-memory-query-request:queryembedding': { rules: ['v8.memory.query.bounds'] },
  // Entries are in descending relevance and are purpose-filtered and bounded by the limits above.
  'v8:resources-and-their-fields-memory-query-request:entries-are-in-descending-relevance-and': { rules: ['v8.memory.query.order'], partly: 'the order, the limit and maxContextBytes; which entries a purpose admits is not shown, and maxContextTokens counts tokens of a tokenizer the seed does not name (recorded, not judged)' },
  // Entry shape beyond the fields listed: not shown.
  'v8:resources-and-their-fields-memory-query-request:entry-shape-beyond-the-fields-listed': { reason: 'NOT_SHOWN' },
  // kind | string | `api`, `mcp`, `a2a_agent`, `browser`, `device`, `skill`, `human`
  'v8:resources-and-their-fields-capability-search-request-and:kind': { rules: ['v8.capabilities.search.ok'] },
  // version | string | contract version
  'v8:resources-and-their-fields-capability-search-request-and:version': { rules: ['v8.capabilities.search.ok'] },
  // contractHash | string | 64 lowercase hex chars (SHA-256 of the contract)
  'v8:resources-and-their-fields-capability-search-request-and:contracthash': { rules: ['v8.capabilities.search.ok'] },
  // healthState | string | `healthy`, `degraded`, `unavailable`, `quarantined`
  'v8:resources-and-their-fields-capability-search-request-and:healthstate': { rules: ['v8.capabilities.search.ok'] },
  // capabilityId | string | stable unique id (quoted by v8.capabilities.search.ok)
  'v8:resources-and-their-fields-capability-search-request-and:capabilityid': { partly: 'unique within one answer; whether an id stays the same from one search to the next ("stable") is not judged' },
  // A `quarantined` capability cannot be invoked.
  'v8:resources-and-their-fields-capability-search-request-and:a-quarantined-capability-cannot-be-invoked': { reason: 'NO_INVOKE' },
  // Optional: `completedAt` (absent when the step did not complete), `elapsedMs` (integer).
  'v8:resources-and-their-fields-trace-get-v8-traces:optional-completedat-absent-when-the-step': { rules: ['v8.traces.get.completed-at'] },
  // Operation fields, all optional: `operationId` (string), `kind` (`observation`, `tool-call`, `sub-step`, `branch`), `toolCallId` (string; present for `
  'v8:resources-and-their-fields-trace-get-v8-traces:operation-fields-all-optional-operationid-string': { rules: ['v8.traces.get.ok'] },
  // skillId | string |
  'v8:resources-and-their-fields-skill-get-v8-skills:skillid': { rules: ['v8.skills.get.ok'] },
  // name | string | display name
  'v8:resources-and-their-fields-skill-get-v8-skills:name': { rules: ['v8.skills.get.ok'] },
  // description | string |
  'v8:resources-and-their-fields-skill-get-v8-skills:description': { rules: ['v8.skills.get.ok'] },
  // version | string |
  'v8:resources-and-their-fields-skill-get-v8-skills:version': { rules: ['v8.skills.get.ok'] },
  // healthState | string | `healthy`, `degraded`, `unavailable`, `quarantined`
  'v8:resources-and-their-fields-skill-get-v8-skills:healthstate': { rules: ['v8.skills.get.ok'] },
  // requiredScopes | array of string | scopes needed to invoke in a mission
  'v8:resources-and-their-fields-skill-get-v8-skills:requiredscopes': { rules: ['v8.skills.get.ok'] },
  // inputSchema | object | a JSON Schema
  'v8:resources-and-their-fields-skill-get-v8-skills:inputschema': { rules: ['v8.skills.get.ok'] },
  // evidenceState | object | `lastVerifiedAt` (timestamp), `evidenceScore` (number 0-1), `verificationPassed` (boolean)
  'v8:resources-and-their-fields-skill-get-v8-skills:evidencestate': { rules: ['v8.skills.get.ok'] },
  // Fields per goal:
  'v8:resources-and-their-fields-context-goal-get-v8:fields-per-goal': { reason: 'LEAD_IN' },
  // goalId | string |
  'v8:resources-and-their-fields-context-goal-get-v8:goalid': { rules: ['v8.goals.shape'] },
  // title | string |
  'v8:resources-and-their-fields-context-goal-get-v8:title': { rules: ['v8.goals.shape'] },
  // description | string |
  'v8:resources-and-their-fields-context-goal-get-v8:description': { rules: ['v8.goals.shape'] },
  // compartment | string | (the memory query row of the same words is v8.memory.query.bounds's, another table)
  'v8:resources-and-their-fields-context-goal-get-v8:compartment': { rules: ['v8.goals.compartment-boundary'] },
  // Goals outside the caller's compartment or purpose boundary are silently excluded. (quoted by v8.goals.compartment-boundary)
  'v8:resources-and-their-fields-context-goal-get-v8:goals-outside-the-caller-s-compartment': { partly: 'the compartment boundary only: a goal carries no purpose and a listing names none, so the purpose boundary cannot be judged' },
  // Fields per certificate:
  'v8:resources-and-their-fields-world-certificate-get-v8:fields-per-certificate': { reason: 'LEAD_IN' },
  // certificateId | string |
  'v8:resources-and-their-fields-world-certificate-get-v8:certificateid': { rules: ['v8.certificates.shape'] },
  // domain | string | external system or domain covered
  'v8:resources-and-their-fields-world-certificate-get-v8:domain': { rules: ['v8.certificates.shape'] },
  // head | string | hash of the knowledge snapshot
  'v8:resources-and-their-fields-world-certificate-get-v8:head': { rules: ['v8.certificates.shape'] },
  // signature | string | Ed25519 signature by the verifier plane
  'v8:resources-and-their-fields-world-certificate-get-v8:signature': { rules: ['v8.certificates.shape'] },
  // gatewayVersion | string
  'v8:resources-and-their-fields-coverage-report-get-v8:gatewayversion': { rules: ['v8.coverage.shape'] },
  // contractVersion | string
  'v8:resources-and-their-fields-coverage-report-get-v8:contractversion': { rules: ['v8.coverage.shape', 'v8.coverage.contract-version'] },
  // Scores measure verification depth, not production readiness.
  'v8:resources-and-their-fields-coverage-report-get-v8:scores-measure-verification-depth-not-production': { reason: 'INFORMATIVE' },
  // The report shows only what the caller's scopes permit. (quoted by v8.coverage.scope-filtered)
  'v8:resources-and-their-fields-coverage-report-get-v8:the-report-shows-only-what-the': { partly: 'the `endpoints` list only; whether capabilityKinds and overallEvidenceScore shrink for a narrower token is not stated, so it is left open' },
  // Mission states: `running`, `waiting`, `succeeded`, `failed`, `cancelled`.
  'v8:states-and-transitions:mission-states-running-waiting-succeeded-failed': { rules: ['v8.missions.create.accepted', 'v8.missions.get.ok'] },
  // `succeeded`, `failed` and `cancelled` are terminal.
  'v8:states-and-transitions:succeeded-failed-and-cancelled-are-terminal': { rules: ['v8.missions.states.terminal-event-matches-status', 'v8.missions.signals.terminal-409'] },
  // (none) | `POST /v8/missions` | intake accepted | `running` or `waiting` (almost always one of these) | `202`; the mission projection has empty `steps`
  'v8:states-and-transitions:none:post-v8-missions': { rules: ['v8.missions.create.accepted'] },
  // `running` or `waiting` | agent finishes | goal satisfied | `succeeded` | event `mission.completed`
  'v8:states-and-transitions:running-or-waiting:agent-finishes': { rules: ['v8.missions.states.terminal-event-matches-status'] },
  // `running` or `waiting` | budget limit reached, policy rejection or unrecoverable error | | `failed` | event `mission.failed`
  'v8:states-and-transitions:running-or-waiting:budget-limit-reached-policy-rejection-or': { rules: ['v8.missions.states.terminal-event-matches-status'] },
  // `running` or `waiting` | `maximumElapsedMs` elapses | regardless of step and tool-call counts | `cancelled` (as stated for the time limit; the budget 
  'v8:states-and-transitions:running-or-waiting:maximumelapsedms-elapses': { rules: ['v8.missions.time-limit.terminal'] },
  // `running` or `waiting` | `POST /v8/missions/{runId}/cancel` | | `cancelled` | event `mission.cancelled`
  'v8:states-and-transitions:running-or-waiting:post-v8-missions-runid-cancel': { rules: ['v8.missions.cancel.cancelled', 'v8.missions.lifecycle.model'] },
  // terminal state | `POST .../signals` | | unchanged | `409`
  'v8:states-and-transitions:terminal-state:post-signals': { rules: ['v8.missions.signals.terminal-409', 'v8.missions.lifecycle.model'] },
  // Transitions out of `waiting` (for example on receipt of a signal): not shown.
  'v8:states-and-transitions:transitions-out-of-waiting-for-example': { reason: 'NOT_SHOWN' },
  // All paths relative to `{base_url}`.
  'v8:endpoints:all-paths-relative-to-base-url': { reason: 'INFORMATIVE' },
  // Header `Authorization: Bearer <ACCESS_TOKEN>` is required on every `/v8` call.
  'v8:endpoints:header-authorization-bearer-access-token-is': { rules: ['v8.missions.auth.missing-token-401', 'v8.auth.scope-matrix'] },
  // Error statuses are in Errors.
  // POST | `/v8/missions` | `missions:write` | headers `Idempotency-Key`, `Content-Type: application/json`; body goalSpec and resourceBudget | `202` missi
  'v8:endpoints:post:v8-missions': { rules: ['v8.missions.create.accepted', 'v8.missions.idempotency.key-required', 'v8.auth.scope-matrix'] },
  // GET | `/v8/missions/{runId}` | `missions:read` | path `runId` (UUID v7) | `200` mission projection
  'v8:endpoints:get:v8-missions-runid': { rules: ['v8.missions.get.ok'] },
  // GET | `/v8/missions/{runId}/events` | `missions:read` | path `runId`; header `Accept: text/event-stream`; optional `Last-Event-ID` | `200` `text/event
  'v8:endpoints:get:v8-missions-runid-events': { rules: ['v8.missions.events.shape', 'v8.missions.events.resume', 'v8.auth.scope-matrix'] },
  // POST | `/v8/missions/{runId}/signals` | `missions:write` | headers `Idempotency-Key`, `Content-Type`; body signal and payload | `200`, empty body; the
  'v8:endpoints:post:v8-missions-runid-signals': { rules: ['v8.missions.signals.accepted', 'v8.missions.signals.key-required'] },
  // POST | `/v8/missions/{runId}/cancel` | see Authentication | header `Idempotency-Key` required | see note
  'v8:endpoints:post:v8-missions-runid-cancel': { rules: ['v8.missions.cancel.key-required'] },
  // POST | `/v8/capabilities/search` | `capabilities:read` | body actionFamily, purpose, targetType | `200` array of manifests
  'v8:endpoints:post:v8-capabilities-search': { rules: ['v8.capabilities.search.ok', 'v8.auth.scope-matrix'] },
  // POST | `/v8/memory/query` | `memory:read` | body as in Resources | `200` memory bundle
  'v8:endpoints:post:v8-memory-query': { rules: ['v8.memory.query.ok', 'v8.auth.scope-matrix'] },
  // GET | `/v8/skills/{skillId}` | `skills:read` | path `skillId`: string, 1-256 chars, pattern `^[A-Za-z0-9][A-Za-z0-9._:-]*$` | `200` skill
  'v8:endpoints:get:v8-skills-skillid': { rules: ['v8.skills.get.path-bounds'] },
  // GET | `/v8/traces/{traceId}` | `traces:read` | path `traceId`: string, 1-256 chars, same pattern | `200` trace
  'v8:endpoints:get:v8-traces-traceid': { rules: ['v8.traces.get.path-bounds'] },
  // GET | `/v8/context-twin/goals` | `context:read` | none | `200` goals
  'v8:endpoints:get:v8-context-twin-goals': { rules: ['v8.goals.shape', 'v8.auth.scope-matrix'] },
  // GET | `/v8/world-model/certificates` | `world:read` | none | `200` certificates
  'v8:endpoints:get:v8-world-model-certificates': { rules: ['v8.certificates.shape', 'v8.auth.scope-matrix'] },
  // GET | `/v8/coverage` | `coverage:read` | none | `200` coverage report
  'v8:endpoints:get:v8-coverage': { rules: ['v8.coverage.shape', 'v8.auth.scope-matrix'] },
  // POST | `/mcp` | see Authentication | MCP 2025-03-26 Streamable HTTP JSON-RPC | see note
  'v8:endpoints:post:mcp': { rules: ['mcp.lifecycle.initialize-result', 'mcp.transport.request-response', 'mcp.auth.expired-401'] },
  // GET | `/mcp` | | none | `405 Method Not Allowed`, no JSON success body (server-to-client push is disabled)
  'v8:endpoints:get:mcp': { rules: ['mcp.transport.get-405'] },
  // A body containing `principalId` is rejected with `403` on memory query and capability search. The gateway takes the principal from the token.
  'v8:endpoints-rules:1': { rules: ['v8.memory.query.principal-403', 'v8.principal.from-token'] },
  // Mutating operations require `Idempotency-Key`: 16-128 characters, only alphanumerics and `.`, `_`, `:`, `-`. Reads, search and query do not.
  'v8:endpoints-rules:2': { rules: ['v8.missions.idempotency.key-required', 'v8.missions.idempotency.key-format', 'client.v8.endpoints.idempotency-key'] },
  // Replay with the same key and the same body returns the original response without re-executing. The same key with a different body gives `409`.
  'v8:endpoints-rules:3': { rules: ['v8.missions.idempotency.replay', 'v8.missions.idempotency.conflict', 'v8.missions.signals.replay', 'v8.missions.cancel.replay', 'v8.missions.lifecycle.model'] },
  // Mission events stream text/event-stream and everything else returns JSON. The stream closes after a terminal event.
  'v8:endpoints-rules:5': { rules: ['v8.missions.events.shape', 'v8.missions.events.closes-after-terminal'] },
  // Cancel request body and response body: not shown.
  'v8:endpoints-rules:cancel-request-body-and-response-body': { reason: 'NOT_SHOWN' },
  // JSON-RPC methods and payloads of `/mcp`: not shown.
  'v8:endpoints-rules:json-rpc-methods-and-payloads-of': { reason: 'NOT_SHOWN' },
  // Scheme: `Authorization: Bearer <ACCESS_TOKEN>`. The token is a short-lived delegated OAuth token signed with Ed25519.
  'v8:authentication:scheme-authorization-bearer-access-token-the': { rules: ['v8.missions.auth.missing-token-401', 'v8.missions.auth.expired-token-401'] },
  // Scopes: `missions:write`, `missions:read`, `memory:read`, `capabilities:read`, `traces:read`, `skills:read`, `context:read`, `world:read`, `coverage:r
  'v8:authentication:scopes-missions-write-missions-read-memory': { rules: ['v8.auth.scope-matrix'] },
  // A missing or expired token gives `401`. A token without the scope required for the endpoint gives `403`.
  'v8:authentication:a-missing-or-expired-token-gives': { rules: ['v8.missions.auth.missing-token-401', 'v8.missions.auth.expired-token-401', 'v8.missions.auth.scope-403', 'mcp.auth.expired-401'] },
  // The principal is derived from the token. Mission, trace and skill lookups are limited to the caller's principal and policy scope; a resource outside i
  'v8:authentication:the-principal-is-derived-from-the': { rules: ['v8.missions.get.other-principal-404', 'v8.auth.scope-matrix', 'v8.principal.from-token'] },
  // Coverage results depend on the token's scopes. (quoted by v8.coverage.scope-filtered)
  'v8:authentication:coverage-results-depend-on-the-token': { partly: 'the `endpoints` list only; whether capabilityKinds and overallEvidenceScore depend on the scopes too is not stated, so it is left open' },
  // Where and how tokens are obtained: not shown.
  'v8:authentication:where-and-how-tokens-are-obtained': { reason: 'NOT_SHOWN' },
  // SSE stream at `GET /v8/missions/{runId}/events`.
  'v8:events:sse-stream-at-get-v8-missions': { rules: ['v8.missions.events.shape'] },
  // `id` | opaque stable cursor; send it back as `Last-Event-ID` to resume
  'v8:events:id': { rules: ['v8.missions.events.resume', 'v8.missions.events.shape'] },
  // `event` | event type
  'v8:events:event': { rules: ['v8.missions.events.shape'] },
  // `data` | JSON payload specific to the type
  'v8:events:data': { rules: ['v8.missions.events.shape'] },
  // `mission.started` | the agent first begins executing the mission
  'v8:events:mission-started': { rules: ['v8.missions.events.shape'] },
  // `mission.step.started` | a new reasoning or tool-call step begins; data includes `traceId`
  'v8:events:mission-step-started': { rules: ['v8.missions.events.trace-id'] },
  // `mission.step.completed` | a step finishes successfully; data includes `stepId`, `traceId` and a result summary
  'v8:events:mission-step-completed': { rules: ['v8.missions.events.trace-id'], partly: 'the `stepId` and `traceId`; "a result summary" names no field, so its presence is not judged' },
  // `mission.cancelled` | mission reached `cancelled`; stream closes
  'v8:events:mission-cancelled': { rules: ['v8.missions.cancel.cancelled', 'v8.missions.events.closes-after-terminal'] },
  // The stream is resumable within a bounded replay window. A `Last-Event-ID` outside the window gives `409`, and the client must re-fetch from the beginn
  'v8:events-rules:1': { rules: ['v8.missions.events.replay-window-409', 'v8.missions.lifecycle.model', 'client.v8.events.replay-window'] },
  // Data payload fields of `mission.started`, `mission.completed`, `mission.failed` and `mission.cancelled`: not shown.
  'v8:events-rules:data-payload-fields-of-mission-started': { reason: 'NOT_SHOWN' },
  // Size or duration of the replay window: not shown.
  'v8:events-rules:size-or-duration-of-the-replay': { reason: 'NOT_SHOWN' },
  // `POST /v8/missions` | `400` missing fields, budget out of range, malformed JSON
  'v8:errors:post-v8-missions:400': { rules: ['v8.missions.create.malformed-json', 'v8.missions.create.missing-fields', 'v8.missions.create.budget-bounds'] },
  // `POST /v8/missions` | `401` token missing or expired
  'v8:errors:post-v8-missions:401': { rules: ['v8.missions.auth.missing-token-401', 'v8.missions.auth.expired-token-401'] },
  // `POST /v8/missions` | `403` no `missions:write`
  'v8:errors:post-v8-missions:403': { rules: ['v8.missions.auth.scope-403'] },
  // `POST /v8/missions` | `409` same `Idempotency-Key` with a different body
  'v8:errors:post-v8-missions:409': { rules: ['v8.missions.idempotency.conflict'] },
  // `POST /v8/missions` | `429` rate limit for the principal
  'v8:errors:post-v8-missions:429': { rules: ['v8.missions.rate-limit-429'] },
  // `GET /v8/missions/{runId}` | `401`
  'v8:errors:get-v8-missions-runid:401': { rules: ['v8.auth.scope-matrix'] },
  // `GET /v8/missions/{runId}` | `403` no `missions:read`
  'v8:errors:get-v8-missions-runid:403': { rules: ['v8.auth.scope-matrix'] },
  // `GET /v8/missions/{runId}` | `404` no such mission for the principal
  'v8:errors:get-v8-missions-runid:404': { rules: ['v8.missions.get.unknown-404'] },
  // `GET /v8/missions/{runId}/events` | `401`
  'v8:errors:get-v8-missions-runid-events:401': { rules: ['v8.auth.scope-matrix'] },
  // `GET /v8/missions/{runId}/events` | `403`
  'v8:errors:get-v8-missions-runid-events:403': { rules: ['v8.auth.scope-matrix'] },
  // `GET /v8/missions/{runId}/events` | `404`
  'v8:errors:get-v8-missions-runid-events:404': { rules: ['v8.missions.events.unknown-404'] },
  // `GET /v8/missions/{runId}/events` | `409` `Last-Event-ID` outside the replay window
  'v8:errors:get-v8-missions-runid-events:409': { rules: ['v8.missions.events.replay-window-409'] },
  // `POST /v8/missions/{runId}/signals` | `400` missing fields or `signal` over 256 chars
  'v8:errors:post-v8-missions-runid-signals:400': { rules: ['v8.missions.signals.validation'] },
  // `POST /v8/missions/{runId}/signals` | `401`
  'v8:errors:post-v8-missions-runid-signals:401': { rules: ['v8.auth.scope-matrix'] },
  // `POST /v8/missions/{runId}/signals` | `403`
  'v8:errors:post-v8-missions-runid-signals:403': { rules: ['v8.auth.scope-matrix'] },
  // `POST /v8/missions/{runId}/signals` | `404`
  // scope-matrix: another principal's mission; generated.error-status: a runId no mission has.
  'v8:errors:post-v8-missions-runid-signals:404': { rules: ['v8.auth.scope-matrix', 'v8.contract.generated.error-status'] },
  // `POST /v8/missions/{runId}/signals` | `409` terminal mission or different body with same key
  'v8:errors:post-v8-missions-runid-signals:409': { rules: ['v8.missions.signals.idempotency-conflict', 'v8.missions.signals.terminal-409'] },
  // `POST /v8/capabilities/search` | `400`
  'v8:errors:post-v8-capabilities-search:400': { rules: ['v8.capabilities.search.validation'] },
  // `POST /v8/capabilities/search` | `401`
  'v8:errors:post-v8-capabilities-search:401': { rules: ['v8.auth.scope-matrix'] },
  // `POST /v8/capabilities/search` | `403` no `capabilities:read` or `principalId` in body
  'v8:errors:post-v8-capabilities-search:403': { rules: ['v8.auth.scope-matrix', 'v8.capabilities.search.principal-403'] },
  // `POST /v8/memory/query` | `400` missing fields, empty `classes` or bounds exceeded
  'v8:errors:post-v8-memory-query:400': { rules: ['v8.memory.query.bounds'] },
  // `POST /v8/memory/query` | `401`
  'v8:errors:post-v8-memory-query:401': { rules: ['v8.auth.scope-matrix'] },
  // `POST /v8/memory/query` | `403` no `memory:read`, `principalId` in body, or purpose not permitted
  'v8:errors:post-v8-memory-query:403': { rules: ['v8.auth.scope-matrix', 'v8.memory.query.principal-403', 'v8.memory.query.purpose-403'] },
  // `GET /v8/traces/{traceId}` | `401`
  'v8:errors:get-v8-traces-traceid:401': { rules: ['v8.auth.scope-matrix'] },
  // `GET /v8/traces/{traceId}` | `403`
  'v8:errors:get-v8-traces-traceid:403': { rules: ['v8.auth.scope-matrix'] },
  // `GET /v8/traces/{traceId}` | `404`
  'v8:errors:get-v8-traces-traceid:404': { rules: ['v8.traces.get.unknown-404'] },
  // `GET /v8/skills/{skillId}` | `401`
  'v8:errors:get-v8-skills-skillid:401': { rules: ['v8.auth.scope-matrix'] },
  // `GET /v8/skills/{skillId}` | `403`
  'v8:errors:get-v8-skills-skillid:403': { rules: ['v8.auth.scope-matrix'] },
  // `GET /v8/skills/{skillId}` | `404`
  'v8:errors:get-v8-skills-skillid:404': { rules: ['v8.skills.get.unknown-404'] },
  // `GET /v8/context-twin/goals`, `/v8/world-model/certificates`, `/v8/coverage` | `401`
  'v8:errors:get-v8-context-twin-goals-v8-world-model:401': { rules: ['v8.auth.scope-matrix'] },
  // `GET /v8/context-twin/goals`, `/v8/world-model/certificates`, `/v8/coverage` | `403`
  'v8:errors:get-v8-context-twin-goals-v8-world-model:403': { rules: ['v8.auth.scope-matrix'] },
  // `GET /mcp` | `405`
  'v8:errors:get-mcp:405': { rules: ['mcp.transport.get-405'] },
  // Values of the `code` field on this surface: not shown.
  'v8:errors:values-of-the-code-field-on': { reason: 'NOT_SHOWN' },
  // Idempotency key length | 16-128 chars, characters `A-Za-z0-9`, `.`, `_`, `:`, `-`
  'v8:limits:idempotency-key-length': { rules: ['v8.missions.idempotency.key-format'] },
  // signal name | 1-256 chars
  'v8:limits:signal-name': { rules: ['v8.missions.signals.validation'] },
  // memory compartment / purpose / queryText | 1-128 / 1-256 / 1-32768 chars
  'v8:limits:memory-compartment-purpose-querytext': { rules: ['v8.memory.query.bounds'] },
  // memory classes | 1-64 unique items, each 1-128 chars
  'v8:limits:memory-classes': { rules: ['v8.memory.query.bounds'] },
  // memory limit | 1-50, default 10
  'v8:limits:memory-limit': { rules: ['v8.memory.query.bounds', 'v8.memory.query.limits'] },
  // maxContextBytes / maxContextTokens | 64-1048576 / 16-262144
  'v8:limits:maxcontextbytes-maxcontexttokens': { rules: ['v8.memory.query.bounds'] },
  // queryEmbedding | 1-4096 numbers
  'v8:limits:queryembedding': { rules: ['v8.memory.query.bounds'] },
  // capability search fields | 128 / 256 / 128 chars (actionFamily / purpose / targetType)
  'v8:limits:capability-search-fields': { rules: ['v8.capabilities.search.validation'] },
  // capability search results | at most 256
  'v8:limits:capability-search-results': { rules: ['v8.capabilities.search.ok'] },
  // Its numeric values: not shown.
  'v8:limits:its-numeric-values-not-shown': { reason: 'NOT_SHOWN' },
  // Gateway version `8.1.0`, under the `/v8/` path prefix. All v8 paths share one wire contract.
  'v8:versioning:gateway-version-8-1-0-under': { rules: ['v8.contract.version-header'] },
  // Every response carries header `x-service-contract-version` with the value `service-integration-gateway-v8.1`. Clients can check it before sending miss
  'v8:versioning:every-response-carries-header-x-service': { rules: ['v8.coverage.contract-version', 'v8.contract.version-header', 'client.v8.versioning.contract-check'] },
  // Deprecation and compatibility policy: not shown.
  'v8:versioning:deprecation-and-compatibility-policy-not-shown': { reason: 'NOT_SHOWN' },
  // MCP uses JSON-RPC to encode messages.
  'mcp-transports:transports:mcp-uses-json-rpc-to-encode': { reason: 'INFORMATIVE' },
  // JSON-RPC messages MUST be UTF-8 encoded.
  'mcp-transports:transports:json-rpc-messages-must-be-utf': { rules: ['mcp.jsonrpc.parse-error', 'mcp.lifecycle.initialize-result'] },
  // The server MUST provide a single HTTP endpoint path (hereafter referred to as the MCP endpoint) that supports both POST and GET methods.
  'mcp-transports:streamable-http:the-server-must-provide-a-single': { rules: ['mcp.transport.get-405', 'mcp.transport.request-response'] },
  // Servers MUST validate the `Origin` header on all incoming connections to prevent DNS rebinding attacks
  'mcp-transports:streamable-http-security-warning:1': { rules: ['mcp.transport.origin', 'mcp.transport.host'] },
  // When running locally, servers SHOULD bind only to localhost (127.0.0.1) rather than all network interfaces (0.0.0.0)
  'mcp-transports:streamable-http-security-warning:2': { reason: 'DEPLOYMENT' },
  // Servers SHOULD implement proper authentication for all connections
  'mcp-transports:streamable-http-security-warning:3': { rules: ['mcp.auth.tokens', 'mcp.auth.expired-401'] },
  // The body of the POST request MUST be one of the following:
  'mcp-transports:streamable-http-sending-messages-to-the-server:3': { reason: 'LEAD_IN' },
  // A single JSON-RPC request, notification, or response
  'mcp-transports:streamable-http-sending-messages-to-the-server:a-single-json-rpc-request-notification': { rules: ['mcp.transport.request-response', 'mcp.transport.accepted-202', 'mcp.jsonrpc.parse-error', 'mcp.jsonrpc.invalid-request', 'mcp.jsonrpc.method-not-found', 'mcp.jsonrpc.invalid-params'] },
  // An array batching one or more requests and/or notifications
  'mcp-transports:streamable-http-sending-messages-to-the-server:an-array-batching-one-or-more': { rules: ['mcp.batch.answer-array', 'mcp.batch.empty'] },
  // An array batching one or more responses
  'mcp-transports:streamable-http-sending-messages-to-the-server:an-array-batching-one-or-more~2': { reason: 'NO_SERVER_REQUEST' },
  // If the server cannot accept the input, it MUST return an HTTP error status code (e.g., 400 Bad Request). The HTTP response body MAY comprise a JSON-RP
  'mcp-transports:streamable-http-sending-messages-to-the-server:if-the-server-cannot-accept-the': { rules: ['mcp.transport.accepted-202'] },
  // If the input contains any number of JSON-RPC requests, the server MUST either return `Content-Type: text/event-stream`, to initiate an SSE stream, or 
  'mcp-transports:streamable-http-sending-messages-to-the-server:5': { rules: ['mcp.transport.request-response', 'mcp.jsonrpc.result-xor-error', 'mcp.jsonrpc.id-echoed'] },
  // If the server initiates an SSE stream:
  'mcp-transports:streamable-http-sending-messages-to-the-server:6': { reason: 'LEAD_IN' },
  // The SSE stream SHOULD eventually include one JSON-RPC response per each JSON-RPC request sent in the POST body. These responses MAY be batched.
  'mcp-transports:streamable-http-sending-messages-to-the-server:the-sse-stream-should-eventually-include': { rules: ['mcp.transport.request-response', 'mcp.sse.closes-after-response'] },
  // The server MAY send JSON-RPC requests and notifications before sending a JSON-RPC response. These messages SHOULD relate to the originating client req
  'mcp-transports:streamable-http-sending-messages-to-the-server:the-server-may-send-json-rpc': { reason: 'MAY' },
  // The server SHOULD NOT close the SSE stream before sending a JSON-RPC response per each received JSON-RPC request, unless the session expires.
  'mcp-transports:streamable-http-sending-messages-to-the-server:the-server-should-not-close-the': { rules: ['mcp.sse.closes-after-response'] },
  // The client MAY issue an HTTP GET to the MCP endpoint. This can be used to open an SSE stream, allowing the server to communicate to the client, without the client first sending data via HTTP POST.
  'mcp-transports:streamable-http-listening-for-messages-from-the-server:1': { rules: ['mcp.transport.get-stream-or-405'] },
  // The server MUST either return `Content-Type: text/event-stream` in response to this HTTP GET, or else return HTTP 405 Method Not Allowed, indicating t
  'mcp-transports:streamable-http-listening-for-messages-from-the-server:3': { rules: ['mcp.transport.get-405', 'mcp.transport.get-stream-or-405'] },
  // If the server initiates an SSE stream:
  'mcp-transports:streamable-http-listening-for-messages-from-the-server:4': { reason: 'LEAD_IN' },
  // The server MUST NOT send a JSON-RPC response on the stream unless resuming a stream associated with a previous client request.
  'mcp-transports:streamable-http-listening-for-messages-from-the-server:the-server-must-not-send-a': { reason: 'GET_DISABLED' },
  // Servers MAY attach an `id` field to their SSE events, as described in the SSE standard.
  'mcp-transports:streamable-http-resumability-and-redelivery:1': { rules: ['mcp.sse.event-ids-unique'] },
  // If the client wishes to resume after a broken connection, it SHOULD issue an HTTP GET to the MCP endpoint, and include the `Last-Event-ID` header to i
  'mcp-transports:streamable-http-resumability-and-redelivery:2': { reason: 'GET_DISABLED' },
  // The server MUST NOT replay messages that would have been delivered on a different stream.
  'mcp-transports:streamable-http-resumability-and-redelivery:the-server-must-not-replay-messages': { reason: 'GET_DISABLED' },
  // A server using the Streamable HTTP transport MAY assign a session ID at initialization time, by including it in an `Mcp-Session-Id` header on the HTTP
  'mcp-transports:streamable-http-session-management:1': { rules: ['mcp.session.id-visible-ascii', 'mcp.session.missing-400'] },
  // If an `Mcp-Session-Id` is returned by the server during initialization, clients using the Streamable HTTP transport MUST include it in the `Mcp-Sessio
  'mcp-transports:streamable-http-session-management:2': { rules: ['mcp.session.missing-400'] },
  // Servers that require a session ID SHOULD respond to requests without an `Mcp-Session-Id` header (other than initialization) with HTTP 400 Bad Request.
  'mcp-transports:streamable-http-session-management:servers-that-require-a-session-id': { rules: ['mcp.session.missing-400', 'mcp.session.never-issued'] },
  // The server MAY terminate the session at any time, after which it MUST respond to requests containing that session ID with HTTP 404 Not Found.
  'mcp-transports:streamable-http-session-management:3': { rules: ['mcp.session.delete-terminates'] },
  // Clients that no longer need a particular session (e.g., because the user is leaving the client application) SHOULD send an HTTP DELETE to the MCP endp
  'mcp-transports:streamable-http-session-management:5': { rules: ['mcp.session.delete-terminates'] },
  // The initialize request MUST NOT be part of a JSON-RPC batch, as other requests and notifications are not possible until initialization has completed.
  'mcp-lifecycle:lifecycle-phases-initialization:the-initialize-request-must-not-be': { reason: 'CLIENT' },
  // The initialization phase MUST be the first interaction between client and server.
  'mcp-lifecycle:lifecycle-phases-initialization:the-initialization-phase-must-be-the': { reason: 'CLIENT', notJudgedBy: ['mcp.lifecycle.initialize-result'] },
  // The server MUST respond with its own capabilities and information.
  'mcp-lifecycle:lifecycle-phases-initialization:the-server-must-respond-with-its': { rules: ['mcp.lifecycle.initialize-result'] },
  // Implementations SHOULD be prepared to handle these error cases:
  'mcp-lifecycle:error-handling:implementations-should-be-prepared-to-handle': { reason: 'LEAD_IN' },
  // RFC 9110 (spec/rfc9110/): the sentences the HTTP-field rules of every surface rest on.
  // The "Allow" header field lists the set of methods advertised as supported by the target resource.
  'rfc9110:10-2-1-allow:the-allow-header-field-lists-the': { reason: 'INFORMATIVE' },
  // The purpose of this field is strictly to inform the recipient of valid request methods associated with the resource.
  'rfc9110:10-2-1-allow:the-purpose-of-this-field-is': { reason: 'INFORMATIVE' },
  // Allow = #method
  'rfc9110:10-2-1-allow:allow-method': { rules: ['v8.contract.allow-on-405', 'v1.contract.allow-on-405', 'mcp.transport.allow-on-405'] },
  // An empty Allow field value indicates that the resource allows no methods, which might occur in a 405 response …
  'rfc9110:10-2-1-allow:an-empty-allow-field-value-indicates': { rules: ['v8.contract.allow-on-405', 'v1.contract.allow-on-405', 'mcp.transport.allow-on-405'] },
  // An origin server MUST generate an Allow header field in a 405 (Method Not Allowed) response and MAY do so in any other response.
  'rfc9110:10-2-1-allow:an-origin-server-must-generate-an': { rules: ['v8.contract.allow-on-405', 'v1.contract.allow-on-405', 'mcp.transport.allow-on-405'] },
  // The "WWW-Authenticate" response header field indicates the authentication scheme(s) and parameters applicable to the target resource.
  'rfc9110:11-6-1-www-authenticate:the-www-authenticate-response-header-field': { reason: 'INFORMATIVE' },
  // WWW-Authenticate = #challenge
  'rfc9110:11-6-1-www-authenticate:www-authenticate-challenge': { rules: ['v8.auth.challenge', 'v1.auth.challenge', 'mcp.auth.challenge'] },
  // A server generating a 401 (Unauthorized) response MUST send a WWW-Authenticate header field containing at least one challenge.
  'rfc9110:11-6-1-www-authenticate:a-server-generating-a-401-unauthorized': { rules: ['v8.auth.challenge', 'v1.auth.challenge', 'mcp.auth.challenge'] },
  // The 401 (Unauthorized) status code indicates that the request has not been applied because it lacks valid authentication credentials …
  'rfc9110:15-5-2-401-unauthorized:the-401-unauthorized-status-code-indicates': { reason: 'INFORMATIVE' },
  // The 405 (Method Not Allowed) status code indicates that the method received in the request-line is known by the origin server …
  'rfc9110:15-5-6-405-method-not-allowed:the-405-method-not-allowed-status': { reason: 'INFORMATIVE' },
};
