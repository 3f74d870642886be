import { afterEach, describe, expect, it } from 'vitest';
import { keptDeliveries } from '../../../src/checks/v1/webhooks/support.ts';
import type { CheckContext } from '../../../src/rule/index.ts';
import { CLAIM_HOLD_MS, MAX_KEPT_DELIVERY_BYTES, WebhookReceiver } from '../../../src/webhooks/receiver.ts';
import { signWebhook } from '../../../src/webhooks/signature.ts';

const open: WebhookReceiver[] = [];
afterEach(async () => {
  for (const r of open.splice(0)) await r.close();
});

async function post(url: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers }, redirect: 'manual' });
}

describe('the harness webhook receiver', () => {
  it('answers with the verifier status, counts attempts per event id and lets a check script answers', async () => {
    const receiver = await WebhookReceiver.start({ host: '127.0.0.1', port: 0, loopbackTrap: true });
    open.push(receiver);
    const endpoint = receiver.endpoint((d) => (d.attempt === 1 ? { status: 500 } : undefined));
    endpoint.secret = 'whsec_receiver_test';
    const body = JSON.stringify({ apiVersion: 'v1', event_id: 'evt_r', run_id: 'run_r', sequence: 1 });
    const timestamp = String(Math.floor(Date.now() / 1000));
    const headers = { 'service-webhook-id': 'evt_r', 'service-webhook-timestamp': timestamp, 'service-webhook-signature': await signWebhook({ eventId: 'evt_r', timestamp, rawBody: body, secret: endpoint.secret }) };
    expect((await post(endpoint.url, body, headers)).status).toBe(500);
    expect((await post(endpoint.url, body, headers)).status).toBe(204);
    expect((await post(endpoint.url, body, { ...headers, 'service-webhook-signature': `v1=${'0'.repeat(64)}` })).status).toBe(401);
    expect(endpoint.deliveries.map((d) => [d.attempt, d.answered])).toEqual([
      [1, 500],
      [2, 204],
      [3, 401],
    ]);
    // The scripted 500 gave the claim back, so the retry was the first success, not a duplicate.
    expect(endpoint.deliveries[1]!.verification).toMatchObject({ ok: true, duplicate: false });
  });

  it('records requests to the trap apart, and refuses unknown paths', async () => {
    const receiver = await WebhookReceiver.start({ host: '127.0.0.1', port: 0, loopbackTrap: true });
    open.push(receiver);
    const endpoint = receiver.endpoint();
    expect(new URL(endpoint.trapUrl).origin).not.toBe(receiver.origin);
    expect((await post(endpoint.trapUrl, '{}')).status).toBe(204);
    expect(endpoint.trapHits).toHaveLength(1);
    expect(endpoint.deliveries).toHaveLength(0);
    expect((await post(`${receiver.origin}/hooks/unknown`, '{}')).status).toBe(404);
    expect(await endpoint.waitFor((ds) => ds.length > 0, 200)).toBe(false);
  });

  it('keeps a bounded number of body bytes whatever a target floods it with, and a rule reading a flooded endpoint is inconclusive', async () => {
    const receiver = await WebhookReceiver.start({ host: '127.0.0.1', port: 0 });
    open.push(receiver);
    const flooded = receiver.endpoint();
    const body = 'a'.repeat(1024 * 1024 - 16);
    const sent = MAX_KEPT_DELIVERY_BYTES / (1024 * 1024) + 8;
    for (let i = 0; i < sent; i += 1) expect((await post(flooded.url, body)).status).toBe(204);
    const kept = flooded.deliveries.reduce((n, d) => n + d.rawBody.length, 0);
    expect(kept).toBeLessThanOrEqual(MAX_KEPT_DELIVERY_BYTES);
    expect(flooded.deliveries.length + flooded.dropped).toBe(sent);
    expect(flooded.dropped).toBeGreaterThan(0);
    const ctx = { inconclusive: (reason: string): never => { throw new Error(reason); } } as unknown as CheckContext;
    expect(() => keptDeliveries(ctx, flooded)).toThrow(/answered \d+ deliveries to this rule's endpoint without keeping them/);
    // The flood named no run: no run's deliveries are known whole.
    expect(() => keptDeliveries(ctx, flooded, 'run_any')).toThrow(/of run run_any, or naming no run/);
    expect(keptDeliveries(ctx, receiver.endpoint())).toEqual([]);
  });

  it('answers each run on a shared endpoint as its check asks, from a delivery that arrives before the run is known', async () => {
    const receiver = await WebhookReceiver.start({ host: '127.0.0.1', port: 0 });
    open.push(receiver);
    const shared = receiver.endpoint();
    const delivery = (runId: string, eventId: string) => post(shared.url, JSON.stringify({ apiVersion: 'v1', event_id: eventId, run_id: runId, sequence: 1 }), { 'service-webhook-id': eventId });
    let arrived: Promise<Response> | undefined;
    let other: Promise<Response> | undefined;
    // The sender delivers run_early's first event while the request that starts it has not answered yet.
    const started = shared.answering(
      (d) => (d.attempt === 1 ? { status: 500 } : undefined),
      async () => {
        arrived = delivery('run_early', 'evt_early');
        other = delivery('run_plain', 'evt_plain');
        await new Promise((resolve) => setTimeout(resolve, 300));
        return 'run_early';
      },
    );
    expect(await started).toBe('run_early');
    expect((await arrived!).status).toBe(500);
    // Another run's delivery waited for the claim to settle, then got the usual answer.
    expect((await other!).status).toBe(204);
    expect((await delivery('run_early', 'evt_early')).status).toBe(204);
    expect((await delivery('run_late', 'evt_late')).status).toBe(204);
    // The two held deliveries are answered together, in either order.
    expect(shared.deliveries.map((d) => [d.eventId, d.attempt, d.answered]).sort()).toEqual([
      ['evt_early', 1, 500],
      ['evt_early', 2, 204],
      ['evt_late', 1, 204],
      ['evt_plain', 1, 204],
    ]);
  });

  it('holds a delivery of an unclaimed run no longer than CLAIM_HOLD_MS while a run is starting', async () => {
    const receiver = await WebhookReceiver.start({ host: '127.0.0.1', port: 0 });
    open.push(receiver);
    const shared = receiver.endpoint();
    let release: (id: string) => void = () => undefined;
    const started = shared.answering(() => ({ status: 500 }), () => new Promise<string>((resolve) => (release = resolve)));
    const before = Date.now();
    const res = await post(shared.url, JSON.stringify({ run_id: 'run_other' }));
    const waited = Date.now() - before;
    expect(res.status).toBe(204);
    expect(waited).toBeGreaterThanOrEqual(CLAIM_HOLD_MS - 50);
    // Released by the hold's timer, not held until the run claims it: the end is bounded loosely, as a loaded machine delays it.
    expect(waited).toBeLessThan(CLAIM_HOLD_MS + 10_000);
    release('run_mine');
    await started;
    expect((await post(shared.url, JSON.stringify({ run_id: 'run_mine' }))).status).toBe(500);
  });
});
