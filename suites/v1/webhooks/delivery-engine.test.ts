import { afterEach, describe, expect, it } from 'vitest';
import { embeddedProfile } from '../../../src/fake/embedded-profile.ts';
import { startFake, type RunningFake } from '../../../src/fake/server.ts';
import { RETRY_DELAYS_MS } from '../../../src/fake/v1/webhooks/engine.ts';
import { WebhookReceiver } from '../../../src/webhooks/receiver.ts';
import { untilAsync } from '../../support/bounded.ts';

// The fake's delivery engine is driven here by run notices emitted directly on its bus, so these
// tests do not depend on the /v1 run engine.
const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

async function setup() {
  const fake = await startFake();
  open.push(fake);
  const receiver = await WebhookReceiver.start({ host: '127.0.0.1', port: 0, loopbackTrap: true });
  open.push(receiver);
  fake.context.config.webhookAllowedOrigins.push(receiver.origin);
  const token = embeddedProfile(fake).credentials.find((c) => c.name === 'webhooks-full')!.token;
  return { fake, receiver, token };
}

async function register(fake: RunningFake, token: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${fake.baseUrl}/v1/webhooks`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

/** The fake's delivery listing for `query` (run_id=… or endpoint_id=…). */
async function deliveries(fake: RunningFake, token: string, query: string): Promise<Array<Record<string, unknown>>> {
  const listing = await fetch(`${fake.baseUrl}/v1/webhook-deliveries?${query}`, { headers: { authorization: `Bearer ${token}` } });
  return ((await listing.json()) as { data: Array<Record<string, unknown>> }).data;
}

function notice(runId: string, type: string, sequence: number) {
  return { tenant: 'tenant-webhooks', principal: 'webhooks-principal', runId, type, sequence, data: {} };
}

describe('webhook delivery engine of the fake', () => {
  it('delivers signed events of its tenant to the receiver, which verifies them', async () => {
    const { fake, receiver, token } = await setup();
    const endpoint = receiver.endpoint();
    const created = await register(fake, token, { url: endpoint.url });
    expect(created.status).toBe(201);
    endpoint.secret = created.json.signing_secret as string;
    fake.context.runEvents.emit('run', notice('run_a', 'run.completed', 3));
    fake.context.runEvents.emit('run', { ...notice('run_other_tenant', 'run.completed', 1), tenant: 'tenant-a' });
    expect(await endpoint.waitFor((ds) => ds.length >= 1, 3_000)).toBe(true);
    await new Promise((r) => setTimeout(r, 200));
    expect(endpoint.deliveries).toHaveLength(1);
    const [d] = endpoint.deliveries;
    expect(d!.verification).toMatchObject({ ok: true, duplicate: false, event: { run_id: 'run_a', sequence: 3, type: 'run.completed' } });
    expect(d!.answered).toBe(204);
  });

  it('retries with backoff after a 500, keeps the event id, then dead-letters after five attempts', async () => {
    const { fake, receiver, token } = await setup();
    const endpoint = receiver.endpoint(() => ({ status: 500 }));
    const created = await register(fake, token, { url: endpoint.url, event_types: ['run.failed'] });
    endpoint.secret = created.json.signing_secret as string;
    fake.context.runEvents.emit('run', notice('run_b', 'run.completed', 1));
    fake.context.runEvents.emit('run', notice('run_b', 'run.failed', 2));
    expect(await endpoint.waitFor((ds) => ds.length >= 5, 8_000)).toBe(true);
    const ids = new Set(endpoint.deliveries.map((d) => d.eventId));
    expect(ids.size).toBe(1);
    expect(endpoint.deliveries.every((d) => (d.body as { type: string }).type === 'run.failed')).toBe(true);
    const gaps = endpoint.deliveries.slice(1).map((d, i) => d.receivedAt - endpoint.deliveries[i]!.receivedAt);
    // Each retry waits its backoff after the 500 came back, so a gap is never shorter than it (a timer may fire a little early);
    // a busy machine only lengthens gaps, so lower bounds hold where a ratio of two measured gaps would not.
    expect(gaps).toHaveLength(RETRY_DELAYS_MS.length);
    gaps.forEach((gap, i) => expect(gap, `gap before attempt ${i + 2}`).toBeGreaterThanOrEqual(RETRY_DELAYS_MS[i]! - 20));
    // The engine marks the delivery only once the fifth 500 is back.
    await untilAsync('the delivery to be dead-lettered', async () => (await deliveries(fake, token, 'run_id=run_b')).some((d) => d.status === 'dead_lettered'), 10_000);
    const items = await deliveries(fake, token, 'run_id=run_b');
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ endpoint_id: created.json.id, run_id: 'run_b', status: 'dead_lettered', attempts: 5 });
    expect(JSON.stringify(items)).not.toContain(endpoint.secret);
  });

  it('keeps its URL rules for every other loopback origin and never sends to a URL outside the allowed origins', async () => {
    const { fake, receiver, token } = await setup();
    const trapOrigin = new URL(receiver.endpoint().trapUrl).origin;
    const refused = await register(fake, token, { url: `${trapOrigin}/hooks/x` });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ code: 'invalid_request', fieldErrors: [{ path: 'url' }] });
    const elsewhere = await register(fake, token, { url: 'https://hooks.example.com/apicert/engine-test' });
    expect(elsewhere.status).toBe(201);
    fake.context.runEvents.emit('run', notice('run_c', 'run.completed', 1));
    // The engine first waits its jitter, then refuses to send outside the allowed origins.
    const query = `endpoint_id=${String(elsewhere.json.id)}`;
    await untilAsync('the delivery to leave pending', async () => (await deliveries(fake, token, query)).some((d) => d.status !== 'pending'), 10_000);
    expect(await deliveries(fake, token, query)).toMatchObject([{ run_id: 'run_c', status: 'undeliverable' }]);
  });

  it('replays a delivery with the same event id, which the receiver sees as a duplicate', async () => {
    const { fake, receiver, token } = await setup();
    const endpoint = receiver.endpoint();
    const created = await register(fake, token, { url: endpoint.url });
    endpoint.secret = created.json.signing_secret as string;
    fake.context.runEvents.emit('run', notice('run_d', 'run.completed', 1));
    expect(await endpoint.waitFor((ds) => ds.length === 1, 3_000)).toBe(true);
    const listing = await fetch(`${fake.baseUrl}/v1/webhook-deliveries?run_id=run_d`, { headers: { authorization: `Bearer ${token}` } });
    const [item] = ((await listing.json()) as { data: Array<{ id: string }> }).data;
    const replay = await fetch(`${fake.baseUrl}/v1/webhook-deliveries/${item!.id}/replay`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    expect(replay.status).toBe(202);
    expect(await endpoint.waitFor((ds) => ds.length === 2, 3_000)).toBe(true);
    expect(endpoint.deliveries[1]!.eventId).toBe(endpoint.deliveries[0]!.eventId);
    expect(endpoint.deliveries[1]!.verification).toMatchObject({ ok: true, duplicate: true });
  });
});
