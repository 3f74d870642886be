import { afterEach, describe, expect, it } from 'vitest';
import { embeddedProfile } from '../../../src/fake/embedded-profile.ts';
import { startFake, type RunningFake } from '../../../src/fake/server.ts';
import { WebhookReceiver } from '../../../src/webhooks/receiver.ts';

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
    // 200, 400, 800, 1600 ms on the fake: the last wait is far longer than the first even on a busy machine.
    expect(gaps).toHaveLength(4);
    expect(gaps[3]!).toBeGreaterThan(gaps[0]! * 2);
    await new Promise((r) => setTimeout(r, 300));
    const listing = await fetch(`${fake.baseUrl}/v1/webhook-deliveries?run_id=run_b`, { headers: { authorization: `Bearer ${token}` } });
    const items = ((await listing.json()) as { data: Array<Record<string, unknown>> }).data;
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
    await new Promise((r) => setTimeout(r, 300));
    const listing = await fetch(`${fake.baseUrl}/v1/webhook-deliveries?endpoint_id=${String(elsewhere.json.id)}`, { headers: { authorization: `Bearer ${token}` } });
    const items = ((await listing.json()) as { data: Array<Record<string, unknown>> }).data;
    expect(items).toMatchObject([{ run_id: 'run_c', status: 'undeliverable' }]);
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
