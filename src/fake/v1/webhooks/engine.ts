/**
 * The fake's webhook delivery engine. It listens to the run engine's bus and, for every run event,
 * POSTs a signed delivery to each endpoint of the run's tenant whose filter matches.
 *
 * Documented choices where the seed shows nothing (what the observation rules record):
 * - every run event on the bus is delivered; the body is
 *   `{ apiVersion, event_id, type, run_id, sequence, created_at, data }`;
 * - first attempt after 0-40 ms of jitter (so deliveries can arrive out of order), then retries
 *   after 200, 400, 800 and 1600 ms on any non-2xx answer, redirect, timeout or connection error;
 *   after 5 attempts the delivery is `dead_lettered`; redirects are never followed;
 * - a replay re-sends the stored event with the same `event_id` and body, freshly signed;
 * - the fake only sends to the harness receiver's origin (FakeConfig.webhookAllowedOrigins);
 *   deliveries to any other registered URL are recorded as `undeliverable` and never leave the process.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { request } from 'node:http';
import type { FakeContext, RunEventNotice } from '../../context.ts';
import { withExtraProperties } from '../../support/extra-properties.ts';
import { deliverable, forwarded } from './url-rules.ts';
import { eventKindField } from '../runs/engine.ts';

export const RETRY_DELAYS_MS = [200, 400, 800, 1600] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
const ATTEMPT_TIMEOUT_MS = 3_000;
const MAX_DELIVERIES = 10_000;
const MAX_ENDPOINTS = 2_000;

export interface WebhookEndpoint {
  id: string;
  tenant: string;
  principal: string;
  url: string;
  /** null: every event type. */
  eventTypes: string[] | null;
  /** Which request field the filter came from. */
  filterField: 'event_types' | 'events' | null;
  description?: string;
  secret: string;
  createdAt: string;
}

export interface DeliveryAttempt {
  at: string;
  status?: number;
  error?: string;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'dead_lettered' | 'undeliverable';

export interface Delivery {
  id: string;
  endpointId: string;
  tenant: string;
  runId: string;
  eventId: string;
  eventType: string;
  sequence: number;
  /** The body object; serialized afresh for each attempt. */
  body: Record<string, unknown>;
  status: DeliveryStatus;
  attempts: DeliveryAttempt[];
  createdAt: string;
  replayOf?: string;
}

function newId(prefix: string): string {
  return `${prefix}${randomBytes(12).toString('hex')}`;
}

/** Other legal Identifier shapes, in turn (`v1.webhooks/id-format`): all digits, or 128 characters of `._:-`. */
function otherId(prefix: string, n: number): string {
  const hex = randomBytes(12).toString('hex');
  return n % 2 === 0 ? BigInt(`0x${hex}`).toString() : `${prefix.replace('_', '.')}${hex}:${n}_`.padEnd(128, '-._:0');
}

export class WebhookEngine {
  readonly endpoints = new Map<string, WebhookEndpoint>();
  readonly deliveries = new Map<string, Delivery>();
  private readonly fake: FakeContext;
  private minted = 0;

  constructor(fake: FakeContext) {
    this.fake = fake;
    const listener = (notice: RunEventNotice) => this.onRunEvent(notice);
    fake.runEvents.on('run', listener);
    fake.lifecycle.onClose(() => fake.runEvents.off('run', listener));
  }

  register(endpoint: Omit<WebhookEndpoint, 'id' | 'secret' | 'createdAt'>): WebhookEndpoint {
    if (this.endpoints.size >= MAX_ENDPOINTS) this.endpoints.delete(this.endpoints.keys().next().value!);
    const created: WebhookEndpoint = { ...endpoint, id: this.mint('whe_'), secret: `whsec_${randomBytes(24).toString('base64url')}`, createdAt: new Date().toISOString() };
    this.endpoints.set(created.id, created);
    return created;
  }

  /** An endpoint, delivery or event id: the fake's `<prefix><hex>`, or another legal shape under the variant. */
  private mint(prefix: string): string {
    const integers = prefix === 'evt_' ? this.integerEventIds() : this.fake.variants.has('v1.webhooks/integer-ids');
    if (!integers && !this.fake.variants.has('v1.webhooks/id-format')) return newId(prefix);
    this.minted += 1;
    // Integer ids count up from a large start (the routes send them as JSON numbers).
    return integers ? String(900_000_000 + this.minted) : otherId(prefix, this.minted);
  }

  /** Whether event ids are JSON integers in bodies and listings (their digits in the Service-Webhook-Id header). */
  private integerEventIds(): boolean {
    return this.fake.variants.has('v1.webhooks/integer-event-ids');
  }

  /** A notice from the run engine becomes one delivery per matching endpoint, all with the same event id. */
  onRunEvent(notice: RunEventNotice): void {
    if (notice.type === 'run.failed' && this.fake.faults.has('v1.webhooks.delivery.terminal-events/no-run-failed')) return;
    // "Full list of webhook event types: not shown.": a deployment may deliver only the two it names.
    if (this.fake.variants.has('v1.webhooks/terminal-only') && notice.type !== 'run.completed' && notice.type !== 'run.failed') return;
    const eventId = this.mint('evt_');
    let sequence: number | string = notice.sequence;
    if (this.fake.faults.has('v1.webhooks.delivery.sequence-order/constant-sequence')) sequence = 0;
    // "…includes `apiVersion` (`v1`), `event_id`, `run_id` and `sequence`": the JSON type of sequence is not shown.
    if (this.fake.variants.has('v1.webhooks/string-sequence')) sequence = String(sequence);
    // Which body field names the event type is not shown either: the run events' own (`type`, or `eventType`), or `event_type` under the variant.
    const runField = eventKindField(this.fake);
    const typeField = runField === 'type' && this.fake.variants.has('v1.webhooks/event-type-field') ? 'event_type' : runField;
    const plain = { apiVersion: 'v1', event_id: this.integerEventIds() ? Number(eventId) : eventId, [typeField]: notice.type, run_id: notice.runId, sequence, created_at: new Date().toISOString(), data: notice.data };
    if (this.fake.faults.has('v1.webhooks.delivery.body/no-api-version')) delete (plain as Partial<typeof plain>).apiVersion;
    const body = this.fake.variants.has('v1.webhooks/extra-properties') ? withExtraProperties(plain) : plain;
    for (const endpoint of this.endpoints.values()) {
      if (endpoint.tenant !== notice.tenant) continue;
      if (endpoint.eventTypes && !endpoint.eventTypes.includes(notice.type)) continue;
      this.enqueue({ endpointId: endpoint.id, tenant: notice.tenant, runId: notice.runId, eventId, eventType: notice.type, sequence: notice.sequence, body: { ...body } });
    }
  }

  /** Re-sends a stored delivery's event: same event id and body, a new delivery record. */
  replay(original: Delivery): Delivery {
    let body = original.body;
    let eventId = original.eventId;
    if (this.fake.faults.has('v1.webhooks.deliveries.replay/new-event-id')) {
      eventId = newId('evt_');
      body = { ...body, event_id: eventId };
    }
    return this.enqueue({ endpointId: original.endpointId, tenant: original.tenant, runId: original.runId, eventId, eventType: original.eventType, sequence: original.sequence, body, replayOf: original.id });
  }

  private enqueue(fields: Omit<Delivery, 'id' | 'status' | 'attempts' | 'createdAt'>): Delivery {
    if (this.deliveries.size >= MAX_DELIVERIES) this.deliveries.delete(this.deliveries.keys().next().value!);
    const delivery: Delivery = { ...fields, id: this.mint('whd_'), status: 'pending', attempts: [], createdAt: new Date().toISOString() };
    this.deliveries.set(delivery.id, delivery);
    this.fake.lifecycle.later(Math.floor(Math.random() * 40), () => void this.attempt(delivery));
    return delivery;
  }

  private async attempt(delivery: Delivery): Promise<void> {
    const endpoint = this.endpoints.get(delivery.endpointId);
    if (!endpoint || !deliverable(this.fake, endpoint.url)) {
      delivery.status = 'undeliverable';
      delivery.attempts.push({ at: new Date().toISOString(), error: 'the reference fake only delivers to the harness receiver' });
      return;
    }
    if (delivery.attempts.length > 0 && this.fake.faults.has('v1.webhooks.delivery.retry/new-event-id')) {
      delivery.eventId = newId('evt_');
      delivery.body = { ...delivery.body, event_id: delivery.eventId };
    }
    // Receivers deduplicate by event_id, so other bytes are legal ("Delivery is at least once"): an attempt counter.
    if (delivery.attempts.length > 0 && this.fake.variants.has('v1.webhooks/attempt-counter')) {
      delivery.body = { ...delivery.body, delivery_attempt: delivery.attempts.length + 1 };
    }
    if (delivery.attempts.length > 0 && this.fake.faults.has('v1.webhooks.delivery.retry/sequence-changes')) {
      // Same event_id, another sequence: the retry no longer stands for the same event.
      delivery.body = { ...delivery.body, sequence: Number(delivery.body.sequence) + 1000 };
    }
    const outcome = await this.post(endpoint, delivery, forwarded(this.fake, endpoint.url), true);
    delivery.attempts.push({ at: new Date().toISOString(), ...outcome });
    if (outcome.status !== undefined && outcome.status >= 200 && outcome.status < 300) {
      delivery.status = 'delivered';
      return;
    }
    const retriesLeft = delivery.attempts.length < MAX_ATTEMPTS && !this.fake.faults.has('v1.webhooks.delivery.retry/no-retry');
    if (!retriesLeft) {
      delivery.status = 'dead_lettered';
      return;
    }
    this.fake.lifecycle.later(RETRY_DELAYS_MS[delivery.attempts.length - 1]!, () => void this.attempt(delivery));
  }

  /** One signed POST; answers with the status or the transport error. */
  private post(endpoint: WebhookEndpoint, delivery: Delivery, url: string, mayFollow: boolean): Promise<{ status?: number; error?: string }> {
    const faults = this.fake.faults;
    const compact = JSON.stringify(delivery.body);
    // The fault sends other bytes than it signs: a receiver that verifies the raw body must refuse it.
    const sent = faults.has('v1.webhooks.delivery.signature-valid/signs-reserialized-body') ? JSON.stringify(delivery.body, null, 2) : compact;
    const timestamp = faults.has('v1.webhooks.delivery.timestamp/milliseconds') ? String(Date.now()) : String(Math.floor(Date.now() / 1000));
    const headerId = faults.has('v1.webhooks.delivery.id-header/differs-from-body') ? newId('evt_') : delivery.eventId;
    let mac = createHmac('sha256', endpoint.secret).update(`${headerId}.${timestamp}.${compact}`).digest('hex');
    if (faults.has('v1.webhooks.delivery.signature-format/uppercase-hex')) mac = mac.toUpperCase();
    return new Promise((resolve) => {
      const req = request(
        url,
        {
          method: 'POST',
          timeout: ATTEMPT_TIMEOUT_MS,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(sent),
            'user-agent': 'apicert-reference-fake/webhooks',
            'service-webhook-id': headerId,
            'service-webhook-timestamp': timestamp,
            'service-webhook-signature': `v1=${mac}`,
          },
        },
        (res) => {
          res.resume();
          const status = res.statusCode ?? 0;
          const location = res.headers.location;
          if (status >= 300 && status < 400 && location && mayFollow && faults.has('v1.webhooks.url.redirect/followed')) {
            const target = new URL(location, url);
            // Even broken, the fake only ever talks to loopback.
            if (['127.0.0.1', '[::1]', 'localhost'].includes(target.hostname)) {
              void this.post(endpoint, delivery, target.toString(), false).then(resolve);
              return;
            }
          }
          resolve({ status });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer within ${ATTEMPT_TIMEOUT_MS} ms`)));
      req.on('error', (error) => resolve({ error: error.message }));
      req.end(sent);
    });
  }
}
