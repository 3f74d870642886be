/**
 * The passive judge against the active run: the recording of a certify run on the clean fake
 * (apicert's own traces stripped) gets the same verdict on every rule a recording can judge.
 */
import { describe, expect, it } from 'vitest';
import { passiveRuleIds } from '../../src/passive/judge.ts';
import { recordAndJudge } from './record.ts';

/** Deliveries go to apicert's receiver, not out of apicert: a certify recording never holds them. */
const RECEIVER_SIDE = ['v1.webhooks.delivery.body', 'v1.webhooks.delivery.id-header', 'v1.webhooks.delivery.signature-format', 'v1.webhooks.delivery.signature-valid', 'v1.webhooks.delivery.timestamp', 'v1.webhooks.delivery.sequence-order'];

describe('passive judgement of a certify recording', () => {
  it('gives the active verdict on every passively judgeable rule, and no secret of the profile reaches the recording', async () => {
    const ids = passiveRuleIds();
    const { active, passive, har } = await recordAndJudge({ patterns: ids });
    const activeVerdicts = new Map(active.results.map((r) => [r.rule.id, r.verdict]));
    const passiveById = new Map(passive.results.map((r) => [r.rule.id, r]));
    for (const id of ids.filter((i) => !RECEIVER_SIDE.includes(i))) {
      const judged = passiveById.get(id)!;
      expect(`${id}: ${judged.verdict}`, judged.reason).toBe(`${id}: ${activeVerdicts.get(id)}`);
      expect(passive.report.rules.find((r) => r.id === id)!.exchanges, id).toBeGreaterThan(0);
    }
    for (const id of RECEIVER_SIDE) {
      expect(passiveById.get(id)!.verdict).toBe('not-applicable');
      expect(passiveById.get(id)!.reason).toMatch(/record webhook deliveries at your receiver/);
    }
    expect(passive.report.run.mode).toBe('passive');
    expect(passive.report.summary.gate).toBe('pass');
    // Rules outside the passive set are not-applicable and say why.
    const other = passive.report.rules.find((r) => !ids.includes(r.id))!;
    expect(other.verdict).toBe('not-applicable');
    expect(other.reason).toMatch(/needs an active probe/);
    const text = JSON.stringify(har);
    for (const c of active.profile!.credentials) expect(text.includes(c.token), c.name).toBe(false);
  }, 120_000);
});
