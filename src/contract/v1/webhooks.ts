/** /v1 webhooks: registration, the creation response and the delivery body, as far as the seed shows them. */
import { z } from 'zod';
import { choice, extraAllowed, stated } from '../marks.ts';
import { V1 } from '../sentence.ts';

/**
 * "Webhook endpoint creation request fields as used in practice: `url` (string, HTTPS, required),
 * `event_types` (array of string), `description` (string). The reference schema lists the filter as
 * `events` ... The request allows extra properties." Both filter names are accepted, neither's type stated (`filter`).
 */
const RECORDS = 'Resources and their fields > Run, usage and webhook endpoint records';
const FIELDS = 'Webhook endpoint creation request fields as used in practice: `url` (string, HTTPS, required), `event_types` (array of string), `description` (string).';
const FAKE_BOUND = 'the fake bounds it; the description states no bound';
/**
 * Neither filter name's type is a stated refusal: the seed names both (`event_types` "as used in practice",
 * `events` in "the reference schema", whose "field names [are] an unconfirmed reconstruction") and "The
 * request allows extra properties.", so a deployment that reads one name takes the other as an extra
 * property, whatever its value, and nothing in a request shows which name it reads.
 */
const FILTER_OPEN = 'which of event_types and events a deployment reads is open, and one that reads only the other takes this one as an extra property, whatever its value';
/**
 * The same sentence types `description`, "as used in practice": a description of what clients send, read as
 * descriptively as it is for the filter, not a refusal rule. A free-text label the service need not interpret
 * may be taken whatever its JSON type; `url`'s type stays stated ("required", "HTTPS": the service reads it).
 */
const DESCRIPTION_OPEN = 'as used in practice: a description of what clients send, not a refusal; a label the service need not read may be taken whatever its JSON type';
const filter = () => choice(choice(z.array(choice(choice(z.string().min(1).max(128), ['type'], FILTER_OPEN), ['length'], FAKE_BOUND)).max(64), ['type'], FILTER_OPEN), ['count'], FAKE_BOUND);
export const webhookRegistration = extraAllowed(
  stated(
    z.looseObject({
      url: choice(stated(z.string().min(1).max(2048), ['type'], V1(RECORDS, FIELDS)), ['length'], FAKE_BOUND),
      event_types: filter().optional(),
      events: filter().optional(),
      description: choice(choice(z.string().max(1024), ['type'], DESCRIPTION_OPEN), ['length'], FAKE_BOUND).optional(),
    }),
    ['required', 'type'],
    V1(RECORDS, FIELDS),
  ),
  V1(RECORDS, 'The request allows extra properties.'),
);
export type WebhookRegistration = z.infer<typeof webhookRegistration>;

/** "The creation response (HTTP `201`) returns `signing_secret` exactly once"; other fields: not shown. */
export const webhookCreated = z.looseObject({
  signing_secret: z.string().min(1),
});

/** "Each delivery is an HTTP POST with a JSON body that includes `apiVersion` (`v1`), `event_id`, `run_id` and `sequence`." */
export const webhookDeliveryBody = z.looseObject({
  apiVersion: z.literal('v1'),
  // The seed names the field, not its JSON type: a string Identifier or an integer.
  event_id: z.union([z.string().min(1), z.number().int()]),
  run_id: z.string().min(1),
  // Named, its JSON type not shown either: an integer, or a string of its decimal digits.
  sequence: z.union([z.number().int(), z.string().regex(/^\d+$/)]),
});
export type WebhookDeliveryBody = z.infer<typeof webhookDeliveryBody>;

/** "`Service-Webhook-Signature` | `v1=` followed by 64 lowercase hex characters" */
export { SIGNATURE_PATTERN as WEBHOOK_SIGNATURE_PATTERN, WEBHOOK_HEADERS } from '../../webhooks/signature.ts';

export { TERMINAL_WEBHOOK_EVENTS } from './event-kinds.ts';
