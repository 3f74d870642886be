import { describe, expect, it } from 'vitest';
import { RULES } from '../../../src/registry.ts';
import { embeddedProfile } from '../../../src/fake/embedded-profile.ts';
import { startFake } from '../../../src/fake/server.ts';
import { parseProfile } from '../../../src/profile/load.ts';
import { certify } from '../../../src/runner/certify.ts';

// The fake started by hand is certified as a "remote" target: the path a real deployment takes.
describe('webhook receiver for a remote target', () => {
  it('makes delivery rules untestable, saying what to provide, when the profile gives no receiver', async () => {
    const fake = await startFake();
    try {
      const { results } = await certify({ profile: embeddedProfile(fake), patterns: ['v1.webhooks.delivery.id-header', 'v1.webhooks.register.created'], seed: 1 });
      const byId = new Map(results.map((r) => [r.rule.id, r]));
      expect(byId.get('v1.webhooks.register.created')!.verdict).toBe('pass');
      expect(byId.get('v1.webhooks.delivery.id-header')!.verdict).toBe('untestable');
      expect(byId.get('v1.webhooks.delivery.id-header')!.reason).toContain('fixtures.webhooks.publicReceiverUrl');
    } finally {
      await fake.close();
    }
  });

  it('listens where receiverListen says and registers publicReceiverUrl', async () => {
    const fake = await startFake();
    try {
      // A free port: listen once on 0, note it, close, then hand it to the profile.
      const { createServer } = await import('node:net');
      const probe = createServer();
      const port = await new Promise<number>((resolve) => probe.listen(0, '127.0.0.1', () => resolve((probe.address() as { port: number }).port)));
      await new Promise((r) => probe.close(r));
      const publicReceiverUrl = `http://127.0.0.1:${port}`;
      fake.context.config.webhookAllowedOrigins.push(publicReceiverUrl);
      const base = embeddedProfile(fake);
      const profile = parseProfile({ ...base, fixtures: { ...base.fixtures, webhooks: { ...base.fixtures.webhooks, publicReceiverUrl, receiverListen: { host: '127.0.0.1', port } } } }, 'test profile');
      const ids = ['v1.webhooks.delivery.signature-valid', 'v1.webhooks.delivery.id-header'];
      expect(RULES.filter((r) => ids.includes(r.id))).toHaveLength(2);
      const { results, report } = await certify({ profile, patterns: ids, seed: 1 });
      for (const r of results) expect(r.verdict, `${r.rule.id}: ${r.reason}`).toBe('pass');
      expect(report.target.kind).toBe('remote');
      expect(JSON.stringify(report)).not.toMatch(/whsec_/);
    } finally {
      await fake.close();
    }
  });
});
