import { afterEach, describe, expect, it } from 'vitest';
import { expectationOf, type SentRequest } from '../../../src/checks/generated/expectation.ts';
import { embeddedProfile } from '../../../src/fake/embedded-profile.ts';
import { startFake, type RunningFake } from '../../../src/fake/server.ts';
import type { VariantId } from '../../../src/fake/variants/index.ts';
import { parseProfile } from '../../../src/profile/load.ts';
import type { Profile } from '../../../src/profile/schema.ts';
import type { RuleResult } from '../../../src/rule/index.ts';
import { certify } from '../../../src/runner/certify.ts';
import { WebhookReceiver } from '../../../src/webhooks/receiver.ts';
import { freePort } from '../../support/free-port.ts';

/**
 * Three /v1 webhook verdicts of the Fastify audit (audit-fw1 F3, F5, F9):
 * - the type of either filter name is open: a deployment reading only the other takes it as an extra property;
 * - with no endpoint id in the 201 and several listing items of the event, the replay rule does not guess;
 * - a public receiver URL with a path reaches the receiver whether the forwarder keeps the path or strips it,
 *   and terminal-events is untestable, like its siblings, when nothing reaches the receiver.
 */
const closing: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

async function fakeWith(variants: VariantId[] = []): Promise<{ fake: RunningFake; base: Profile; token: string }> {
  const fake = await startFake({ variants });
  closing.push(() => fake.close());
  const base = embeddedProfile(fake);
  return { fake, base, token: base.credentials.find((c) => c.name === 'webhooks-full')!.token };
}

function register(fake: RunningFake, token: string, body: unknown): Promise<Response> {
  return fetch(`${fake.baseUrl}/v1/webhooks`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

/** A profile whose receiver listens on `listen` and is registered as `publicReceiverUrl`, which the fake may call. */
function withReceiver(fake: RunningFake, base: Profile, publicReceiverUrl: string, listen: number, deliveryTimeoutMs = base.fixtures.webhooks.deliveryTimeoutMs): Profile {
  fake.context.config.webhookAllowedOrigins.push(new URL(publicReceiverUrl).origin);
  return parseProfile({ ...base, fixtures: { ...base.fixtures, webhooks: { ...base.fixtures.webhooks, publicReceiverUrl, receiverListen: { host: '127.0.0.1', port: listen }, deliveryTimeoutMs } } }, 'audit-fw1 webhooks profile');
}

async function run(options: Parameters<typeof certify>[0]): Promise<Map<string, RuleResult>> {
  const { results } = await certify({ seed: 7, ...options });
  return new Map(results.map((r) => [r.rule.id, r]));
}

const registration = (body: unknown): SentRequest => ({ method: 'POST', path: '/v1/webhooks', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), credential: 'webhooks-full' });

describe('F3: the filter names of a webhook registration', () => {
  it('leaves a wrong-typed event_types or events open: a deployment reading only the other name takes it as an extra property', () => {
    // Old code: refuse, "POST /v1/webhooks event_types type".
    for (const body of [
      { url: 'https://hooks.example.com/a', event_types: 5 },
      { url: 'https://hooks.example.com/a', events: 'run.completed' },
      { url: 'https://hooks.example.com/a', event_types: [7] },
    ]) {
      const e = expectationOf(registration(body));
      expect(e.kind, JSON.stringify(body)).toBe('open');
    }
    // What stays stated: the url.
    expect(expectationOf(registration({ event_types: ['run.completed'] })).kind).toBe('refuse');
  });

  it('is taken whatever its value under v1.webhooks/events-filter, where event_types is an extra property', async () => {
    const { fake, token } = await fakeWith(['v1.webhooks/events-filter']);
    // Old code: 400 invalid_request.
    expect((await register(fake, token, { url: 'https://hooks.example.com/f3', event_types: 5 })).status).toBe(201);
    // `events` is this deployment's filter: its type is still the fake's to refuse.
    expect((await register(fake, token, { url: 'https://hooks.example.com/f3b', events: 5 })).status).toBe(400);
  });
});

describe('F5: replay with no endpoint id in the creation response', () => {
  it('answers 201 with the signing_secret alone under v1.webhooks/secret-only-creation', async () => {
    const { fake, token } = await fakeWith(['v1.webhooks/secret-only-creation']);
    const res = await register(fake, token, { url: 'https://hooks.example.com/f5' });
    expect(res.status).toBe(201);
    expect(Object.keys((await res.json()) as object)).toEqual(['signing_secret']);
  });

  it('is untestable, saying why, when the listing holds the event for several endpoints', { timeout: 60_000 }, async () => {
    // Oldest first (paged-listing): the earlier endpoints' items of the event come before apicert's.
    const { fake, base, token } = await fakeWith(['v1.webhooks/secret-only-creation', 'v1.webhooks/paged-listing']);
    // Another endpoint of the tenant gets every event too: its item of the terminal event is not apicert's.
    for (const i of [1, 2]) expect((await register(fake, token, { url: `https://hooks.example.com/other-${i}` })).status).toBe(201);
    const port = await freePort();
    const profile = withReceiver(fake, base, `http://127.0.0.1:${port}`, port);
    const r = (await run({ profile, patterns: ['v1.webhooks.deliveries.replay'] })).get('v1.webhooks.deliveries.replay')!;
    // Old code: fail, "no replayed delivery ... reached the receiver" (another endpoint's item was replayed).
    expect(r.verdict, r.reason).toBe('untestable');
    expect(r.reason).toContain('the target has no endpoint id in its creation response');
    expect(r.evidence.some((e) => /replay/.test(e.request.url) && e.request.method === 'POST')).toBe(false);
  });

  it('replays the lone item of the event, and passes when it reaches the receiver', { timeout: 60_000 }, async () => {
    const { fake, base } = await fakeWith(['v1.webhooks/secret-only-creation']);
    const port = await freePort();
    const profile = withReceiver(fake, base, `http://127.0.0.1:${port}`, port);
    const r = (await run({ profile, patterns: ['v1.webhooks.deliveries.replay'] })).get('v1.webhooks.deliveries.replay')!;
    expect(r.verdict, r.reason).toBe('pass');
  });

  it('still passes when the 201 names the endpoint, with other endpoints in the tenant', { timeout: 60_000 }, async () => {
    const { fake, base, token } = await fakeWith();
    for (const i of [1, 2]) expect((await register(fake, token, { url: `https://hooks.example.com/other-${i}` })).status).toBe(201);
    const port = await freePort();
    const profile = withReceiver(fake, base, `http://127.0.0.1:${port}`, port);
    const r = (await run({ profile, patterns: ['v1.webhooks.deliveries.replay'] })).get('v1.webhooks.deliveries.replay')!;
    expect(r.verdict, r.reason).toBe('pass');
  });
});

describe('F9: the public receiver URL and deliveries that never arrive', () => {
  it('takes a delivery at the public URL path kept or stripped, and at no other prefix', async () => {
    const receiver = await WebhookReceiver.start({ host: '127.0.0.1', port: 0, publicUrl: 'https://hooks.example.net/in/' });
    closing.push(() => receiver.close());
    const endpoint = receiver.endpoint();
    expect(endpoint.url).toBe(`https://hooks.example.net/in/hooks/${endpoint.token}`);
    const post = (path: string) => fetch(`${receiver.origin}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }).then((r) => r.status);
    // Old code: 404 for the kept path.
    expect(await post(`/in/hooks/${endpoint.token}`)).toBe(204);
    expect(await post(`/hooks/${endpoint.token}`)).toBe(204);
    expect(await post(`/out/hooks/${endpoint.token}`)).toBe(404);
    expect(await post(`/in/in/hooks/${endpoint.token}`)).toBe(404);
    expect(await post(`/inx/hooks/${endpoint.token}`)).toBe(404);
    expect(endpoint.deliveries).toHaveLength(2);
  });

  it('passes terminal-events through a public receiver URL with a path the forwarder keeps', { timeout: 60_000 }, async () => {
    const { fake, base } = await fakeWith();
    const port = await freePort();
    const profile = withReceiver(fake, base, `http://127.0.0.1:${port}/in`, port);
    const r = (await run({ profile, patterns: ['v1.webhooks.delivery.terminal-events'] })).get('v1.webhooks.delivery.terminal-events')!;
    // Old code: fail, "produced no terminal delivery ...; types received: []" (the receiver answered 404).
    expect(r.verdict, r.reason).toBe('pass');
  });

  it('leaves terminal-events untestable, like its siblings, when no delivery reaches the receiver', { timeout: 60_000 }, async () => {
    const { fake, base } = await fakeWith();
    const [listen, nowhere] = [await freePort(), await freePort()];
    // Registered at a port nothing listens on: the fake's every attempt fails to connect.
    const profile = withReceiver(fake, base, `http://127.0.0.1:${nowhere}`, listen, 1_500);
    const results = await run({ profile, patterns: ['v1.webhooks.delivery.terminal-events', 'v1.webhooks.delivery.body'] });
    const terminal = results.get('v1.webhooks.delivery.terminal-events')!;
    // Old code: fail, "produced no terminal delivery within 1500 ms; types received: []".
    expect(terminal.verdict, terminal.reason).toBe('untestable');
    expect(terminal.reason).toContain('check that the public receiver URL forwards to apicert');
    expect(results.get('v1.webhooks.delivery.body')!.verdict).toBe('untestable');
  });
});
