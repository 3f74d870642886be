/**
 * What a webhook receiver must do, from the v1 seed's "Webhooks > Signature rules" (3-7): each rule
 * sends signed deliveries to the receiver under test and judges its answers. Run by
 * `apicert certify-receiver`, never by `certify`.
 */
import { section, serviceKey, type CheckContext, type ProbeResponse, type Rule } from '../rule/index.ts';
import { WEBHOOK_HEADERS } from '../webhooks/signature.ts';
import { newRunId, signedDelivery, unusualJson, type Delivery, type DeliveryOptions } from './deliveries.ts';

const SECTION = 'Events > Webhooks > Signature rules';
const RULE_4 = "A receiver rejects a timestamp that differs from its clock by more than 300 seconds (the reference verifier's tolerance).";
const RULE_5 = 'A receiver returns `401` on a bad signature and `400` if `apiVersion` is not `v1` or header and body event ids differ.';
/** Far enough past the 300 s tolerance that a few seconds of clock drift between us and the receiver do not matter. */
const OFF_CLOCK_SECONDS = 600;

/** The receiver's signing secret, read from an environment variable and registered with the redactor. */
export const RECEIVER_SECRET = serviceKey<string>('receiver-secret');

function secretOf(ctx: CheckContext): string {
  const secret = ctx.service(RECEIVER_SECRET);
  if (!secret) ctx.untestable({ need: 'setting', name: 'APICERT_WEBHOOK_SECRET', remedy: 'no signing secret: export the receiver\'s secret in it (or in the variable named by --secret-env)' });
  return secret;
}

async function deliver(ctx: CheckContext, options: DeliveryOptions, label: string): Promise<{ delivery: Delivery; response: ProbeResponse }> {
  const delivery = await signedDelivery(secretOf(ctx), options);
  const response = await ctx.http.send({ method: 'POST', path: '', credential: null, headers: delivery.headers, rawBody: delivery.rawBody, label });
  return { delivery, response };
}

const ok = (status: number) => status >= 200 && status < 300;

/** Rules that judge a variation need the receiver to take an ordinary delivery first. */
async function acceptedFirst(ctx: CheckContext, options: DeliveryOptions = {}): Promise<Delivery> {
  const { delivery, response } = await deliver(ctx, options, 'a valid delivery');
  if (!ok(response.status)) ctx.inconclusive(`setup failed: the receiver answered ${response.status} to a valid signed delivery, so this rule has nothing to compare with (see receiver.v1.webhooks.accepts-valid)`);
  return delivery;
}

const declare = section({ surface: 'receiver', document: 'v1-execution-fabric.md', section: SECTION, destructive: 'mutate' });
function rule(id: string, title: string, level: Rule['level'], quote: string, check: Rule['check']): Rule {
  return declare({ id, title, level, spec: { quote }, check });
}

export const receiverRules: readonly Rule[] = [
  rule(
    'receiver.v1.webhooks.accepts-valid',
    'a correctly signed, timely v1 delivery is answered 2xx',
    'required',
    'A receiver persists each `event_id` once (unique) before answering 2xx (`204` in the reference handlers).',
    async (ctx) => {
      const { response } = await deliver(ctx, {}, 'a valid delivery');
      ctx.observe('status for a valid delivery', response.status, 'the reference handlers answer 204');
      ctx.expect(ok(response.status), `a valid signed delivery got ${response.status}, not 2xx`);
    },
  ),
  rule('receiver.v1.webhooks.duplicate', 'a second delivery of the same event_id is answered with success', 'required', 'A duplicate is answered with success without repeating the effect.', async (ctx) => {
    const first = await acceptedFirst(ctx);
    // An at-least-once sender re-signs a retry with a fresh timestamp; the body is the same.
    const { response } = await deliver(ctx, { eventId: first.eventId, rawBody: () => first.rawBody }, 'the same event_id again');
    ctx.observe('repeated effect', 'not observable from outside', 'whether the receiver repeated its effect cannot be seen over HTTP: only the success answer is judged');
    ctx.expect(ok(response.status), `the duplicate of event ${first.eventId} got ${response.status}, not 2xx: a retried delivery must be answered with success`);
  }),
  rule('receiver.v1.webhooks.bad-signature', 'a delivery signed with another secret, whose body changed after signing, or that carries no signature, gets 401', 'required', 'A receiver returns `401` on a bad signature', async (ctx) => {
    const { response: wrongSecret } = await deliver(ctx, { signWith: `apicert-wrong-secret-${Date.now()}` }, 'signed with another secret');
    ctx.expect(wrongSecret.status === 401, `a delivery signed with another secret got ${wrongSecret.status}, not 401`);
    const delivery = await signedDelivery(secretOf(ctx));
    const tampered = delivery.rawBody.replace('"sequence":1', '"sequence":2');
    const response = await ctx.http.send({ method: 'POST', path: '', credential: null, headers: delivery.headers, rawBody: tampered, label: 'body changed after signing' });
    ctx.expect(response.status === 401, `a delivery whose body changed after signing got ${response.status}, not 401`);
    // No signature is no good one: a receiver that verifies only when the header is there takes anyone's deliveries.
    const unsigned = await signedDelivery(secretOf(ctx));
    const { [WEBHOOK_HEADERS.signature]: _signature, ...headers } = unsigned.headers;
    const bare = await ctx.http.send({ method: 'POST', path: '', credential: null, headers, rawBody: unsigned.rawBody, label: 'no Service-Webhook-Signature' });
    ctx.expect(bare.status === 401, `a delivery without Service-Webhook-Signature got ${bare.status}, not 401`);
  }),
  rule('receiver.v1.webhooks.timestamp-past', `a delivery stamped ${OFF_CLOCK_SECONDS} s in the past is rejected`, 'required', RULE_4, async (ctx) => {
    const { response } = await deliver(ctx, { skewSeconds: -OFF_CLOCK_SECONDS }, `timestamp ${OFF_CLOCK_SECONDS} s old`);
    ctx.observe('status for a stale timestamp', response.status, 'the seed does not name the status; any 4xx rejects');
    ctx.expect(response.status >= 400 && response.status < 500, `a correctly signed delivery stamped ${OFF_CLOCK_SECONDS} s ago got ${response.status}: it must be rejected (4xx)`);
  }),
  rule('receiver.v1.webhooks.timestamp-future', `a delivery stamped ${OFF_CLOCK_SECONDS} s in the future is rejected`, 'required', RULE_4, async (ctx) => {
    const { response } = await deliver(ctx, { skewSeconds: OFF_CLOCK_SECONDS }, `timestamp ${OFF_CLOCK_SECONDS} s ahead`);
    ctx.observe('status for a future timestamp', response.status, 'the seed does not name the status; any 4xx rejects');
    ctx.expect(response.status >= 400 && response.status < 500, `a correctly signed delivery stamped ${OFF_CLOCK_SECONDS} s ahead got ${response.status}: "differs by more than 300 seconds" holds both ways (4xx)`);
  }),
  rule('receiver.v1.webhooks.api-version', 'a signed delivery whose apiVersion is not v1 gets 400', 'required', RULE_5, async (ctx) => {
    const { response } = await deliver(ctx, { body: { apiVersion: 'v2' } }, 'apiVersion v2');
    ctx.expect(response.status === 400, `a correctly signed delivery with apiVersion "v2" got ${response.status}, not 400`);
  }),
  rule('receiver.v1.webhooks.event-id-mismatch', 'a signed delivery whose Service-Webhook-Id differs from body event_id gets 400', 'required', RULE_5, async (ctx) => {
    // The signed string uses the header's id: the receiver can verify it before parsing the body.
    const { response } = await deliver(ctx, { body: { event_id: 'evt_apicert_other_id' } }, 'header and body event ids differ');
    ctx.expect(response.status === 400, `a correctly signed delivery whose header and body event ids differ got ${response.status}, not 400`);
  }),
  rule('receiver.v1.webhooks.raw-body', 'a body no serializer writes (reordered keys, whitespace, escapes), signed over its exact bytes, is accepted', 'required', 'A receiver verifies against the raw body before parsing it.', async (ctx) => {
    await acceptedFirst(ctx);
    const { delivery, response } = await deliver(ctx, { rawBody: unusualJson }, 'unusual but valid JSON bytes');
    ctx.expect(
      ok(response.status),
      response.status === 401
        ? `a delivery signed over its exact bytes (${delivery.rawBody.length} bytes, keys reordered, spaced, an escaped character) got 401: the receiver verifies a re-serialization, not the raw body`
        : `a delivery signed over its exact, unusual but valid JSON bytes got ${response.status}, not 2xx`,
    );
  }),
  rule('receiver.v1.webhooks.ordering', 'deliveries of one run arriving out of sequence order are both accepted', 'observation', 'A receiver orders events within one `run_id` by `sequence`.', async (ctx) => {
    const runId = newRunId();
    const { response: later } = await deliver(ctx, { runId, sequence: 2 }, 'sequence 2 first');
    if (!ok(later.status)) ctx.inconclusive(`setup failed: the receiver answered ${later.status} to a valid signed delivery (see receiver.v1.webhooks.accepts-valid)`);
    const { response: earlier } = await deliver(ctx, { runId, sequence: 1 }, 'then sequence 1');
    ctx.observe('statuses for sequence 2 then 1', [later.status, earlier.status], 'the order the receiver applies is not observable from outside; delivery "may arrive out of order", so both must be taken');
    ctx.expect(ok(later.status) && ok(earlier.status), `out-of-order deliveries of one run got ${later.status} and ${earlier.status}; both must be accepted and ordered by the receiver`);
  }),
];
