/**
 * Webhook deliveries recorded at a receiver (its own HAR, or apicert's proxy in front of it): the
 * signature's format, and, with the endpoint's signing secret from the environment, its MAC.
 */
import { constantTimeEqual, signWebhook, WEBHOOK_HEADERS } from '../../webhooks/signature.ts';
import { operationOf } from '../endpoints.ts';
import type { TrafficExchange } from '../exchange.ts';
import { type Judgement, type PassiveRule } from '../judging.ts';

function deliveries(j: Judgement): TrafficExchange[] {
  return j.exchanges.filter((ex) => operationOf(ex) === 'webhook.delivery');
}

const DELIVERIES = 'webhook deliveries at your receiver (POST requests carrying Service-Webhook-Signature)';

export const webhookRules: PassiveRule[] = [
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
