/**
 * Registrations the webhook rules of one run share. No operation of the description removes a
 * webhook endpoint, so every endpoint apicert registers stays in the tenant after the run: a cap on
 * endpoints fills up (then every rule that must register is untestable), and each run event is
 * delivered to every endpoint. So the delivery, listing and replay rules share one receiver
 * endpoint, each following the run it started by the deliveries' run_id, and the URL rules share one
 * control registration. The first rule to ask registers (RUN_MEMO: scoped to the run); every rule
 * then takes the one answer as its own setup step, with its exchange in its evidence, so a refusal
 * gives each rule the verdict its own registration would have.
 */
import { RUN_MEMO, type CheckContext, type EvidenceEntry, type ProbeResponse } from '../../../rule/index.ts';
import type { ReceivedDelivery, ReceiverEndpoint, Responder } from '../../../webhooks/receiver.ts';
import { acceptedHook, type Hook, publicUrl, receiverOf, recordDeliveries, registerWebhook, type RunKind, setupHook, startRun, untilTerminal } from './support.ts';

interface Registration<T> {
  res: ProbeResponse;
  /** The exchange as the rule that sent it recorded it (redacted), for the other rules' evidence. */
  evidence: EvidenceEntry;
  value: T;
}

/** The run's one registration under `key`, or undefined where the run shares nothing (no RUN_MEMO). */
async function sharedRegistration<T>(ctx: CheckContext, key: string, register: () => Promise<{ res: ProbeResponse; value: T }>): Promise<{ res: ProbeResponse; value: T } | undefined> {
  const memo = ctx.service(RUN_MEMO);
  if (!memo) return undefined;
  let pending = memo.get(key) as Promise<Registration<T>> | undefined;
  if (!pending) {
    pending = register().then(({ res, value }) => ({ res, value, evidence: ctx.http.evidence[ctx.http.exchangeOf(res) ?? ctx.http.evidence.length - 1]! }));
    memo.set(key, pending);
  }
  // A transport failure of the one registration rejects for every rule that awaits it: each is inconclusive.
  const { res, value, evidence } = await pending;
  if (ctx.http.exchangeOf(res) === undefined) ctx.http.record(evidence, res);
  return { res, value };
}

const SHARED_ENDPOINT = 'v1.webhooks:shared-receiver-endpoint';

/**
 * The receiver endpoint this run's delivery, listing and replay rules share: each starts its own
 * run and reads only that run's deliveries (`ofRun`); one that must answer its deliveries its own
 * way starts its run with `startAnswered`.
 */
export async function sharedHook(ctx: CheckContext): Promise<Hook> {
  const receiver = receiverOf(ctx);
  const shared = await sharedRegistration(ctx, SHARED_ENDPOINT, async () => {
    const endpoint = receiver.endpoint();
    const res = await registerWebhook(ctx, { url: endpoint.url, description: "apicert: shared by one run's webhook rules" }, "setup: register the receiver endpoint this run's webhook rules share");
    return { res, value: endpoint };
  });
  if (!shared) return setupHook(ctx);
  return acceptedHook(ctx, shared.value, shared.res);
}

/** Starts a run whose deliveries to the hook's endpoint get `respond`, from the first (the endpoint holds them until the run's id is known). */
export function startAnswered(ctx: CheckContext, endpoint: ReceiverEndpoint, kind: RunKind, respond: Responder): Promise<string> {
  return endpoint.answering(respond, () => startRun(ctx, kind));
}

/** For rules that judge every delivery of a run: none at all means nothing could be judged. */
export async function runDeliveries(ctx: CheckContext, kind: RunKind = 'completes'): Promise<{ hook: Hook; runId: string; deliveries: ReceivedDelivery[] }> {
  const hook = await sharedHook(ctx);
  const runId = await startRun(ctx, kind);
  const { deliveries } = await untilTerminal(ctx, hook, runId);
  if (deliveries.length === 0) {
    ctx.untestable({ need: 'receiver', remedy: `no delivery for run ${runId} reached it within ${ctx.profile.fixtures.webhooks.deliveryTimeoutMs} ms (fixtures.webhooks.deliveryTimeoutMs): check that the public receiver URL forwards to apicert` });
  }
  recordDeliveries(ctx, hook.endpoint, deliveries);
  return { hook, runId, deliveries };
}

const URL_CONTROL = 'v1.webhooks:url-control';

/**
 * The URL rules' control: a public https URL on the default port, registered once per run, so a
 * refusal of a forbidden URL is about its class. Whether the deployment accepts such a URL does not
 * depend on which rule asks.
 */
export async function urlControl(ctx: CheckContext): Promise<ProbeResponse> {
  const register = () => registerWebhook(ctx, { url: publicUrl() }, "control: register a public https URL (one for this run's URL rules)");
  const shared = await sharedRegistration(ctx, URL_CONTROL, async () => ({ res: await register(), value: undefined }));
  return shared?.res ?? register();
}
