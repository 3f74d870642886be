/**
 * What a webhook receiver must do, from the v1 seed's "Webhooks > Signature rules" (3-7): each rule
 * sends signed deliveries to the receiver under test and judges its answers. Run by
 * `apicert certify-receiver`, never by `certify`.
 */
import { section, serviceKey, TransportError, type CheckContext, type ProbeResponse, type Rule } from '../rule/index.ts';
import { WEBHOOK_HEADERS } from '../webhooks/signature.ts';
import { newRunId, signedDelivery, unusualJson, type Delivery, type DeliveryOptions } from './deliveries.ts';

const SECTION = 'Events > Webhooks > Signature rules';
const RULE_4 = "A receiver rejects a timestamp that differs from its clock by more than 300 seconds (the reference verifier's tolerance).";
const RULE_5 = 'A receiver returns `401` on a bad signature and `400` if `apiVersion` is not `v1` or header and body event ids differ.';
const RULE_3 = 'A receiver verifies against the raw body before parsing it.';
const RULE_6 = 'A receiver persists each `event_id` once (unique) before answering 2xx (`204` in the reference handlers).';
const TOLERANCE_SECONDS = 300;
/**
 * Past the tolerance by this much, so a stamp lands past 300 s on the receiver's clock and a
 * tolerance a few seconds wider does not pass. What it must cover, at most: the offset read from
 * Date, whole seconds cut down, rounded (1 s); the stamp, Unix seconds cut down from apicert's
 * clock (1 s); a receiver that compares whole seconds of its own (1 s); and the time from stamping
 * a delivery to the receiver reading it: milliseconds on the loopback the deliveries go to, but a
 * stamp in the future shrinks by every second of it, so a busy machine's stall must not bring it
 * within 300 s (7 s left for it). A receiver tolerating 311 s or more fails.
 */
const MARGIN_SECONDS = 10;
/** Without a Date header to set the receiver's clock by: far enough that a few minutes of drift do not matter. */
const FALLBACK_OFF_CLOCK_SECONDS = 600;

/** The receiver's signing secret, read from an environment variable and registered with the redactor. */
export const RECEIVER_SECRET = serviceKey<string>('receiver-secret');
/** The environment variable the secret was read from (`APICERT_WEBHOOK_SECRET`, or the one `--secret-env` names). */
export const RECEIVER_SECRET_ENV = serviceKey<string>('receiver-secret-env');

function secretOf(ctx: CheckContext): string {
  const secret = ctx.service(RECEIVER_SECRET);
  if (!secret) ctx.untestable({ need: 'setting', name: ctx.service(RECEIVER_SECRET_ENV) ?? 'APICERT_WEBHOOK_SECRET', remedy: "no signing secret: export the receiver's signing secret in it" });
  return secret;
}

/** The receiver's path and query as given: what every delivery is POSTed to, and what reasons name. */
function receiverPath(ctx: CheckContext): string {
  const url = new URL(ctx.target.baseUrl);
  return `${url.pathname}${url.search}`;
}

/** Rules that saw a malformed answer body already, so each records it once. */
const bodyNoted = new WeakSet<CheckContext>();

/**
 * POSTs one delivery. A timeout says how to give a slow receiver more time (the seed states no time
 * bound); an answer body malformed for its media type is recorded, never judged: no sentence governs it.
 */
async function post(ctx: CheckContext, headers: Record<string, string>, rawBody: string, label: string): Promise<ProbeResponse> {
  const started = performance.now();
  let response: ProbeResponse;
  try {
    response = await ctx.http.send({ method: 'POST', path: receiverPath(ctx), credential: null, headers, rawBody, label });
  } catch (error) {
    const timeoutMs = ctx.profile.safety.requestTimeoutMs;
    if (error instanceof TransportError && performance.now() - started >= 0.95 * timeoutMs) {
      ctx.inconclusive(
        `${error.message}: the seed states no time bound for a receiver; give a slower one more time with receiver.requestTimeoutMs in a --profile (now ${timeoutMs} ms for the answer's headers and for each pause in it, ${3 * timeoutMs} ms for the whole answer)`,
      );
    }
    throw error;
  }
  if (response.cut) {
    // Every receiver rule judges the status, read whole before any byte of the body: the probe, whose
    // bodies no sentence governs (bodiesUngoverned), makes no rule inconclusive for a body past its cap.
    ctx.observe('answer body', `the ${response.status} answer to POST ${receiverPath(ctx)} was cut at the body cap`, "no sentence governs a receiver's answer body: only its status is judged");
  }
  if (response.malformed && !bodyNoted.has(ctx)) {
    bodyNoted.add(ctx);
    ctx.observe('answer body', `the ${response.status} answer to POST ${receiverPath(ctx)} ${response.malformed}`, "no sentence governs a receiver's answer body: recorded, not judged");
  }
  return response;
}

async function deliver(ctx: CheckContext, options: DeliveryOptions, label: string): Promise<{ delivery: Delivery; response: ProbeResponse; answeredAt: number }> {
  const delivery = await signedDelivery(secretOf(ctx), options);
  const response = await post(ctx, delivery.headers, delivery.rawBody, label);
  return { delivery, response, answeredAt: Date.now() };
}

const ok = (status: number) => status >= 200 && status < 300;
const clientError = (status: number) => status >= 400 && status < 500;

/**
 * The one reading of 408 and 429 wherever a rule expects a refusal: they refuse for time or rate and
 * ask for the request again later (RFC 9110 15.5.9, RFC 6585 4). They say when, not what, so they
 * neither reject a delivery's signature, stamp or body (rules 4 and 5) nor show that the receiver
 * would take it: such a case is not judged, and a rule with no other case failing is inconclusive.
 */
const postponed = (status: number) => status === 408 || status === 429;
const POSTPONED = 'a refusal for time or rate (RFC 9110 15.5.9, RFC 6585 4) that asks for the request again later and does not show whether the receiver';

/** Judges an expected refusal, or notes it unjudged when the answer is 408 or 429 (see `postponed`). */
function refusalCase(ctx: CheckContext, unjudged: string[], what: string, response: ProbeResponse, refused: boolean, failure: string): void {
  if (postponed(response.status)) unjudged.push(`${what} got ${response.status}`);
  else ctx.check(refused, failure, response);
}

/** After every case of a rule: inconclusive when a case went unjudged (cases already failed stand). */
function judgedAll(ctx: CheckContext, unjudged: readonly string[], refuses: string): void {
  if (unjudged.length > 0) ctx.inconclusive(`${unjudged.join('; ')}: ${POSTPONED} ${refuses}`);
}

/**
 * Rules that judge a refusal or a variation need the receiver to take an ordinary delivery first:
 * a receiver that refuses everything (a wrong path, a wrong secret) told nothing apart.
 */
async function acceptedFirst(ctx: CheckContext, options: DeliveryOptions = {}): Promise<{ delivery: Delivery; response: ProbeResponse; answeredAt: number }> {
  const accepted = await deliver(ctx, options, 'a valid delivery');
  if (!ok(accepted.response.status)) ctx.inconclusive(`setup failed: the receiver answered ${accepted.response.status} to a valid signed delivery, so this rule has nothing to compare with (see receiver.v1.webhooks.accepts-valid)`);
  return accepted;
}

/**
 * How far off apicert's clock a delivery is stamped so that it is past the tolerance on the
 * receiver's clock: 300 s + |offset| + a margin, the offset read from the Date header of the answer
 * to a valid delivery (RFC 9110 6.6.1: an origin server with a clock sends Date). Counting |offset|
 * on apicert's clock keeps the stamp past the tolerance on either clock, should Date be wrong.
 */
function offClockSeconds(ctx: CheckContext, accepted: { response: ProbeResponse; answeredAt: number }): { seconds: number; basis: string } {
  const offset = clockOffset(accepted);
  if (offset === undefined) {
    const basis = `the receiver sent no Date header, so ${FALLBACK_OFF_CLOCK_SECONDS} s off apicert's clock`;
    ctx.observe('receiver clock', 'no Date header', `deliveries stamped ${FALLBACK_OFF_CLOCK_SECONDS} s off apicert's clock`);
    return { seconds: FALLBACK_OFF_CLOCK_SECONDS, basis };
  }
  const seconds = TOLERANCE_SECONDS + Math.abs(offset) + MARGIN_SECONDS;
  ctx.observe('receiver clock', `${offset} s from apicert's (Date header, whole seconds)`, `deliveries stamped ${seconds} s off apicert's clock: ${TOLERANCE_SECONDS} s + |offset| + ${MARGIN_SECONDS} s`);
  return { seconds, basis: `its Date header puts its clock ${offset} s from apicert's` };
}

/** The receiver's clock minus apicert's, in whole seconds, from the Date header of an answer; undefined without one. */
function clockOffset(answer: { response: ProbeResponse; answeredAt: number }): number | undefined {
  const date = Date.parse(answer.response.headers.date ?? '');
  // Date has whole seconds, cut down: the receiver's clock stood half a second past it on average.
  return Number.isNaN(date) ? undefined : Math.round((date + 500 - answer.answeredAt) / 1000);
}

/**
 * Why a valid delivery may have been refused, where the answer shows it: a clock off by more than
 * the tolerance (its Date header) makes apicert's timely stamp stale or early to the receiver (400
 * or 401, as it chooses), and 401 is the seed's status for a bad signature, most often a secret
 * apicert was not given.
 */
function refusedValidHint(ctx: CheckContext, answer: { response: ProbeResponse; answeredAt: number }): string {
  const offset = clockOffset(answer);
  if (offset !== undefined && Math.abs(offset) > TOLERANCE_SECONDS) {
    return `: its Date header puts its clock ${offset} s from apicert's, more than the ${TOLERANCE_SECONDS} s tolerance, so a stamp timely on apicert's clock is ${offset > 0 ? 'stale' : 'in the future'} on the receiver's; set the clocks right`;
  }
  if (answer.response.status === 401) {
    return `: 401 is the seed's status for a bad signature; check that ${ctx.service(RECEIVER_SECRET_ENV) ?? 'APICERT_WEBHOOK_SECRET'} holds this receiver's signing secret`;
  }
  return '';
}

/** The pause before a refused delivery is sent again: an at-least-once sender retries after a while, not at once. */
const RETRY_PAUSE_MS = 500;

/**
 * A delivery due to be taken, sent once more, as the sender would, when refused: "never taken" is
 * two refusals, so a receiver that refuses once for a passing reason is not failed.
 */
async function takenOnRetry(ctx: CheckContext, sent: { delivery: Delivery; response: ProbeResponse }, label: string): Promise<{ response: ProbeResponse; status: number; statuses: string; eventId: string }> {
  const { delivery } = sent;
  if (ok(sent.response.status)) return { response: sent.response, status: sent.response.status, statuses: String(sent.response.status), eventId: delivery.eventId };
  await ctx.sleep(RETRY_PAUSE_MS);
  const { response } = await deliver(ctx, { eventId: delivery.eventId, rawBody: () => delivery.rawBody }, `${label}, retried`);
  if (ok(response.status)) ctx.observe(`status for ${label}, refused once`, sent.response.status, `taken when retried (${response.status})`);
  return { response, status: response.status, statuses: `${sent.response.status}, then ${response.status} when retried`, eventId: delivery.eventId };
}

const declare = section({ surface: 'receiver', document: 'v1-execution-fabric.md', section: SECTION, destructive: 'mutate' });
function rule(id: string, title: string, level: Rule['level'], quote: string, check: Rule['check']): Rule {
  return declare({ id, title, level, spec: { quote }, check });
}

async function offClock(ctx: CheckContext, direction: 'past' | 'future'): Promise<void> {
  const { seconds, basis } = offClockSeconds(ctx, await acceptedFirst(ctx));
  const skewSeconds = direction === 'past' ? -seconds : seconds;
  const { response } = await deliver(ctx, { skewSeconds }, `timestamp ${seconds} s ${direction === 'past' ? 'old' : 'ahead'}`);
  ctx.observe(`status for a ${direction === 'past' ? 'stale' : 'future'} timestamp`, response.status, 'the seed does not name the status; any 4xx but 408 and 429 rejects');
  const stamped = direction === 'past' ? `${seconds} s ago` : `${seconds} s ahead`;
  const both = direction === 'future' ? ': "differs by more than 300 seconds" holds both ways' : '';
  const unjudged: string[] = [];
  refusalCase(ctx, unjudged, `a correctly signed delivery stamped ${stamped}`, response, clientError(response.status), `a correctly signed delivery stamped ${stamped} (${basis}) got ${response.status}: it must be rejected (4xx)${both}`);
  judgedAll(ctx, unjudged, 'rejects the timestamp');
}

export const receiverRules: readonly Rule[] = [
  rule(
    'receiver.v1.webhooks.accepts-valid',
    'a correctly signed, timely v1 delivery is answered 2xx',
    'required',
    RULE_6,
    async (ctx) => {
      const answer = await deliver(ctx, {}, 'a valid delivery');
      const { response } = answer;
      ctx.observe('status for a valid delivery', response.status, 'the reference handlers answer 204');
      ctx.expect(ok(response.status), `a valid signed delivery got ${response.status}, not 2xx${ok(response.status) ? '' : refusedValidHint(ctx, answer)}`);
    },
  ),
  rule('receiver.v1.webhooks.duplicate', 'a second delivery of the same event_id is answered with success', 'required', 'A duplicate is answered with success without repeating the effect.', async (ctx) => {
    const { delivery: first } = await acceptedFirst(ctx);
    // An at-least-once sender re-signs a retry with a fresh timestamp; the body is the same.
    const { response } = await deliver(ctx, { eventId: first.eventId, rawBody: () => first.rawBody }, 'the same event_id again');
    ctx.observe('repeated effect', 'not observable from outside', 'whether the receiver repeated its effect cannot be seen over HTTP: only the success answer is judged');
    ctx.expect(ok(response.status), `the duplicate of event ${first.eventId} got ${response.status}, not 2xx: a retried delivery must be answered with success`);
  }),
  rule('receiver.v1.webhooks.bad-signature', 'a delivery signed with another secret (one of them reusing the event_id of a delivery it took), whose body changed after signing, or whose bad signature covers a body that is not JSON or says apiVersion v2, gets 401; one without a signature is refused (4xx)', 'required', `${RULE_3} … A receiver returns \`401\` on a bad signature`, async (ctx) => {
    const { delivery: taken } = await acceptedFirst(ctx);
    const unjudged: string[] = [];
    const wrong = `apicert-wrong-secret-${Date.now()}`;
    const { response: wrongSecret } = await deliver(ctx, { signWith: wrong }, 'signed with another secret');
    refusalCase(ctx, unjudged, 'a delivery signed with another secret', wrongSecret, wrongSecret.status === 401, `a delivery signed with another secret got ${wrongSecret.status}, not 401`);
    // A duplicate (rule 6) is the sender's re-delivery, signed as any other: a known Service-Webhook-Id
    // taken for one before the signature is verified lets anyone's delivery through as a duplicate.
    const { response: knownId } = await deliver(ctx, { signWith: wrong, eventId: taken.eventId, rawBody: () => taken.rawBody }, 'signed with another secret, the event_id of a delivery taken');
    refusalCase(
      ctx,
      unjudged,
      'a delivery signed with another secret reusing a taken event_id',
      knownId,
      knownId.status === 401,
      ok(knownId.status)
        ? `a delivery signed with another secret reusing the event_id of a delivery the receiver took (${taken.eventId}) got ${knownId.status}, not 401: the receiver answered it as a duplicate before verifying its signature`
        : `a delivery signed with another secret reusing the event_id of a delivery the receiver took (${taken.eventId}) got ${knownId.status}, not 401`,
    );
    // Verified before it is parsed (rule 3), a body with a bad signature is refused as one (401)
    // whatever it holds; a 400 means the receiver read the body before it knew who sent it.
    const { response: notJson } = await deliver(ctx, { signWith: wrong, rawBody: () => 'apicert: not JSON {' }, 'signed with another secret, a body that is not JSON');
    refusalCase(ctx, unjudged, 'a delivery signed with another secret whose body is not JSON', notJson, notJson.status === 401, `a delivery signed with another secret whose body is not JSON got ${notJson.status}, not 401: the receiver parsed the body before verifying its signature`);
    const { response: v2 } = await deliver(ctx, { signWith: wrong, body: { apiVersion: 'v2' } }, 'signed with another secret, apiVersion v2');
    refusalCase(ctx, unjudged, 'a delivery signed with another secret with apiVersion "v2"', v2, v2.status === 401, `a delivery signed with another secret with apiVersion "v2" got ${v2.status}, not 401: the receiver checked the body before verifying its signature`);
    const delivery = await signedDelivery(secretOf(ctx));
    const tampered = await post(ctx, delivery.headers, delivery.rawBody.replace('"sequence":1', '"sequence":2'), 'body changed after signing');
    refusalCase(ctx, unjudged, 'a delivery whose body changed after signing', tampered, tampered.status === 401, `a delivery whose body changed after signing got ${tampered.status}, not 401`);
    // No signature is no good one: a receiver that verifies only when the header is there takes
    // anyone's deliveries. The seed names 401 for a bad signature and nothing for a missing one, a
    // request malformed (RFC 9110 15.5.1, 400) as much as unauthenticated (15.5.2, 401): any client
    // error but 408 and 429 (see `postponed`) refuses it.
    const unsigned = await signedDelivery(secretOf(ctx));
    const { [WEBHOOK_HEADERS.signature]: _signature, ...headers } = unsigned.headers;
    const bare = await post(ctx, headers, unsigned.rawBody, 'no Service-Webhook-Signature');
    ctx.observe('status for a delivery without Service-Webhook-Signature', bare.status, 'the seed names no status for a missing signature; any 4xx but 408 and 429 refuses it');
    refusalCase(ctx, unjudged, 'a delivery without Service-Webhook-Signature', bare, clientError(bare.status), `a delivery without Service-Webhook-Signature got ${bare.status}: it must be refused (4xx; the seed names 401 for a bad signature)`);
    judgedAll(ctx, unjudged, 'takes deliveries whose signature is bad or missing');
  }),
  rule('receiver.v1.webhooks.timestamp-past', "a delivery stamped more than 300 s before the receiver's clock is rejected", 'required', RULE_4, (ctx) => offClock(ctx, 'past')),
  rule('receiver.v1.webhooks.timestamp-future', "a delivery stamped more than 300 s after the receiver's clock is rejected", 'required', RULE_4, (ctx) => offClock(ctx, 'future')),
  rule('receiver.v1.webhooks.api-version', 'a signed delivery whose apiVersion is not v1 gets 400', 'required', RULE_5, async (ctx) => {
    await acceptedFirst(ctx);
    const { response } = await deliver(ctx, { body: { apiVersion: 'v2' } }, 'apiVersion v2');
    const unjudged: string[] = [];
    refusalCase(ctx, unjudged, 'a correctly signed delivery with apiVersion "v2"', response, response.status === 400, `a correctly signed delivery with apiVersion "v2" got ${response.status}, not 400`);
    judgedAll(ctx, unjudged, 'takes another apiVersion');
  }),
  rule('receiver.v1.webhooks.event-id-mismatch', 'a signed delivery whose Service-Webhook-Id differs from body event_id gets 400', 'required', RULE_5, async (ctx) => {
    await acceptedFirst(ctx);
    // The signed string uses the header's id: the receiver can verify it before parsing the body.
    const { response } = await deliver(ctx, { body: { event_id: 'evt_apicert_other_id' } }, 'header and body event ids differ');
    const unjudged: string[] = [];
    refusalCase(ctx, unjudged, 'a correctly signed delivery whose header and body event ids differ', response, response.status === 400, `a correctly signed delivery whose header and body event ids differ got ${response.status}, not 400`);
    judgedAll(ctx, unjudged, 'takes ids that differ');
  }),
  rule('receiver.v1.webhooks.raw-body', 'a body no serializer writes (reordered keys, whitespace, escapes), signed over its exact bytes, is accepted', 'required', RULE_3, async (ctx) => {
    await acceptedFirst(ctx);
    const { delivery, response } = await deliver(ctx, { rawBody: unusualJson }, 'unusual but valid JSON bytes');
    ctx.expect(
      ok(response.status),
      response.status === 401
        ? `a delivery signed over its exact bytes (${delivery.rawBody.length} bytes, keys reordered, spaced, an escaped character) got 401: the receiver verifies a re-serialization, not the raw body`
        : `a delivery signed over its exact, unusual but valid JSON bytes (the fields of an ordinary delivery: the four the seed names, type and created_at) got ${response.status}, not 2xx`,
    );
  }),
  // Out of order, sequence 2 may be taken at once or refused so that the sender retries it ("at least
  // once"): either orders the run, and which order the receiver applies is not observable. That an
  // event is taken at all is: a receiver persists each event_id (rule 6), so once nothing comes before
  // it in its run (sequence 1; sequence 2 after 1 was taken), a valid, timely delivery refused on its
  // retry too is never taken. acceptedFirst shows the receiver takes a run's sequence 1 on its own.
  rule(
    'receiver.v1.webhooks.ordering',
    'sequence 1 of a run arriving after sequence 2 is taken (2xx), and a sequence 2 refused before it is taken once retried after it; a delivery refused there is sent once more before it fails',
    'required',
    `Delivery is at least once and may arrive out of order. … ${RULE_6} … A receiver orders events within one \`run_id\` by \`sequence\`.`,
    async (ctx) => {
      await acceptedFirst(ctx);
      const runId = newRunId();
      const second = await deliver(ctx, { runId, sequence: 2 }, 'sequence 2 first');
      const later = second.response.status;
      ctx.observe(
        'status for sequence 2 before sequence 1',
        later,
        ok(later) ? 'taken out of order: the receiver orders it once sequence 1 arrives' : 'refused: delivery is at least once, so the sender retries it; holding it back until sequence 1 is one way to order',
      );
      const earlier = await takenOnRetry(ctx, await deliver(ctx, { runId, sequence: 1 }, 'then sequence 1'), 'sequence 1');
      if (!ctx.check(ok(earlier.status), `sequence 1 of a run, sent after its sequence 2 (answered ${later}), got ${earlier.statuses}: refused with nothing before it in its run, event ${earlier.eventId} is never taken (a receiver persists each event_id; holding back a later sequence is its choice)`, earlier.response)) return;
      if (ok(later)) return;
      // An at-least-once sender retries the refused delivery: same event and bytes, a fresh timestamp.
      const retried = await takenOnRetry(ctx, await deliver(ctx, { eventId: second.delivery.eventId, rawBody: () => second.delivery.rawBody }, 'sequence 2 again, after sequence 1'), 'sequence 2');
      ctx.check(ok(retried.status), `sequence 2, refused with ${later} before sequence 1 and retried after sequence 1 was taken, got ${retried.statuses}: with the gap filled, event ${second.delivery.eventId} is never taken (a receiver persists each event_id)`, retried.response);
    },
  ),
];
