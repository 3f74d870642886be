import { randomBytes } from 'node:crypto';
import type { CheckContext, ProbeResponse } from '../../../rule/index.ts';
import type { Credential } from '../../../profile/schema.ts';
import { newKey } from '../../../util/ids.ts';
import { TERMINAL_WEBHOOK_EVENTS } from '../../../contract/v1/webhooks.ts';
import { isRecord } from '../../../util/json.ts';
import { deliveryKindOf } from '../../../sse/event-kind.ts';
import { noRoom, roomRefusal } from '../support/traffic.ts';
import { constantTimeEqual, hmacSha256Hex, signedPayload, WEBHOOK_HEADERS } from '../../../webhooks/signature.ts';
import { MAX_DELIVERIES_PER_ENDPOINT, MAX_KEPT_DELIVERY_BYTES, runIdOf, WEBHOOK_RECEIVER, type ReceivedDelivery, type ReceiverEndpoint, type Responder, type WebhookReceiver } from '../../../webhooks/receiver.ts';
import { setupSent } from '../support/limiter.ts';

export const WEBHOOKS = '/v1/webhooks';
export const DELIVERIES = '/v1/webhook-deliveries';

/** Registers endpoints and starts the runs whose events they receive (so both share a tenant). */
export function registrar(ctx: CheckContext): Credential {
  return ctx.credential('v1:registrar');
}

export function holdingOnly(ctx: CheckContext, scope: 'runs:read' | 'runs:write'): Credential {
  return ctx.credential(`v1:holding-only:${scope}`);
}

export function receiverOf(ctx: CheckContext): WebhookReceiver {
  const receiver = ctx.service(WEBHOOK_RECEIVER);
  if (!receiver) ctx.untestable({ need: 'receiver', remedy: ctx.serviceMissing(WEBHOOK_RECEIVER) ?? 'none runs for this certification' });
  return receiver;
}

/** A public HTTPS URL nobody answers (example.com is reserved), for rules that only register. */
export function publicUrl(): string {
  return `https://hooks.example.com/apicert/${randomBytes(6).toString('hex')}`;
}

/**
 * A signing secret learned from a response is registered with the run's redactor, which redacts
 * the evidence already recorded (the 201 itself) again, so the secret reaches no report.
 */
export function protectSecret(ctx: CheckContext, secret: string): void {
  ctx.registerSecret(secret, 'webhook-signing-secret');
}

function secretOf(res: ProbeResponse): string | undefined {
  const value = isRecord(res.json) ? res.json.signing_secret : undefined;
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

export async function registerWebhook(ctx: CheckContext, body: Record<string, unknown>, label: string, credential: Credential = registrar(ctx)): Promise<ProbeResponse> {
  const res = await ctx.http.send({ method: 'POST', path: WEBHOOKS, credential, json: body, label });
  const secret = secretOf(res);
  if (secret) protectSecret(ctx, secret);
  return res;
}

/**
 * A registration apicert needed, refused for room (a cap on endpoints the description leaves open:
 * `roomRefusal`): the rule is untestable, naming the cause, whatever it would have judged.
 */
export function needRoom(ctx: CheckContext, res: ProbeResponse): void {
  const room = roomRefusal(res.status, res.json);
  if (room !== undefined) ctx.untestable(noRoom(room));
}

/** Rejected, in the sense of a client error about the request itself (not auth, not rate limiting). */
export function refused(status: number): boolean {
  return status >= 400 && status < 500 && ![401, 403, 404, 405, 429].includes(status);
}

/**
 * The identifier a record gives itself: field names and id types are not shown, so `id`, then
 * `<noun>_id` or `<noun>Id`, a string or an integer (read as its decimal text).
 */
export function ownId(record: Record<string, unknown>, noun: string): string | undefined {
  for (const name of ['id', `${noun}_id`, `${noun}Id`]) {
    const value = record[name];
    if (typeof value === 'string' && value.length > 0) return value;
    if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  }
  return undefined;
}

export interface Hook {
  endpoint: ReceiverEndpoint;
  secret: string;
  /** The endpoint identifier from the 201, when the target returns one (`id`, `endpoint_id` or `endpointId`). */
  endpointId: string | undefined;
}

/**
 * Registers a fresh receiver path of the rule's own as a setup step, for a rule whose proof needs
 * an endpoint no other rule shares (the others use `sharedHook`).
 */
export async function setupHook(ctx: CheckContext, options: { respond?: Responder; extra?: Record<string, unknown> } = {}): Promise<Hook> {
  const endpoint = receiverOf(ctx).endpoint(options.respond);
  const res = await registerWebhook(ctx, { url: endpoint.url, description: `apicert ${ctx.rule.id}`, ...options.extra }, 'setup: register the receiver endpoint');
  return acceptedHook(ctx, endpoint, res);
}

/** The hook a registration of the endpoint gave, as a setup step: a refusal makes the rule untestable or inconclusive, not failed. */
export function acceptedHook(ctx: CheckContext, endpoint: ReceiverEndpoint, res: ProbeResponse): Hook {
  needRoom(ctx, res);
  if (res.status !== 201) ctx.inconclusive(`setup failed: registering the receiver URL answered ${res.status}, not 201 (is fixtures.webhooks.publicReceiverUrl a public HTTPS URL on the default port?)`);
  const secret = secretOf(res);
  if (!secret) ctx.inconclusive('setup failed: the registration response has no signing_secret, so deliveries cannot be verified');
  endpoint.secret = secret;
  return { endpoint, secret, endpointId: ownId(isRecord(res.json) ? res.json : {}, 'endpoint') };
}

export type RunKind = 'completes' | 'fails';

/** Starts a task-mode run that ends by itself; its events are delivered to the tenant's endpoints. */
export async function startRun(ctx: CheckContext, kind: RunKind): Promise<string> {
  const body = ctx.profile.fixtures.webhooks.runs[kind];
  if (!body) ctx.untestable({ need: 'fixture', path: `webhooks.runs.${kind}`, remedy: `give a task-mode /v1/execute body for a run that ${kind === 'completes' ? 'completes' : 'fails'} within seconds` });
  const key = newKey();
  const res = await setupSent(ctx, 'the task request starting a run to deliver', () =>
    ctx.http.send({
      method: 'POST',
      path: '/v1/execute',
      credential: registrar(ctx),
      headers: { accept: 'application/json', 'idempotency-key': key },
      json: body,
      label: `setup: start a run that ${kind === 'completes' ? 'completes' : 'fails'}`,
    }),
  );
  const runId = isRecord(res.json) ? res.json.run_id : undefined;
  if (res.status !== 200 || typeof runId !== 'string') ctx.inconclusive(`setup failed: POST /v1/execute (task mode) answered ${res.status}${typeof runId === 'string' ? '' : ' without a run_id'}, so no run events can be delivered`);
  return runId;
}

export function bodyOf(d: ReceivedDelivery): Record<string, unknown> {
  return isRecord(d.body) ? d.body : {};
}

/** The seed names event types but not the body field that carries them: read as every /v1 rule reads a kind (src/sse/event-kind.ts). */
export function typeOf(d: ReceivedDelivery): string | undefined {
  return deliveryKindOf(bodyOf(d));
}

export function ofRun(deliveries: readonly ReceivedDelivery[], runId: string): ReceivedDelivery[] {
  return deliveries.filter((d) => bodyOf(d).run_id === runId);
}

export function isTerminal(d: ReceivedDelivery): boolean {
  return (TERMINAL_WEBHOOK_EVENTS as readonly string[]).includes(typeOf(d) ?? '');
}

/**
 * The deliveries an endpoint kept. When it had to drop some that may be of the rule's run (given:
 * those naming it or no run; else any) because the target sent more than the receiver keeps
 * (MAX_DELIVERIES_PER_ENDPOINT per endpoint, MAX_KEPT_DELIVERY_BYTES of bodies in all), a rule
 * would judge part of what came: inconclusive, saying so.
 */
export function keptDeliveries(ctx: CheckContext, endpoint: ReceiverEndpoint, runId?: string): readonly ReceivedDelivery[] {
  const dropped = endpoint.droppedOf(runId);
  if (dropped > 0) {
    ctx.inconclusive(`the webhook receiver answered ${dropped} deliveries to this rule's endpoint${runId === undefined ? '' : ` (of run ${runId}, or naming no run)`} without keeping them (it keeps ${MAX_DELIVERIES_PER_ENDPOINT.toLocaleString('en-US')} per endpoint and ${MAX_KEPT_DELIVERY_BYTES / 1024 / 1024} MiB of bodies in all, so a flood cannot exhaust memory): the rule would judge part of what came`);
  }
  return endpoint.deliveries;
}

/** Waits for the run's terminal delivery; returns every delivery of the run received by then. */
export async function untilTerminal(ctx: CheckContext, hook: Hook, runId: string): Promise<{ deliveries: ReceivedDelivery[]; terminal: boolean }> {
  const timeout = ctx.profile.fixtures.webhooks.deliveryTimeoutMs;
  const terminal = await hook.endpoint.waitFor((ds) => ofRun(ds, runId).some(isTerminal), timeout);
  return { deliveries: ofRun(keptDeliveries(ctx, hook.endpoint, runId), runId), terminal };
}

/** Received deliveries become evidence too, redacted like every exchange. */
export function recordDeliveries(ctx: CheckContext, endpoint: ReceiverEndpoint, deliveries: readonly ReceivedDelivery[], label = 'received webhook delivery'): void {
  for (const runId of new Set(deliveries.map(runIdOf))) keptDeliveries(ctx, endpoint, runId);
  for (const d of deliveries.slice(0, 20)) {
    ctx.http.record(
      {
        label: `${label} (attempt ${d.attempt}, answered ${d.answered})`,
        request: { method: 'POST', url: endpoint.url, headers: d.headers, body: d.rawBody.toString('utf8') },
        response: { status: d.answered, headers: {} },
        durationMs: 0,
        // Not a request apicert sent: there is nothing to repeat with curl, so the line says so.
        curl: '# received by the apicert webhook receiver, sent by the target',
        direction: 'received',
      },
      d,
    );
  }
}

/** First attempts only: one per event the sender meant to deliver. */
export function firstAttempts(deliveries: readonly ReceivedDelivery[]): ReceivedDelivery[] {
  return deliveries.filter((d) => d.attempt === 1);
}

/** The event id a delivery's body carries, as text (the header is judged by its own rule). */
export function eventIdOf(d: ReceivedDelivery): string | undefined {
  const id = bodyOf(d).event_id;
  // An integer event_id stands for its decimal digits, which the Service-Webhook-Id header carries.
  if (typeof id === 'number' && Number.isInteger(id)) return String(id);
  return typeof id === 'string' ? id : undefined;
}

/** Whether the sender's MAC verifies over the raw body; hex case is judged by the format rule, not here. */
export async function macMatches(d: ReceivedDelivery, secret: string): Promise<boolean> {
  const id = d.headers[WEBHOOK_HEADERS.id] ?? '';
  const timestamp = d.headers[WEBHOOK_HEADERS.timestamp] ?? '';
  const sent = (d.headers[WEBHOOK_HEADERS.signature] ?? '').replace(/^v1=/, '').toLowerCase();
  const expected = await hmacSha256Hex(secret, signedPayload(id, timestamp, new Uint8Array(d.rawBody)));
  return constantTimeEqual(expected, sent);
}
