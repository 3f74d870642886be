import { afterEach, describe, expect, it } from 'vitest';
import { embeddedProfile } from '../../../src/fake/embedded-profile.ts';
import { startFake, type RunningFake } from '../../../src/fake/server.ts';
import type { FaultId } from '../../../src/fake/faults/index.ts';
import { REGISTRATION_CAP } from '../../../src/fake/v1/webhooks/routes.ts';
import { parseProfile } from '../../../src/profile/load.ts';
import type { Profile } from '../../../src/profile/schema.ts';
import type { RuleResult } from '../../../src/rule/index.ts';
import { certify } from '../../../src/runner/certify.ts';
import { freePort } from '../../support/free-port.ts';

/**
 * The description sets no number of endpoints a tenant may register. Under
 * `v1.webhooks/registration-cap` the fake keeps REGISTRATION_CAP per tenant and refuses the next
 * with 403 entitlement_failed, whatever its URL: the rules that needed that registration are
 * untestable, naming the cause, never failed; a forbidden URL the target accepts still fails.
 * The delivery, listing and replay rules of one run share one receiver endpoint, so a tenant with
 * room for one more endpoint still lets all of them pass.
 */
const CREATED = 'v1.webhooks.register.created';
const HTTPS_ONLY = 'v1.webhooks.url.https-only';
const LOOPBACK = 'v1.webhooks.url.loopback-names';
const BODY = 'v1.webhooks.delivery.body';
/** The rules that share one receiver endpoint per run (src/checks/v1/webhooks/shared.ts). */
const SHARING = [
  BODY,
  'v1.webhooks.delivery.id-header',
  'v1.webhooks.delivery.timestamp',
  'v1.webhooks.delivery.signature-format',
  'v1.webhooks.delivery.signature-valid',
  'v1.webhooks.delivery.terminal-events',
  'v1.webhooks.delivery.retry',
  'v1.webhooks.delivery.sequence-order',
  'v1.webhooks.deliveries.listing',
  'v1.webhooks.deliveries.replay',
  'v1.webhooks.url.redirect',
];
const CAUSE = /refused to register another endpoint: 403 entitlement_failed\).*free registrations or raise the cap/;

const closing: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

/** A capped fake whose webhook tenant already holds `held` endpoints, and a profile with a receiver. */
async function cappedFake(held: number, faults: FaultId[] = []): Promise<{ fake: RunningFake; profile: Profile }> {
  const fake = await startFake({ variants: ['v1.webhooks/registration-cap'], faults });
  closing.push(() => fake.close());
  const base = embeddedProfile(fake);
  const token = base.credentials.find((c) => c.name === 'webhooks-full')!.token;
  for (let i = 0; i < held; i += 1) {
    const res = await fetch(`${fake.baseUrl}/v1/webhooks`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ url: `https://hooks.example.com/apicert/earlier-${i}` }) });
    expect(res.status).toBe(201);
  }
  const port = await freePort();
  const publicReceiverUrl = `http://127.0.0.1:${port}`;
  fake.context.config.webhookAllowedOrigins.push(publicReceiverUrl);
  const profile = parseProfile({ ...base, fixtures: { ...base.fixtures, webhooks: { ...base.fixtures.webhooks, publicReceiverUrl, receiverListen: { host: '127.0.0.1', port } } } }, 'registration cap profile');
  return { fake, profile };
}

async function run(profile: Profile, ids: string[]): Promise<Map<string, RuleResult>> {
  const { results } = await certify({ profile, patterns: ids, seed: 7 });
  return new Map(results.map((r) => [r.rule.id, r]));
}

describe('a per-tenant cap on webhook registrations', () => {
  it('leaves the rules that needed a registration untestable, naming the cap, when the tenant is full', { timeout: 120_000 }, async () => {
    const { profile } = await cappedFake(REGISTRATION_CAP);
    // Shared registrations too: each rule sharing the refused one is untestable, as it would be with its own.
    const ids = [CREATED, HTTPS_ONLY, LOOPBACK, ...SHARING];
    const results = await run(profile, ids);
    for (const id of ids) {
      const r = results.get(id)!;
      expect(r.verdict, `${id}: ${r.reason}`).toBe('untestable');
      expect(r.reason).toMatch(CAUSE);
    }
  });

  it('does not fail a URL rule whose forbidden URLs meet the cap after its control took the last place', { timeout: 120_000 }, async () => {
    const { profile } = await cappedFake(REGISTRATION_CAP - 1);
    const r = (await run(profile, [HTTPS_ONLY])).get(HTTPS_ONLY)!;
    expect(r.evidence.filter((e) => e.response?.status === 403).length).toBeGreaterThan(0);
    expect(r.verdict, r.reason).toBe('untestable');
    expect(r.reason).toMatch(CAUSE);
  });

  it('passes every rule of one shared receiver endpoint where the tenant has room for just one more', { timeout: 120_000 }, async () => {
    const { profile } = await cappedFake(REGISTRATION_CAP - 1);
    const results = await run(profile, SHARING);
    for (const id of SHARING) expect(results.get(id)!.verdict, `${id}: ${results.get(id)!.reason}`).toBe('pass');
  });

  it('still passes the rules whose registrations fit under the cap', { timeout: 120_000 }, async () => {
    const { profile } = await cappedFake(0);
    const results = await run(profile, [LOOPBACK]);
    expect(results.get(LOOPBACK)!.verdict, results.get(LOOPBACK)!.reason).toBe('pass');
  });

  it('still fails a forbidden URL the target accepts before the cap is reached', { timeout: 120_000 }, async () => {
    const { profile } = await cappedFake(0, ['v1.webhooks.url.https-only/http-accepted']);
    const r = (await run(profile, [HTTPS_ONLY])).get(HTTPS_ONLY)!;
    expect(r.verdict, r.reason).toBe('fail');
    expect(r.reason).toMatch(/answered 201, expected a refusal/);
  });
});
