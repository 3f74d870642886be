/** Events > Webhooks: what each delivery carries, judged by the harness's receiver. */
import { type CheckContext, type Exchange, type Judge, type Judgement, section } from '../../../rule/index.ts';
import { issuesOf, parsedAs, requestBodyMissing, requestJson } from '../../../traffic/read.ts';
import { eventIdText } from '../../../webhooks/signature.ts';
import { deliveriesIn, deliveryJson, deliveryType, isTerminalType, judgeDeliveries, withJudgement } from './traffic.ts';
import { webhookDeliveryBody, WEBHOOK_HEADERS, WEBHOOK_SIGNATURE_PATTERN } from '../../../contract/v1/webhooks.ts';
import { ENDPOINT_SECRET_LABEL, WEBHOOK_SECRET_VARIABLE } from '../../../webhooks/signature.ts';
import { macVerifies } from '../../../webhooks/mac.ts';
import { CLAIM_HOLD_MS, type ReceivedDelivery } from '../../../webhooks/receiver.ts';
import { bodyOf, eventIdOf, firstAttempts, keptDeliveries, macMatches, isTerminal, ofRun, recordDeliveries, startRun, typeOf, untilTerminal } from './support.ts';
import { runDeliveries, sharedHook, startAnswered } from './shared.ts';
import { findDelivery } from './operations.ts';

/** A delivery listing's status that says the sender stopped trying (dead-letter rules: not shown; a plain `failed` may await a retry). */
const GAVE_UP = /dead|exhaust|abandon|gave.?up/i;

const rule = section({ destructive: 'mutate', surface: 'v1', document: 'v1-execution-fabric.md', needs: { credentials: ['v1:registrar'], fixtures: ['webhooks.runs.completes'], receiver: true } });

const SECTION = 'Events > Webhooks';
const DELIVERY_SENTENCE = 'Each delivery is an HTTP POST with a JSON body that includes `apiVersion` (`v1`), `event_id`, `run_id` and `sequence`.';

const DELIVERIES_RECORD = 'webhook deliveries at your receiver (POST requests carrying Service-Webhook-Signature)';

/** A delivery's body, telling the judgement when the recording did not keep it. */
function keptBody(j: Judge, ex: Exchange): Record<string, unknown> | undefined {
  const missing = requestBodyMissing(ex);
  if (missing !== undefined || ex.requestBody === undefined) {
    j.lacks(ex, `the delivery's body: ${missing ?? 'not recorded'}`);
    return undefined;
  }
  return deliveryJson(ex) ?? {};
}

/** The active check of a rule judged on deliveries alone: provoke a run's deliveries, judge them with the rule's one judgement. */
function judgingDeliveries(judgement: Judgement, options: { withSecret?: boolean } = {}) {
  return async (ctx: CheckContext): Promise<void> => {
    const { hook, deliveries } = await runDeliveries(ctx);
    judgeDeliveries(ctx, judgement, hook.endpoint.url, deliveries, options.withSecret ? hook.secret : undefined);
  };
}

const bodyJudgement: Judgement = {
  record: DELIVERIES_RECORD,
  judge(j) {
    for (const ex of deliveriesIn(j.exchanges)) {
      if (keptBody(j, ex) === undefined) continue;
      const parsed = parsedAs(webhookDeliveryBody, requestJson(ex));
      j.check(ex, ex.method === 'POST' && parsed.success, `the delivery is not a JSON POST with apiVersion v1, event_id, run_id and a sequence that is an integer or its digits (${parsed.success ? ex.method : issuesOf(parsed.error)})`);
    }
  },
};

const idHeaderJudgement: Judgement = {
  record: DELIVERIES_RECORD,
  judge(j) {
    for (const ex of deliveriesIn(j.exchanges)) {
      const header = ex.requestHeaders[WEBHOOK_HEADERS.id];
      if (!j.check(ex, header !== undefined, 'a delivery has no Service-Webhook-Id header')) continue;
      const body = keptBody(j, ex);
      if (body === undefined) continue;
      // An integer event_id stands for its decimal digits, which the header carries.
      j.check(ex, header === eventIdText(body.event_id), `Service-Webhook-Id ${header} differs from the body event_id ${JSON.stringify(body.event_id)}`);
    }
  },
};

const timestampJudgement: Judgement = {
  record: `${DELIVERIES_RECORD}, with the time each arrived`,
  judge(j) {
    for (const ex of deliveriesIn(j.exchanges)) {
      const value = ex.requestHeaders[WEBHOOK_HEADERS.timestamp];
      if (!j.check(ex, value !== undefined && /^\d+$/.test(value), `Service-Webhook-Timestamp is ${JSON.stringify(value)}, not a decimal count of seconds`)) continue;
      const arrived = ex.startedAt === undefined ? Number.NaN : Date.parse(ex.startedAt);
      if (Number.isNaN(arrived)) {
        j.lacks(ex, 'when the delivery arrived: the recording keeps no time for it');
        continue;
      }
      const skew = Number(value) - Math.floor(arrived / 1000);
      j.check(ex, Math.abs(skew) <= 300, `Service-Webhook-Timestamp ${value} is ${skew} s from the receiver's clock (more than 300 s: milliseconds, or a skewed clock)`);
    }
  },
};

const signatureFormatJudgement: Judgement = {
  record: DELIVERIES_RECORD,
  judge(j) {
    for (const ex of deliveriesIn(j.exchanges)) {
      const value = ex.requestHeaders[WEBHOOK_HEADERS.signature];
      j.check(ex, value !== undefined && WEBHOOK_SIGNATURE_PATTERN.test(value), `Service-Webhook-Signature is ${JSON.stringify(value)}, not v1= followed by 64 lowercase hex characters`);
    }
  },
};

/** Bounds the runs remembered at once, so a recording of any length is judged in bounded memory. */
const RUNS_REMEMBERED = 10_000;

const sequenceJudgement: Judgement = {
  record: `${DELIVERIES_RECORD}, carrying run_id and event_id`,
  judge(j) {
    // Each run's events by event_id (a retry repeats one), in arrival order.
    const runs = new Map<string, Map<string, { ex: Exchange; sequence: unknown; terminal: boolean }>>();
    for (const ex of deliveriesIn(j.exchanges)) {
      const body = deliveryJson(ex);
      const runId = body?.run_id;
      const eventId = eventIdText(body?.event_id);
      if (typeof runId !== 'string' || eventId === undefined) continue;
      let events = runs.get(runId);
      if (!events) {
        if (runs.size >= RUNS_REMEMBERED) runs.delete(runs.keys().next().value!);
        runs.set(runId, (events = new Map()));
      }
      if (!events.has(eventId)) events.set(eventId, { ex, sequence: body!.sequence, terminal: isTerminalType(deliveryType(body)) });
    }
    for (const [runId, events] of runs) {
      // One event orders trivially, but its sequence must still be an integer (a run may be delivered only its terminal event).
      const list = [...events.values()];
      const last = list.at(-1)!.ex;
      const others = list.slice(0, -1).slice(-5).map((e) => e.ex);
      // The JSON type of sequence is the body rule's verdict; here only whether it orders.
      const sequences = list.map((e) => Number(e.sequence));
      if (!j.check(last, sequences.every((n) => Number.isInteger(n)), `run ${runId}'s deliveries carry sequences ${JSON.stringify(list.map((e) => e.sequence))}, not integers`, others)) continue;
      j.check(last, new Set(sequences).size === sequences.length, `two events of run ${runId} share a sequence (${JSON.stringify(sequences)}), so they cannot be ordered`, others);
      const terminal = list.find((e) => e.terminal);
      if (terminal) j.check(terminal.ex, Number(terminal.sequence) === Math.max(...sequences), `the terminal event of run ${runId} has sequence ${String(terminal.sequence)}, below the run's highest ${Math.max(...sequences)}`, others);
    }
  },
};

export const deliveryBody = withJudgement(
  rule({
    id: 'v1.webhooks.delivery.body',
    title: 'Every delivery is a JSON POST with apiVersion v1, event_id, run_id and a sequence (an integer, or a string of its digits)',
    level: 'required',
    spec: { section: SECTION, quote: DELIVERY_SENTENCE },
    async check(ctx: CheckContext) {
      const { hook, runId, deliveries } = await runDeliveries(ctx);
      judgeDeliveries(ctx, bodyJudgement, hook.endpoint.url, deliveries);
      // Which run a delivery belongs to is known only to whoever started the run.
      for (const d of firstAttempts(deliveries)) {
        const named = bodyOf(d).run_id;
        if (typeof named === 'string') ctx.check(named === runId, `a delivery for run ${runId} names run ${named}`, d);
      }
      const d = deliveries[0]!;
      ctx.observe('content-type of deliveries', d.headers['content-type'] ?? null);
      ctx.observe('body fields', Object.keys(bodyOf(d)).sort(), 'the seed lists apiVersion, event_id, run_id and sequence as included, not as the whole body');
    },
  }),
  bodyJudgement,
);

export const idHeader = withJudgement(
  rule({
    id: 'v1.webhooks.delivery.id-header',
    title: 'Service-Webhook-Id equals the body event_id',
    level: 'required',
    spec: { section: SECTION, quote: '`Service-Webhook-Id` | the event id; must equal body `event_id`' },
    check: judgingDeliveries(idHeaderJudgement),
  }),
  idHeaderJudgement,
);

export const timestampHeader = withJudgement(
  rule({
    id: 'v1.webhooks.delivery.timestamp',
    title: "Service-Webhook-Timestamp is Unix seconds within 300 s of the receiver's clock",
    level: 'required',
    spec: {
      section: `${SECTION} > Signature rules`,
      quote: '`Service-Webhook-Timestamp` | Unix seconds … A receiver rejects a timestamp that differs from its clock by more than 300 seconds',
    },
    check: judgingDeliveries(timestampJudgement),
  }),
  timestampJudgement,
);

export const signatureFormat = withJudgement(
  rule({
    id: 'v1.webhooks.delivery.signature-format',
    title: 'Service-Webhook-Signature is v1= followed by 64 lowercase hex characters',
    level: 'required',
    spec: { section: SECTION, quote: '`Service-Webhook-Signature` | `v1=` followed by 64 lowercase hex characters' },
    check: judgingDeliveries(signatureFormatJudgement),
  }),
  signatureFormatJudgement,
);

const signatureValidJudgement: Judgement = {
  record: DELIVERIES_RECORD,
  judge(j) {
    for (const ex of deliveriesIn(j.exchanges)) {
      const id = ex.requestHeaders[WEBHOOK_HEADERS.id] ?? '(no id)';
      // apicert's recordings hide the signing secret, and say instead whether the MAC verified with it (the same macVerifies, before it was hidden).
      if (ex.signatureVerified !== undefined) {
        j.check(ex, ex.signatureVerified, `the signature of event ${id} does not verify over the raw body with the endpoint's signing_secret (as the recording's writer found with the secret it hid)`);
        continue;
      }
      // The endpoint's signing secret is no part of a delivery: the receiver knows it, or the environment gives it.
      const secret =
        j.secrets.find((s) => s.label === ENDPOINT_SECRET_LABEL)?.value ??
        j.untestable({ need: 'setting', name: WEBHOOK_SECRET_VARIABLE, remedy: `the recording holds webhook deliveries: set ${WEBHOOK_SECRET_VARIABLE} to the endpoint's signing_secret` });
      if (keptBody(j, ex) === undefined) continue;
      j.check(ex, macVerifies(ex.requestHeaders, Buffer.from(ex.requestBody ?? '', 'utf8'), secret), `the signature of event ${id} does not verify over the raw body with the endpoint's signing_secret`);
    }
  },
};

export const signatureValid = withJudgement(
  rule({
    id: 'v1.webhooks.delivery.signature-valid',
    title: "The signature is HMAC-SHA-256 over <event_id>.<timestamp>.<raw body> with the endpoint's signing_secret",
    level: 'required',
    spec: {
      section: `${SECTION} > Signature rules`,
      quote: "The signed string is `<event_id>.<timestamp>.<raw request body>`, joined with dots. … The MAC is HMAC-SHA-256 keyed with the endpoint's `signing_secret`. … A receiver verifies against the raw body before parsing it.",
    },
    check: judgingDeliveries(signatureValidJudgement, { withSecret: true }),
  }),
  signatureValidJudgement,
);

export const terminalEvents = rule({
  id: 'v1.webhooks.delivery.terminal-events',
  title: 'A completed run is delivered as run.completed and a failed run as run.failed',
  level: 'required',
  activeOnly: 'needs to know which run was meant to complete and which to fail',
  needs: { fixtures: ['webhooks.runs.fails'] },
  spec: { section: SECTION, quote: 'Event types named: `run.completed`, `run.failed`.' },
  async check(ctx: CheckContext) {
    const hook = await sharedHook(ctx);
    const completed = await startRun(ctx, 'completes');
    const failed = await startRun(ctx, 'fails');
    const runs = [
      [completed, 'run.completed'],
      [failed, 'run.failed'],
    ] as const;
    const seen = [];
    for (const [runId] of runs) seen.push(await untilTerminal(ctx, hook, runId));
    // Nothing of either run reached the receiver: the path to it is in doubt, not the deployment (as runDeliveries says for the other delivery rules).
    if (seen.every((s) => s.deliveries.length === 0)) {
      ctx.untestable({ need: 'receiver', remedy: `no delivery for run ${completed} or ${failed} reached it within ${ctx.profile.fixtures.webhooks.deliveryTimeoutMs} ms (fixtures.webhooks.deliveryTimeoutMs): check that the public receiver URL forwards to apicert` });
    }
    for (const [i, [runId, expected]] of runs.entries()) {
      const { deliveries, terminal } = seen[i]!;
      recordDeliveries(ctx, hook.endpoint, deliveries);
      const types = [...new Set(deliveries.map(typeOf))];
      if (!ctx.check(terminal, `run ${runId} (expected to end ${expected}) produced no terminal delivery within ${ctx.profile.fixtures.webhooks.deliveryTimeoutMs} ms; types received: ${JSON.stringify(types)}`)) continue;
      ctx.check(types.includes(expected), `run ${runId} was delivered as ${JSON.stringify(types)}, without ${expected}`, deliveries.find(isTerminal));
    }
  },
});

/** What names the event a delivery stands for, beside its event_id: a retry must not change these. */
const EVENT_FIELDS = ['run_id', 'sequence'] as const;

/** The event fields (and the type) in which a retry differs from the first attempt, each shown as first → retry. */
function changedEventFields(first: ReceivedDelivery, retry: ReceivedDelivery): string[] {
  const a = bodyOf(first);
  const b = bodyOf(retry);
  // A sequence of 3 and one of "3" name the same event (the seed does not show the field's JSON type).
  const text = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : JSON.stringify(v));
  const changed = EVENT_FIELDS.filter((f) => text(a[f]) !== text(b[f])).map((f) => `${f} (${JSON.stringify(a[f])} → ${JSON.stringify(b[f])})`);
  if (typeOf(first) !== typeOf(retry)) changed.push(`the type (${typeOf(first) ?? 'none'} → ${typeOf(retry) ?? 'none'})`);
  return changed;
}

/** Attempts of one event, recognised by run, type and sequence even if a retry wrongly carries a new id. */
function eventKey(d: ReceivedDelivery): string {
  const b = bodyOf(d);
  return `${String(b.run_id)}#${typeOf(d) ?? ''}#${String(b.sequence)}`;
}

export const retry = rule({
  id: 'v1.webhooks.delivery.retry',
  title: 'A delivery answered 500 is retried (at least once) as the same event: the same event_id, run_id, type and sequence, and a valid signature (other body fields, signature and timestamp may change)',
  level: 'required',
  activeOnly: 'needs a receiver that answers 500 once, and waits for the retry',
  spec: {
    section: SECTION,
    quote: 'Delivery is at least once and may arrive out of order. … Behavior confirmed to exist: HMAC signing, exponential retry, dead-letter',
  },
  async check(ctx: CheckContext) {
    const hook = await sharedHook(ctx);
    const failedOnce = new Set<string>();
    // The shared endpoint answers 500 to the first attempt of each event of this rule's run only.
    const runId = await startAnswered(ctx, hook.endpoint, 'completes', (d) => {
      const key = eventKey(d);
      if (failedOnce.has(key)) return undefined;
      failedOnce.add(key);
      return { status: 500 };
    });
    const timeout = ctx.profile.fixtures.webhooks.deliveryTimeoutMs;
    // The terminal event is one per run, so its attempts are found by type alone.
    const terminalAttempts = () => ofRun(hook.endpoint.deliveries, runId).filter(isTerminal);
    if (!(await hook.endpoint.waitFor(() => terminalAttempts().length > 0, timeout))) ctx.untestable({ need: 'receiver', remedy: `no terminal delivery for run ${runId} reached it within ${timeout} ms` });
    if (terminalAttempts()[0]!.answered !== 500) {
      ctx.inconclusive(`setup failed: the first attempt of run ${runId}'s terminal event arrived more than ${CLAIM_HOLD_MS} ms before POST /v1/execute answered with the run's id, so the receiver answered it ${terminalAttempts()[0]!.answered}, not 500`);
    }
    const retried = await hook.endpoint.waitFor(() => terminalAttempts().length >= 2, timeout);
    const attempts = ofRun(keptDeliveries(ctx, hook.endpoint, runId), runId).filter(isTerminal);
    recordDeliveries(ctx, hook.endpoint, attempts);
    if (!retried) {
      // "Retry schedule, dead-letter rules and replay parameters: not shown.": a first retry later than the watch is legal.
      // Only a deployment that shows it gave up after the one attempt (its listing item dead-lettered) earns the failure.
      const eventId = eventIdOf(attempts[0]!);
      const { item } = await findDelivery(ctx, runId, [eventId, hook.endpointId]);
      const status = item?.status;
      const gaveUp = typeof status === 'string' && GAVE_UP.test(status);
      if (gaveUp) ctx.fail(`the terminal delivery answered 500 was not attempted again within ${timeout} ms, and the delivery listing shows it ${JSON.stringify(status)}: given up after one attempt`);
      ctx.inconclusive(`the terminal delivery answered 500 was not attempted again within ${timeout} ms (fixtures.webhooks.deliveryTimeoutMs)${status === undefined ? '' : `; the delivery listing shows it ${JSON.stringify(status).slice(0, 80)}`}: the retry schedule is not shown, so a first retry may come later. Lengthen fixtures.webhooks.deliveryTimeoutMs beyond the deployment's first retry delay and run the rule again`);
    }
    const ids = new Set(attempts.map(eventIdOf));
    ctx.check(ids.size === 1, `the retry carries another event_id than the first attempt: ${[...ids].join(', ')}`);
    // A retry stands for the same event: the fields the seed names ("includes `apiVersion` (`v1`),
    // `event_id`, `run_id` and `sequence`") and the type stay; other fields are open ("Delivery is at
    // least once", receivers deduplicate by event_id), so an attempt counter may change the bytes.
    for (const d of attempts.slice(1)) {
      const changed = changedEventFields(attempts[0]!, d);
      ctx.check(changed.length === 0, `attempt ${d.attempt} of the terminal event changes ${changed.join(', ')} from the first attempt`, d);
    }
    // Whether signatures verify at all is the signature rule's verdict; a retry must be signed as well as the first attempt.
    if (await macMatches(attempts[0]!, hook.secret)) {
      for (const d of attempts.slice(1)) ctx.check(await macMatches(d, hook.secret), `attempt ${d.attempt} of the terminal event does not carry a valid signature although the first did`, d);
    }
    ctx.observe('delay before the first retry (ms)', attempts[1]!.receivedAt - attempts[0]!.receivedAt, 'the seed does not show the retry schedule');
  },
});

export const sequenceOrder = withJudgement(
  rule({
    id: 'v1.webhooks.delivery.sequence-order',
    title: "sequence orders a run's events: distinct integers per event, the terminal event last",
    level: 'required',
    spec: { section: `${SECTION} > Signature rules`, quote: 'A receiver orders events within one `run_id` by `sequence`.' },
    async check(ctx: CheckContext) {
      const { hook, deliveries } = await runDeliveries(ctx);
      judgeDeliveries(ctx, sequenceJudgement, hook.endpoint.url, deliveries);
      const arrival = deliveries.filter((d) => d.attempt === 1).map((d) => Number(bodyOf(d).sequence));
      const outOfOrder = arrival.filter((n, i) => i > 0 && n < arrival[i - 1]!).length;
      ctx.observe('arrival order of sequences', arrival, outOfOrder ? `${outOfOrder} arrived after a later event` : 'arrived in order this time');
    },
  }),
  sequenceJudgement,
);
