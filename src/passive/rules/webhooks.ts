/**
 * Webhook deliveries recorded at a receiver (its own HAR, or apicert's proxy in front of it): the
 * signature's format, and, with the endpoint's signing secret from the environment, its MAC.
 */
import { constantTimeEqual, signWebhook, SIGNATURE_PATTERN, WEBHOOK_HEADERS } from '../../webhooks/signature.ts';
import { operationOf } from '../endpoints.ts';
import type { TrafficExchange } from '../exchange.ts';
import { webhookDeliveryBody } from '../../contract/v1/webhooks.ts';
import { recordOf, requestJson, type Judgement, type PassiveRule } from '../judging.ts';

function deliveries(j: Judgement): TrafficExchange[] {
  return j.exchanges.filter((ex) => operationOf(ex) === 'webhook.delivery');
}

const DELIVERIES = 'webhook deliveries at your receiver (POST requests carrying Service-Webhook-Signature)';

export const webhookRules: PassiveRule[] = [
  {
    id: 'v1.webhooks.delivery.body',
    record: DELIVERIES,
    judge: (j) => {
      for (const ex of deliveries(j)) {
        if (ex.requestBody === undefined || ex.requestBodyTruncated) continue;
        const parsed = webhookDeliveryBody.safeParse(requestJson(ex));
        j.check(ex, ex.method === 'POST' && parsed.success, `the delivery is not a JSON POST with apiVersion v1, event_id, run_id and an integer sequence (${parsed.success ? ex.method : parsed.error.issues.map((i) => i.path.join('.')).join(', ')})`);
      }
    },
  },
  {
    id: 'v1.webhooks.delivery.id-header',
    record: DELIVERIES,
    judge: (j) => {
      for (const ex of deliveries(j)) {
        const eventId = recordOf(requestJson(ex))?.event_id;
        if (eventId === undefined) continue;
        j.check(ex, ex.requestHeaders[WEBHOOK_HEADERS.id] === eventId, `Service-Webhook-Id is ${ex.requestHeaders[WEBHOOK_HEADERS.id] ?? 'missing'}, the body's event_id ${String(eventId)}`);
      }
    },
  },
  {
    id: 'v1.webhooks.delivery.signature-format',
    record: DELIVERIES,
    judge: (j) => {
      for (const ex of deliveries(j)) {
        const signature = ex.requestHeaders[WEBHOOK_HEADERS.signature]!;
        j.check(ex, SIGNATURE_PATTERN.test(signature), `Service-Webhook-Signature is not v1= followed by 64 lowercase hex characters`);
      }
    },
  },
  {
    id: 'v1.webhooks.delivery.signature-valid',
    record: DELIVERIES,
    judge: async (j) => {
      const list = deliveries(j);
      const secret = j.recording.webhookSecret;
      if (list.length > 0 && secret === undefined) {
        j.ctx.notApplicable(`the recording holds ${list.length} webhook deliveries, but no signing secret was given: set ${j.recording.webhookSecretVariable} to the endpoint's signing_secret`);
      }
      for (const ex of list) {
        const id = ex.requestHeaders[WEBHOOK_HEADERS.id];
        const timestamp = ex.requestHeaders[WEBHOOK_HEADERS.timestamp];
        if (id === undefined || timestamp === undefined || ex.requestBody === undefined || ex.requestBodyTruncated) continue;
        const expected = await signWebhook({ eventId: id, timestamp, rawBody: ex.requestBody, secret: secret! });
        j.check(ex, constantTimeEqual(expected, ex.requestHeaders[WEBHOOK_HEADERS.signature]!), 'the signature is not HMAC-SHA-256 over <event_id>.<timestamp>.<raw body> with the signing secret given');
      }
    },
  },
];
