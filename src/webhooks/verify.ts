/**
 * The receiver side of /v1 webhooks: verify a delivery on its raw bytes, then judge its body, then
 * deduplicate it. Pure (Web Crypto only), so a service can call it from any HTTP framework.
 */
import { constantTimeEqual, DEFAULT_TOLERANCE_SECONDS, eventIdText, SIGNATURE_PATTERN, signWebhook, WEBHOOK_HEADERS, type RawBody } from './signature.ts';

/** Plain header records (Node's `req.headers`) or a fetch `Headers`. */
export type WebhookHeaders = Record<string, string | string[] | undefined> | { get(name: string): string | null };

/**
 * Where a receiver remembers the event ids it has acted on. `claim` must be atomic (a unique
 * insert): true the first time an id is seen, false for a duplicate. Back it with a database
 * unique constraint in production; `MemoryEventStore` is for tests and single-process services.
 */
export interface WebhookEventStore {
  claim(eventId: string): boolean | Promise<boolean>;
  /** Forgets a claim whose effect failed, so the sender's retry is processed instead of skipped. */
  release?(eventId: string): void | Promise<void>;
}

/** A bounded in-memory store: it forgets the oldest ids first once `capacity` is reached. */
export class MemoryEventStore implements WebhookEventStore {
  private readonly seen = new Set<string>();
  private readonly capacity: number;
  constructor(capacity = 100_000) {
    this.capacity = capacity;
  }
  claim(eventId: string): boolean {
    if (this.seen.has(eventId)) return false;
    this.seen.add(eventId);
    if (this.seen.size > this.capacity) this.seen.delete(this.seen.values().next().value!);
    return true;
  }
  release(eventId: string): void {
    this.seen.delete(eventId);
  }
}

export interface WebhookEvent {
  apiVersion: 'v1';
  /** A string, or an integer whose decimal digits Service-Webhook-Id carries: the seed names the field, not its type. */
  event_id: string | number;
  run_id: string;
  sequence: number;
  [field: string]: unknown;
}

export interface VerifyInput {
  /** The body exactly as received, before any JSON parsing. */
  rawBody: RawBody;
  headers: WebhookHeaders;
  /** The endpoint's signing_secret; several during a rotation (any one may match). */
  secret: string | readonly string[];
  /** The receiver's clock: a Date or epoch milliseconds. Defaults to now. */
  now?: Date | number;
  toleranceSeconds?: number;
  /** Without a store every valid delivery is reported as new. */
  store?: WebhookEventStore;
}

export type VerifyFailureReason =
  | 'missing-header'
  | 'malformed-signature'
  | 'bad-signature'
  | 'malformed-timestamp'
  | 'stale-timestamp'
  | 'future-timestamp'
  | 'malformed-body'
  | 'bad-api-version'
  | 'id-mismatch';

export type VerifyResult =
  | {
      ok: true;
      /** What to answer: `204`, for a new event and a duplicate alike. */
      status: 204;
      /** True when the store has seen this event_id: answer success but do not repeat the effect. */
      duplicate: boolean;
      event: WebhookEvent;
      /** The event's id as Service-Webhook-Id carries it (an integer event_id's digits): what the store claims, and what to release. */
      eventId: string;
      timestamp: number;
    }
  | {
      ok: false;
      /** `401` when the delivery cannot be authenticated (signature, timestamp), `400` for a bad body. */
      status: 400 | 401;
      reason: VerifyFailureReason;
      message: string;
    };

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') return (headers as { get(n: string): string | null }).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const value = record[name] ?? Object.entries(record).find(([k]) => k.toLowerCase() === name)?.[1];
  return Array.isArray(value) ? value[0] : value;
}

function fail(status: 400 | 401, reason: VerifyFailureReason, message: string): VerifyResult {
  return { ok: false, status, reason, message };
}

const decoder = new TextDecoder('utf-8', { fatal: true });

function parseBody(rawBody: RawBody): unknown {
  try {
    return JSON.parse(typeof rawBody === 'string' ? rawBody : decoder.decode(rawBody)) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Verifies one delivery: headers present, signature over the raw bytes, timestamp within the
 * tolerance, then the body (`apiVersion` `v1`, ids equal, `run_id`, integer `sequence`), then
 * whether the event was already seen. The signature is checked before the body is parsed.
 */
export async function verifyWebhook(input: VerifyInput): Promise<VerifyResult> {
  const eventId = header(input.headers, WEBHOOK_HEADERS.id);
  const timestamp = header(input.headers, WEBHOOK_HEADERS.timestamp);
  const signature = header(input.headers, WEBHOOK_HEADERS.signature);
  if (!eventId || !timestamp || !signature) {
    const missing = [!eventId && 'Service-Webhook-Id', !timestamp && 'Service-Webhook-Timestamp', !signature && 'Service-Webhook-Signature'].filter(Boolean);
    return fail(401, 'missing-header', `missing ${missing.join(', ')}`);
  }
  if (!SIGNATURE_PATTERN.test(signature)) return fail(401, 'malformed-signature', 'Service-Webhook-Signature is not v1= followed by 64 lowercase hex characters');
  if (!/^\d{1,16}$/.test(timestamp)) return fail(401, 'malformed-timestamp', 'Service-Webhook-Timestamp is not Unix seconds');

  // An empty secret signs nothing (HMAC keys must have bytes): during a rotation the others still may.
  const secrets = (typeof input.secret === 'string' ? [input.secret] : input.secret).filter((s) => s.length > 0);
  if (secrets.length === 0) throw new TypeError('verifyWebhook needs the endpoint\'s signing_secret: every secret given is empty');
  let matched = false;
  for (const secret of secrets) {
    const expected = await signWebhook({ eventId, timestamp, rawBody: input.rawBody, secret });
    // No early exit across secrets either: each comparison runs in full.
    matched = constantTimeEqual(expected, signature) || matched;
  }
  if (!matched) return fail(401, 'bad-signature', 'the signature does not match the body with this secret');

  const nowMs = input.now === undefined ? Date.now() : typeof input.now === 'number' ? input.now : input.now.getTime();
  const tolerance = input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const skew = Number(timestamp) - Math.floor(nowMs / 1000);
  if (skew < -tolerance) return fail(401, 'stale-timestamp', `the timestamp is ${-skew} s old (tolerance ${tolerance} s)`);
  if (skew > tolerance) {
    const hint = Number(timestamp) > 1e11 ? '; it looks like milliseconds, the header carries seconds' : '';
    return fail(401, 'future-timestamp', `the timestamp is ${skew} s ahead of this clock (tolerance ${tolerance} s)${hint}`);
  }

  const body = parseBody(input.rawBody);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return fail(400, 'malformed-body', 'the body is not a JSON object');
  const event = body as Record<string, unknown>;
  if (event.apiVersion !== 'v1') return fail(400, 'bad-api-version', `apiVersion is ${JSON.stringify(event.apiVersion)}, not "v1"`);
  if (eventIdText(event.event_id) !== eventId) return fail(400, 'id-mismatch', 'Service-Webhook-Id differs from the body event_id');
  if (typeof event.run_id !== 'string' || !Number.isInteger(event.sequence)) return fail(400, 'malformed-body', 'the body lacks a string run_id or an integer sequence');

  const fresh = input.store ? await input.store.claim(eventId) : true;
  return { ok: true, status: 204, duplicate: !fresh, event: event as WebhookEvent, eventId, timestamp: Number(timestamp) };
}
