/**
 * `certify --har-out` records the deliveries its receiver answered, so `judge-traffic` of that
 * recording judges the delivery rules as the run did (audit s27 v1-koa F3: a delivery failure of the
 * run was a pass of its recording). The signing secrets stay hidden: the writer says instead whether
 * each delivery's MAC verified with its endpoint's secret, and signature-valid reads that.
 */
import { describe, expect, it } from 'vitest';
import { FAULTS, ruleOfFault, type FaultId } from '../../src/fake/faults/index.ts';
import { exchangeOfEntry } from '../../src/passive/har.ts';
import { judgeRecording } from '../../src/passive/judge.ts';
import { HarRecorder, hidingFor, RECORDED_DELIVERIES } from '../../src/passive/recorder.ts';
import { certify, HARNESS_VERSION, redactorFor } from '../../src/runner/certify.ts';

/** The delivery rules a recording can judge (retry and terminal-events need to know what the receiver scripted). */
const RECORDED = ['v1.webhooks.delivery.body', 'v1.webhooks.delivery.id-header', 'v1.webhooks.delivery.signature-format', 'v1.webhooks.delivery.signature-valid', 'v1.webhooks.delivery.timestamp', 'v1.webhooks.delivery.sequence-order'];

async function recordAndJudge(faults: FaultId[] = []) {
  const recorder = new HarRecorder();
  const active = await certify({ patterns: RECORDED, faults, seed: 7, recorder });
  const profile = active.profile!;
  const clear = JSON.stringify(recorder.document(HARNESS_VERSION));
  const text = JSON.stringify(recorder.document(HARNESS_VERSION, hidingFor(profile, redactorFor(profile))));
  const entries = (JSON.parse(text) as { log: { entries: unknown[] } }).log.entries;
  const exchanges = entries.flatMap((e, i) => exchangeOfEntry(e, i) ?? []);
  // No webhook secret in the environment: what a judge of the file alone has.
  const passive = await judgeRecording(exchanges, { env: {}, profile });
  const secrets = [...clear.matchAll(/\\"signing_secret\\":\\"([^"\\]+)\\"/g)].map((m) => m[1]!);
  return { active, passive, text, exchanges, secrets };
}

describe('deliveries in a certify recording', () => {
  it('are recorded and judged as the run judged them, with no signing secret in the file', async () => {
    const { active, passive, text, exchanges, secrets } = await recordAndJudge();
    const deliveries = exchanges.filter((ex) => ex.requestHeaders['service-webhook-signature'] !== undefined);
    expect(deliveries.length).toBeGreaterThan(0);
    expect(deliveries.every((ex) => ex.signatureVerified === true)).toBe(true);
    for (const id of RECORDED) {
      const run = active.results.find((r) => r.rule.id === id)!;
      const judged = passive.results.find((r) => r.rule.id === id)!;
      expect(run.verdict, `${id}: ${run.reason}`).toBe('pass');
      expect(judged.verdict, `${id}: ${judged.reason}`).toBe('pass');
      expect(passive.report.rules.find((r) => r.id === id)!.exchanges, id).toBeGreaterThan(0);
    }
    expect(passive.report.summary.gate).toBe('pass');
    expect(secrets.length).toBeGreaterThan(0);
    for (const secret of secrets) expect(text.includes(secret)).toBe(false);
  }, 120_000);

  // Every fault of these rules, caught from the recording as the run caught it.
  it.concurrent.each(FAULTS.filter((f) => RECORDED.includes(ruleOfFault(f.id))).map((f) => f.id))('%s: the recording is judged failing', async (fault) => {
    const rule = ruleOfFault(fault);
    const { active, passive } = await recordAndJudge([fault]);
    expect(active.results.find((r) => r.rule.id === rule)!.verdict).toBe('fail');
    const judged = passive.results.find((r) => r.rule.id === rule)!;
    expect(judged.verdict, judged.reason).toBe('fail');
  }, 180_000);

  it('keeps a bounded number of deliveries: a target flooding the receiver costs a count, not memory', () => {
    const recorder = new HarRecorder();
    const delivery = { receivedAt: Date.now(), method: 'POST', url: 'http://127.0.0.1:1/hooks/x', headers: { 'service-webhook-signature': 'v1=00' }, rawBody: Buffer.from('{}'), status: 204, responseHeaders: {} };
    for (let i = 0; i <= RECORDED_DELIVERIES; i += 1) recorder.inbound(delivery);
    expect(recorder.count).toBe(RECORDED_DELIVERIES);
    expect(recorder.unrecordedDeliveries).toBe(1);
  });
});
