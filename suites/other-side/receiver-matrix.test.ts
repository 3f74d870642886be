import { describe, expect, it } from 'vitest';
import { RECEIVER_FAULTS, ruleOfSampleFault } from '../../samples/faults.ts';
import { receiverRules } from '../../src/receiver-cert/rules.ts';
import { certifyReceiver } from '../../src/receiver-cert/certify-receiver.ts';
import { startSampleReceiver, TEST_SECRET } from './support.ts';

async function certifySample(fault?: string) {
  const receiver = await startSampleReceiver(fault);
  try {
    return await certifyReceiver({ url: receiver.url, secret: TEST_SECRET, seed: 7 });
  } finally {
    receiver.stop();
  }
}

describe('certify-receiver against the sample receiver (the README handler)', () => {
  it('passes every receiver rule, and no output carries the signing secret', async () => {
    const { report, results } = await certifySample();
    expect(results.map((r) => [r.rule.id, r.verdict])).toEqual(receiverRules.map((r) => [r.id, 'pass']));
    expect(report.summary.gate).toBe('pass');
    expect(JSON.stringify(report)).not.toContain(TEST_SECRET);
  });

  it("keeps a key in the receiver URL's query out of every output", async () => {
    const receiver = await startSampleReceiver();
    const key = 'receiverUrlKey-0123456789abcdef';
    try {
      const { report } = await certifyReceiver({ url: `${receiver.url}?token=${key}`, secret: TEST_SECRET, seed: 7, patterns: ['receiver.v1.webhooks.accepts-valid'] });
      expect(report.summary.gate).toBe('pass');
      expect(JSON.stringify(report)).toContain('«redacted:receiver-url-query:token»');
      expect(JSON.stringify(report)).not.toContain(key);
      // What a signed receiver report stands on (verify prints it): the --rules given, of every receiver rule.
      expect(report.run.selection).toEqual({ catalogue: receiverRules.length, rules: ['receiver.v1.webhooks.accepts-valid'] });
    } finally {
      receiver.stop();
    }
  });

  it('reports every signing rule untestable without a secret', async () => {
    const receiver = await startSampleReceiver();
    try {
      const { results } = await certifyReceiver({ url: receiver.url, secret: undefined });
      expect(new Set(results.map((r) => r.verdict))).toEqual(new Set(['untestable']));
    } finally {
      receiver.stop();
    }
  });
});

/**
 * Faults that break a second rule by their nature: a tolerance too wide is too wide both ways, and a
 * receiver that verifies a re-serialization parses before it verifies (signature rule 3).
 */
const ALSO_BROKEN: Record<string, readonly string[]> = {
  'wide-tolerance': ['receiver.v1.webhooks.timestamp-future'],
  'tolerance-320': ['receiver.v1.webhooks.timestamp-future'],
  reserialize: ['receiver.v1.webhooks.bad-signature'],
};

// The other side's fault matrix: each broken receiver fails its own rule and no other required rule.
describe.concurrent('receiver fault matrix', () => {
  it.each(Object.entries(RECEIVER_FAULTS))('%s: %s', async (fault, description) => {
    const ruleId = ruleOfSampleFault(description);
    const also = ALSO_BROKEN[fault] ?? [];
    const { results } = await certifySample(fault);
    const byId = new Map(results.map((r) => [r.rule.id, r]));
    for (const id of [ruleId, ...also]) expect(byId.get(id)?.verdict, byId.get(id)?.reason).toBe('fail');
    const otherFailures = results.filter((r) => r.rule.id !== ruleId && !also.includes(r.rule.id) && r.rule.level === 'required' && r.verdict === 'fail').map((r) => r.rule.id);
    expect(otherFailures).toEqual([]);
  });
});
