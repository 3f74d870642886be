/**
 * The misbehaviours of the sample receiver and client: each breaks exactly the rule named before
 * the colon. The other-side fault matrices (suites/other-side/) run every one of them.
 */
/** `node samples/receiver.ts --fault NAME` */
export const RECEIVER_FAULTS = {
  'reject-valid': 'receiver.v1.webhooks.accepts-valid: answers 500 to every delivery it verified',
  'duplicate-conflict': 'receiver.v1.webhooks.duplicate: answers 409 to an event_id it has seen',
  'accept-bad-signature': 'receiver.v1.webhooks.bad-signature: processes a delivery whose signature does not match',
  'accept-unsigned': 'receiver.v1.webhooks.bad-signature: verifies a delivery only when it carries Service-Webhook-Signature',
  'accept-stale': 'receiver.v1.webhooks.timestamp-past: checks only that the timestamp is not in the future',
  'accept-future': 'receiver.v1.webhooks.timestamp-future: checks only that the timestamp is not too old',
  'wide-tolerance': 'receiver.v1.webhooks.timestamp-past: accepts timestamps up to 500 s off its clock, either way (so timestamp-future fails too)',
  'tolerance-320': 'receiver.v1.webhooks.timestamp-past: accepts timestamps up to 320 s off its clock, either way (so timestamp-future fails too)',
  'duplicate-before-verify': 'receiver.v1.webhooks.bad-signature: answers 204 to a delivery whose Service-Webhook-Id names an event it took, before verifying the signature',
  'parse-before-verify': 'receiver.v1.webhooks.bad-signature: parses the body and checks apiVersion before it verifies the signature, so a bad signature over a body that is not JSON, or says apiVersion v2, gets 400',
  'ignore-api-version': 'receiver.v1.webhooks.api-version: processes any apiVersion',
  'ignore-id-mismatch': 'receiver.v1.webhooks.event-id-mismatch: does not compare the header id with body event_id',
  reserialize: 'receiver.v1.webhooks.raw-body: parses the body and verifies JSON.stringify of it instead of the raw bytes (parsing first, it answers 400 to a badly signed body that is not JSON, so bad-signature fails too)',
  'reject-out-of-order': 'receiver.v1.webhooks.ordering: answers 409 to an event older than one it has seen for the run',
} as const;

/** `node samples/client.ts --fault NAME` */
export const CLIENT_FAULTS = {
  'repost-after-drop': 'client.v1.endpoints.dropped-readback: re-posts a cut streamed request at once, without reading the run back',
  'repost-task-after-drop': 'client.v1.endpoints.task-readback: after the event stream of its task-mode run is cut, posts the identical task again at once, without reading the run back',
  'new-key-after-readback': 'client.v1.endpoints.streamed-retry: after reading back a cut run, posts it again under a new key',
  'new-key-after-429': 'client.v1.errors.retry-429-same-key: retries a 429 under a new Idempotency-Key',
  'fresh-request-after-429': 'client.v1.errors.retry-429-same-key: re-posts a turn refused with 429 at once, under a new Idempotency-Key and with a new requestId (so client.v1.limits.retry-after fails too)',
  'ignore-retry-after': 'client.v1.limits.retry-after: retries 100 ms after a 429 that carries Retry-After',
  'no-default-hint': 'client.v1.limits.default-retry-hint: retries 100 ms after a 429 without Retry-After',
  'new-key-after-503': 'client.v1.errors.retry-503-same-key: retries a 503 under a new Idempotency-Key',
  'reuse-conflicted-key': 'client.v1.errors.conflict-new-key: after a 409 conflict, sends the same key with a corrected body',
  'new-work-after-reset': 'client.v1.errors.ambiguous-reconcile: after a connection reset, posts the task again under a new key',
  'resume-after-409': 'client.v8.events.replay-window: after a 409 for its Last-Event-ID, resumes with the same Last-Event-ID once more',
  'use-unavailable-capability': 'client.v8.capabilities.unavailable-in-goal: names in its goalSpec every capability its search returned, whatever its healthState',
  'ignore-contract-version': 'client.v8.versioning.contract-check: sends missions whatever x-service-contract-version says',
  'cursor-ahead': 'client.v1.events.cursor: resumes a cut stream from an event id it never received',
  'short-mission-key': 'client.v8.endpoints.idempotency-key: creates its mission under an Idempotency-Key of 11 characters',
} as const;

/** The rule a fault breaks: the id before the colon of its description. */
export function ruleOfSampleFault(description: string): string {
  return description.slice(0, description.indexOf(':'));
}
