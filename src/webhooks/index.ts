/** Receiver-side webhook verification for services that consume /v1 deliveries. */
export { constantTimeEqual, DEFAULT_TOLERANCE_SECONDS, signWebhook, signedPayload, SIGNATURE_PATTERN, WEBHOOK_HEADERS, type RawBody, type SignInput } from './signature.ts';
export { MemoryEventStore, verifyWebhook, type VerifyFailureReason, type VerifyInput, type VerifyResult, type WebhookEvent, type WebhookEventStore, type WebhookHeaders } from './verify.ts';
