/**
 * Webhook deliveries recorded at a team's own receiver (a plain node:http server, apicert's proxy in
 * front of it) and judged passively by the delivery rules' one judgement: the fake's clean
 * deliveries pass, and each delivery fault of the matrix is caught from that recording.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { taskScenarios } from '../../scenarios/v1/runs.ts';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import type { FaultId } from '../../src/fake/faults/index.ts';
import type { VariantId } from '../../src/fake/variants/index.ts';
import { startFake } from '../../src/fake/server.ts';
import { judgeRecording, type PassiveJudgement } from '../../src/passive/judge.ts';
import { startProxy } from '../../src/passive/proxy.ts';
import { until, untilAsync } from '../support/bounded.ts';

const DELIVERY_RULES = [
  'v1.webhooks.delivery.body',
  'v1.webhooks.delivery.id-header',
  'v1.webhooks.delivery.timestamp',
  'v1.webhooks.delivery.signature-format',
  'v1.webhooks.delivery.signature-valid',
  'v1.webhooks.delivery.sequence-order',
];

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Records the deliveries of one completed run at a receiver behind the proxy, and judges them. */
async function recordDeliveries(faults: FaultId[] = [], variants: VariantId[] = []): Promise<PassiveJudgement> {
  const fake = await startFake({ faults, variants });
  let terminal = false;
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (/run\.(completed|failed)/.test(Buffer.concat(chunks).toString('utf8'))) terminal = true;
      res.writeHead(200).end();
    });
  });
  const receiverUrl = await listen(receiver);
  const proxy = await startProxy({ upstream: receiverUrl, bodyLimit: 64 * 1024, maxExchanges: 1_000 });
  try {
    // The fake sends deliveries only to origins it is told to (it never sends off loopback).
    fake.context.config.webhookAllowedOrigins.push(new URL(proxy.url).origin);
    const key = embeddedProfile(fake).credentials.find((c) => c.name === 'webhooks-full')!.token;
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const created = await fetch(new URL('/v1/webhooks', fake.baseUrl), { method: 'POST', headers, body: JSON.stringify({ url: `${proxy.url}/hooks/team` }) });
    const { signing_secret: secret, id: endpointId } = (await created.json()) as { signing_secret: string; id: string };
    const run = await fetch(new URL('/v1/execute', fake.baseUrl), { method: 'POST', headers, body: JSON.stringify(taskScenarios.completes.request) });
    expect(run.status).toBe(200);
    await run.body?.cancel();
    await until('the terminal delivery to reach the receiver', () => terminal, 8_000);
    // The receiver reads the terminal delivery before its answer has gone back through the proxy, and the fake's
    // jitter lets deliveries arrive out of order: judge only once the fake has no delivery pending and every
    // attempt it made is a finished exchange of the recording.
    const listing = async (): Promise<Array<{ status: string; attempts: number }>> => {
      const res = await fetch(new URL(`/v1/webhook-deliveries?endpoint_id=${endpointId}`, fake.baseUrl), { headers });
      return ((await res.json()) as { data: Array<{ status: string; attempts: number }> }).data;
    };
    await untilAsync('every delivery answered and recorded by the proxy', async () => {
      const items = await listing();
      const recorded = proxy.recorded();
      return items.length > 0 && items.every((d) => d.status !== 'pending') && recorded.every((r) => r.durationMs !== undefined) && recorded.length === items.reduce((n, d) => n + d.attempts, 0);
    }, 8_000);
    return await judgeRecording(proxy.exchanges(), { env: { APICERT_WEBHOOK_SECRET: secret } });
  } finally {
    await proxy.close();
    await new Promise((r) => receiver.close(r));
    await fake.close();
  }
}

const verdictOf = (j: PassiveJudgement, id: string) => j.results.find((r) => r.rule.id === id)!;

describe.concurrent('deliveries recorded at a team receiver', () => {
  it('the clean fake passes every delivery rule', async () => {
    const judged = await recordDeliveries();
    for (const id of DELIVERY_RULES) expect(`${id}: ${verdictOf(judged, id).verdict}`, verdictOf(judged, id).reason).toBe(`${id}: pass`);
    // Without a profile, only the /v1 rules are held to judging nothing they cannot (a receiver's recording carries no fixtures).
    expect(judged.results.filter((r) => r.rule.id.startsWith('v1.') && r.verdict !== 'pass' && r.verdict !== 'not-applicable').map((r) => `${r.rule.id}: ${r.verdict}: ${r.reason}`)).toEqual([]);
  }, 30_000);

  // An integer event_id is a legal reading (the seed names the field, not its type): the header carries its digits.
  it.each(['v1.webhooks/integer-event-ids', 'v1.webhooks/event-type-field', 'v1.webhooks/extra-properties', 'v1.webhooks/string-sequence'] as const)('the clean fake under %s passes every delivery rule', async (variant) => {
    const judged = await recordDeliveries([], [variant]);
    for (const id of DELIVERY_RULES) expect(`${id}: ${verdictOf(judged, id).verdict}`, verdictOf(judged, id).reason).toBe(`${id}: pass`);
  }, 30_000);

  it.each([
    'v1.webhooks.delivery.body/no-api-version',
    'v1.webhooks.delivery.id-header/differs-from-body',
    'v1.webhooks.delivery.timestamp/milliseconds',
    'v1.webhooks.delivery.signature-format/uppercase-hex',
    'v1.webhooks.delivery.signature-valid/signs-reserialized-body',
    'v1.webhooks.delivery.sequence-order/constant-sequence',
  ] as const)('%s is caught from the receiver\'s recording', async (fault) => {
    const judged = await recordDeliveries([fault]);
    const rule = fault.split('/')[0]!;
    expect(verdictOf(judged, rule).verdict, verdictOf(judged, rule).reason).toBe('fail');
  }, 30_000);
});
