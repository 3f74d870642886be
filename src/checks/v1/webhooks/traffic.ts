/**
 * Webhook deliveries as exchanges: a delivery the harness's receiver got is the same exchange a
 * receiver's own recording (its HAR, or apicert's proxy in front of it) shows, so one judgement per
 * delivery rule serves both. The active check gives its deliveries to the judgement it shares with
 * recordings (`judgeDeliveries`); a recording is judged by `rule.judgement` directly.
 */
import { TERMINAL_WEBHOOK_EVENTS } from '../../../contract/v1/webhooks.ts';
import { runJudgement, type CheckContext, type Exchange, type Judgement, type Rule } from '../../../rule/index.ts';
import { operation, recordOf, requestBodyMissing, requestJson } from '../../../traffic/read.ts';
import type { ReceivedDelivery } from '../../../webhooks/receiver.ts';
import { ENDPOINT_SECRET_LABEL } from '../../../webhooks/signature.ts';
import { deliveryKindOf } from '../../../sse/event-kind.ts';

/** One delivery as the receiver saw it: the request the sender made, the receiver's status as the answer. */
export function deliveryExchange(d: ReceivedDelivery, url: string, index: number): Exchange {
  const target = new URL(url);
  return {
    index,
    startedAt: new Date(d.receivedAt).toISOString(),
    method: 'POST',
    url,
    path: `${target.pathname}${target.search}`,
    requestHeaders: d.headers,
    requestBody: d.rawBody.toString('utf8'),
    status: d.answered,
    responseHeaders: {},
  };
}

/** Every exchange that is a webhook delivery recorded at a receiver (known by its signature header, wherever the receiver listens). */
export function deliveriesIn(exchanges: readonly Exchange[]): Exchange[] {
  return exchanges.filter((ex) => operation(ex) === 'webhook.delivery');
}

/** The delivery's JSON body, when it was kept whole. */
export function deliveryJson(ex: Exchange): Record<string, unknown> | undefined {
  return requestBodyMissing(ex) === undefined ? recordOf(requestJson(ex)) : undefined;
}


/** The seed names event types but not the body field that carries them: read as every /v1 rule reads a kind (src/sse/event-kind.ts). */
export function deliveryType(body: Record<string, unknown> | undefined): string | undefined {
  return deliveryKindOf(body);
}

export function isTerminalType(type: string | undefined): boolean {
  return (TERMINAL_WEBHOOK_EVENTS as readonly string[]).includes(type ?? '');
}

/**
 * The active side of a delivery rule: the deliveries the harness's receiver got, judged by the
 * rule's one judgement; each case names the delivery's evidence. Nothing judged is inconclusive.
 */
export function judgeDeliveries(ctx: CheckContext, judgement: Judgement, url: string, deliveries: readonly ReceivedDelivery[], endpointSecret?: string): void {
  const exchanges = deliveries.map((d, i) => deliveryExchange(d, url, i));
  const show = (ex: Exchange) => ctx.http.exchangeOf(deliveries[ex.index]!);
  const secrets = endpointSecret === undefined ? [] : [{ value: endpointSecret, label: ENDPOINT_SECRET_LABEL }];
  const run = runJudgement(ctx, judgement, exchanges, { source: 'active', profile: ctx.profile, show, name: (ex) => `delivery #${ex.index + 1}`, secrets });
  if (run.judged.size === 0) ctx.inconclusive(`the receiver's ${deliveries.length} deliveries held nothing this rule judges (${judgement.record})`);
}

/** The rule with its one judgement attached, for recordings; its active check judges deliveries with the same judgement. */
export function withJudgement(rule: Rule, judgement: Judgement): Rule {
  return { ...rule, judgement };
}
