/**
 * Webhook signatures of the /v1 execution fabric: `v1=` + lowercase hex HMAC-SHA-256 over
 * `<event_id>.<timestamp>.<raw body>`, keyed with the endpoint's `signing_secret`.
 *
 * Pure: only Web Crypto and TextEncoder, so the same code runs in Node, Deno, browsers' workers
 * and bundled k6 scripts.
 */
export const SIGNATURE_PREFIX = 'v1=';
export const SIGNATURE_PATTERN = /^v1=[0-9a-f]{64}$/;
/** The reference verifier's tolerance between the sender's timestamp and the receiver's clock. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** Header names, lower-cased as Node and fetch report them. */
export const WEBHOOK_HEADERS = {
  id: 'service-webhook-id',
  timestamp: 'service-webhook-timestamp',
  signature: 'service-webhook-signature',
} as const;

/** The body exactly as received: a string is taken as its UTF-8 bytes. */
export type RawBody = string | Uint8Array;

/** An event_id as the text Service-Webhook-Id carries: the seed names the field, not its JSON type, and an integer stands for its decimal digits. */
export function eventIdText(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isInteger(value)) return String(value);
  return typeof value === 'string' ? value : undefined;
}

const encoder = new TextEncoder();

function bytesOf(value: RawBody): Uint8Array {
  return typeof value === 'string' ? encoder.encode(value) : value;
}

/** The bytes the MAC covers; the body is appended as received, never re-serialized. */
export function signedPayload(eventId: string, timestamp: string, rawBody: RawBody): Uint8Array<ArrayBuffer> {
  const prefix = encoder.encode(`${eventId}.${timestamp}.`);
  const body = bytesOf(rawBody);
  const out = new Uint8Array(prefix.length + body.length);
  out.set(prefix);
  out.set(body, prefix.length);
  return out;
}

function hex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}

function subtle(): typeof globalThis.crypto.subtle {
  const s = globalThis.crypto?.subtle;
  if (!s) throw new Error('Web Crypto (globalThis.crypto.subtle) is not available in this runtime: use Node >= 20, Deno, Bun or k6 with webcrypto');
  return s;
}

/** Lowercase hex HMAC-SHA-256 of `data`; the secret is used as its UTF-8 bytes, as handed out. */
export async function hmacSha256Hex(secret: string, data: Uint8Array<ArrayBuffer>): Promise<string> {
  const key = await subtle().importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return hex(new Uint8Array(await subtle().sign('HMAC', key, data)));
}

export interface SignInput {
  eventId: string;
  /** Unix seconds, as the decimal string sent in `Service-Webhook-Timestamp`. */
  timestamp: string;
  rawBody: RawBody;
  secret: string;
}

/** The `Service-Webhook-Signature` value a sender puts on a delivery. */
export async function signWebhook(input: SignInput): Promise<string> {
  return SIGNATURE_PREFIX + (await hmacSha256Hex(input.secret, signedPayload(input.eventId, input.timestamp, input.rawBody)));
}

/**
 * Compares two strings without an early exit, so the time taken does not tell an attacker how
 * many leading characters of a forged signature were right. Lengths are public (always 67 here).
 */
export function constantTimeEqual(a: string, b: string): boolean {
  const length = Math.max(a.length, b.length);
  let diff = a.length ^ b.length;
  for (let i = 0; i < length; i++) diff |= (a.charCodeAt(i) || 0) ^ (b.charCodeAt(i) || 0);
  return diff === 0;
}

/**
 * How apicert's recordings label a signing secret they hide: one number per secret
 * (`«redacted:signing-secret#2»`), so a hidden secret that appears again is still seen to.
 */
export const SIGNING_SECRET_LABEL = 'signing-secret';
export const SIGNING_SECRET_MARKER = `«redacted:${SIGNING_SECRET_LABEL}#`;

/** The label under which a judgement of deliveries is given the endpoint's signing secret (the receiver's, or APICERT_WEBHOOK_SECRET for a recording). */
export const ENDPOINT_SECRET_LABEL = 'endpoint-signing-secret';

/** The variable `judge-traffic` and `proxy` read the webhook endpoint's signing secret from. */
export const WEBHOOK_SECRET_VARIABLE = 'APICERT_WEBHOOK_SECRET';
