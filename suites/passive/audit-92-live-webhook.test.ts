/**
 * a92 D4: the live judge verifies webhook deliveries with APICERT_WEBHOOK_SECRET as the report does
 * (v1.webhooks.delivery.signature-valid was untestable live, so never said, while the report failed it).
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { exchangeOfEntry } from '../../src/passive/har.ts';
import { judgeRecording } from '../../src/passive/judge.ts';
import { LiveJudge, type LiveFinding } from '../../src/passive/live.ts';
import { RULES } from '../../src/registry.ts';

const RULE = 'v1.webhooks.delivery.signature-valid';
const SECRET = 'whsec_a92-endpoint-secret-7f3a9c1e5b2d';

function delivery(index: number, key: string) {
  const id = `evt_00000000-0000-4000-8000-00000000000${index}`;
  const ts = '1798761600';
  const body = JSON.stringify({ event_id: id, type: 'run.completed', apiVersion: 'v1', run_id: `run_00000000-0000-4000-8000-00000000000${index}`, sequence: 3 });
  const sig = createHmac('sha256', key).update(`${id}.${ts}.${body}`).digest('hex');
  return exchangeOfEntry(
    {
      startedDateTime: '2026-01-01T00:00:00.000Z',
      request: { method: 'POST', url: 'http://127.0.0.1:8080/hooks/apicert', headers: [{ name: 'content-type', value: 'application/json' }, { name: 'service-webhook-id', value: id }, { name: 'service-webhook-timestamp', value: ts }, { name: 'service-webhook-signature', value: `v1=${sig}` }], postData: { mimeType: 'application/json', text: body } },
      response: { status: 200, headers: [], content: { mimeType: 'text/plain', text: '' } },
    },
    index,
  )!;
}

describe('a92 D4: signature-valid is judged live with the endpoint secret', () => {
  it('says live the failure the report has', async () => {
    const exchanges = [delivery(0, SECRET), delivery(1, 'whsec_not-the-endpoint-secret-000000')];
    const report = await judgeRecording(exchanges, { env: { APICERT_WEBHOOK_SECRET: SECRET }, patterns: [RULE] });
    expect(report.results.find((r) => r.rule.id === RULE)?.verdict).toBe('fail');
    const found: LiveFinding[] = [];
    const live = new LiveJudge({ rules: RULES.filter((r) => r.id === RULE), webhookSecret: SECRET, webhookSecretVariable: 'APICERT_WEBHOOK_SECRET', onFinding: (f) => found.push(f) });
    for (const ex of exchanges) live.add(ex);
    live.flush();
    expect(found.map((f) => [f.rule, f.exchange.index])).toEqual([[RULE, 1]]);
    expect(JSON.stringify(found)).not.toContain(SECRET);
  });
});
