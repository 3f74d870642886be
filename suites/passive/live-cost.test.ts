/**
 * Live judging costs per exchange, not per window: a batch re-reads the history before it only when
 * it is at least as large (or when its oldest exchange waited WAIT_MS, at most once per WAIT_MS), and
 * batching changes no finding. Asserted on the judge's own counts, never on which timer fires first.
 */
import { describe, expect, it } from 'vitest';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { startFake } from '../../src/fake/server.ts';
import { HISTORY, LiveJudge, WAIT_MS, type LiveFinding } from '../../src/passive/live.ts';
import { exchangeOfBytes, startProxy } from '../../src/passive/proxy.ts';
import type { Exchange } from '../../src/rule/index.ts';
import { RULES } from '../../src/registry.ts';

const MISSING = '/v8/missions/00000000-0000-7000-8000-000000000000';
const REQUESTS = 700;

const key = (f: LiveFinding) => `${f.rule} #${f.exchange.index}: ${f.reason}`;

describe('live judging cost', () => {
  it('reads each exchange about twice, whatever the batches, and finds what one batch of everything finds', async () => {
    const fake = await startFake({ faults: ['v8.contract.version-header/missing-on-errors'] });
    const profile = embeddedProfile(fake);
    const found: LiveFinding[] = [];
    const seen: Exchange[] = [];
    const live = new LiveJudge({ rules: RULES, profile, webhookSecretVariable: 'APICERT_WEBHOOK_SECRET', onFinding: (f) => found.push(f) });
    const proxy = await startProxy({
      upstream: fake.baseUrl,
      bodyLimit: 64 * 1024,
      maxExchanges: 1000,
      onExchange: (rec, index) => {
        const ex = exchangeOfBytes(rec, index, 64 * 1024);
        seen.push(ex);
        live.add(ex);
      },
    });
    const started = performance.now();
    try {
      const token = profile.credentials.find((c) => c.surfaces.includes('v8') && !c.expired)!.token;
      for (let i = 0; i < REQUESTS; i++) await (await fetch(new URL(MISSING, proxy.url), { headers: { authorization: `Bearer ${token}` } })).text();
      const deadline = Date.now() + 30_000;
      while (seen.length < REQUESTS && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(seen).toHaveLength(REQUESTS);
      live.flush();
    } finally {
      await proxy.close();
      await fake.close();
    }
    const elapsed = performance.now() - started;
    // Each 404 without the version header is said once, for its own exchange.
    const version = found.filter((f) => f.rule === 'v8.contract.version-header');
    expect(new Set(version.map((f) => f.exchange.index)).size).toBe(REQUESTS);
    expect(version).toHaveLength(REQUESTS);
    // Only a batch smaller than its history reads more history than new exchanges; those come at most once per WAIT_MS (and the final flush).
    expect(live.smallBatches).toBeLessThanOrEqual(2 + Math.floor(elapsed / WAIT_MS));
    expect(live.read).toBeLessThanOrEqual(2 * REQUESTS + HISTORY * live.smallBatches);

    // The same exchanges judged in one batch: the same findings.
    const once: LiveFinding[] = [];
    const all = new LiveJudge({ rules: RULES, profile, webhookSecretVariable: 'APICERT_WEBHOOK_SECRET', onFinding: (f) => once.push(f) });
    for (const ex of seen) all.add(ex);
    all.flush();
    expect(found.map(key).sort()).toEqual(once.map(key).sort());
    expect(all.read).toBe(REQUESTS);
  }, 60_000);
});
