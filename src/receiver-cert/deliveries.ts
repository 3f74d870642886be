/**
 * Signed /v1 webhook deliveries as the seed describes them, built to order: each can be broken in
 * exactly one way (secret, timestamp, apiVersion, ids, body bytes) so a rule judges one thing.
 */
import { randomBytes } from 'node:crypto';
import { signWebhook } from '../webhooks/signature.ts';

export interface Delivery {
  eventId: string;
  timestamp: string;
  rawBody: string;
  headers: Record<string, string>;
}

export interface DeliveryOptions {
  eventId?: string;
  runId?: string;
  sequence?: number;
  /** Seconds added to now for `Service-Webhook-Timestamp`. */
  skewSeconds?: number;
  /** Overrides the body fields (e.g. another apiVersion or event_id). */
  body?: Record<string, unknown>;
  /** The exact body bytes to send and sign instead of JSON.stringify of the fields. */
  rawBody?: (fields: Record<string, unknown>) => string;
  /** Sign with this secret instead of the receiver's (a bad signature). */
  signWith?: string;
}

export function newEventId(): string {
  return `evt_apicert_${randomBytes(10).toString('hex')}`;
}

export function newRunId(): string {
  return `run_apicert_${randomBytes(10).toString('hex')}`;
}

export function bodyFields(eventId: string, runId: string, sequence: number): Record<string, unknown> {
  return { apiVersion: 'v1', event_id: eventId, run_id: runId, sequence, type: 'run.completed', created_at: new Date().toISOString().replace('Z', '+00:00') };
}

/** A delivery signed with `secret` over `<event_id>.<timestamp>.<raw body>`, the header id being the signed id. */
export async function signedDelivery(secret: string, options: DeliveryOptions = {}): Promise<Delivery> {
  const eventId = options.eventId ?? newEventId();
  const fields = { ...bodyFields(eventId, options.runId ?? newRunId(), options.sequence ?? 1), ...options.body };
  const rawBody = options.rawBody ? options.rawBody(fields) : JSON.stringify(fields);
  const timestamp = String(Math.floor(Date.now() / 1000) + (options.skewSeconds ?? 0));
  const signature = await signWebhook({ eventId, timestamp, rawBody, secret: options.signWith ?? secret });
  return {
    eventId,
    timestamp,
    rawBody,
    headers: { 'service-webhook-id': eventId, 'service-webhook-timestamp': timestamp, 'service-webhook-signature': signature },
  };
}

/**
 * The same fields as a serializer would never write them: keys reversed, spaced and indented, and
 * the `_` of `run_id` escaped as `\u005f`. Parsing gives the same object; re-serializing gives
 * other bytes. The escape sits in a field the seed names, so a receiver that refuses fields it does
 * not know is judged on its verification alone. The fields are those of every delivery here: the
 * four the seed names, and `type` and `created_at` (bodyFields), which the seed's "includes" allows.
 */
export function unusualJson(fields: Record<string, unknown>): string {
  const entries = Object.entries(fields).reverse();
  const value = (k: string, v: unknown) => (k === 'run_id' ? JSON.stringify(v).replace(/_/g, '\\u005f') : JSON.stringify(v));
  const lines = entries.map(([k, v]) => `    ${JSON.stringify(k)} :  ${value(k, v)}`);
  return `{\n${lines.join(' ,\n')}\n}\n`;
}
