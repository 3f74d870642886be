/**
 * Recordings as real recorders write them (base64 and compressed bodies, missing or cut content,
 * no timings, streams as one body, failed requests), and deliveries recorded at a receiver.
 */
import { gzipSync } from 'node:zlib';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exchangeOfEntry, readHar, HarError } from '../../src/passive/har.ts';
import { judgeRecording, WEBHOOK_SECRET_VARIABLE } from '../../src/passive/judge.ts';
import { signWebhook } from '../../src/webhooks/signature.ts';

const PROBLEM = { type: 'https://errors.example/not-found', title: 'Not found', status: 404, detail: 'no such mission', code: 'not_found', requestId: '9cbde346-84c1-4d99-9a60-98f22e484bcb' };
const V8 = [{ name: 'x-service-contract-version', value: 'service-integration-gateway-v8.1' }];

function entry(request: Record<string, unknown>, response?: Record<string, unknown>): Record<string, unknown> {
  return { startedDateTime: '2026-01-01T00:00:00.000Z', request: { headers: [], ...request }, ...(response ? { response: { headers: [], ...response } } : {}) };
}

describe('HAR quirks', () => {
  it('reads base64 and gzip bodies, missing and cut content, absent timings and failed requests', () => {
    const json = JSON.stringify(PROBLEM);
    const b64 = exchangeOfEntry(entry({ method: 'GET', url: 'https://api.example/v8/missions/x' }, { status: 404, content: { size: json.length, mimeType: 'application/problem+json', text: Buffer.from(json).toString('base64'), encoding: 'base64' } }), 0)!;
    expect(JSON.parse(b64.responseBody!)).toEqual(PROBLEM);
    expect(b64.durationMs).toBeUndefined();
    const gz = exchangeOfEntry(entry({ method: 'GET', url: 'https://api.example/v8/missions/x' }, { status: 404, headers: [{ name: 'Content-Encoding', value: 'gzip' }], content: { mimeType: 'application/problem+json', text: gzipSync(json).toString('base64'), encoding: 'base64' } }), 1)!;
    expect(JSON.parse(gz.responseBody!)).toEqual(PROBLEM);
    // Browsers keep the decoded text under the wire's Content-Encoding: taken as it is.
    const decoded = exchangeOfEntry(entry({ method: 'GET', url: 'https://api.example/v8/missions/x' }, { status: 404, headers: [{ name: 'content-encoding', value: 'br' }], content: { mimeType: 'application/json', text: json } }), 2)!;
    expect(decoded.responseBody).toBe(json);
    const missing = exchangeOfEntry(entry({ method: 'GET', url: 'https://api.example/v8/missions/x' }, { status: 404, content: { size: 120, mimeType: 'application/problem+json' } }), 3)!;
    expect(missing.responseBody).toBeUndefined();
    const cut = exchangeOfEntry(entry({ method: 'GET', url: 'https://api.example/v8/missions/x' }, { status: 404, content: { size: 5000, mimeType: 'application/problem+json', text: json.slice(0, 40) } }), 4)!;
    expect(cut.responseBodyTruncated).toBe(true);
    const failed = exchangeOfEntry(entry({ method: 'GET', url: 'https://api.example/v8/missions/x' }, { status: 0, _error: 'net::ERR_CONNECTION_RESET', content: {} }), 5)!;
    expect(failed.status).toBeUndefined();
    expect(failed.error).toMatch(/RESET/);
    expect(exchangeOfEntry({ request: { method: 'GET', url: 'not a url' } }, 6)).toBeUndefined();
  });

  it('judges a stream recorded as one body, and skips bodies it cannot see whole instead of failing them', async () => {
    const runId = '01a20fcf-1d29-73f9-8aa4-3654cd9de6d2';
    const stream = 'id: 1\nevent: mission.started\ndata: {"runId":"x"}\n\nid: 2\nevent: mission.step.started\ndata: {"stepId":"s"}\n\n';
    const exchanges = [
      exchangeOfEntry(entry({ method: 'GET', url: `https://api.example/v8/missions/${runId}/events` }, { status: 200, headers: [...V8, { name: 'content-type', value: 'text/event-stream' }], content: { mimeType: 'text/event-stream', text: stream } }), 0)!,
      exchangeOfEntry(entry({ method: 'GET', url: `https://api.example/v8/missions/${runId}` }, { status: 404, headers: [...V8, { name: 'content-type', value: 'application/problem+json' }], content: { size: 9000, mimeType: 'application/problem+json', text: '{"type":' } }), 1)!,
    ];
    const judged = await judgeRecording(exchanges, { env: {} });
    const result = (id: string) => judged.results.find((r) => r.rule.id === id)!;
    expect(result('v8.missions.events.shape').verdict).toBe('pass');
    expect(result('v8.missions.events.trace-id').verdict).toBe('fail');
    expect(result('v8.missions.events.trace-id').reason).toMatch(/event #2 \(mission.step.started\) lacks traceId/);
    // The cut problem body: its media type is judged, its shape is not.
    expect(result('v8.errors.problem-shape').verdict).toBe('pass');
    expect(judged.report.rules.find((r) => r.id === 'v8.errors.problem-shape')!.exchanges).toBe(1);
    expect(result('v1.errors.problem-shape').verdict).toBe('not-applicable');
    expect(result('v1.errors.problem-shape').reason).toMatch(/record a \/v1 request answered 4xx or 5xx/);
    expect(judged.report.summary.gate).toBe('fail');
  });

  it('refuses a file that is not HAR with a message (a usage error)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apicert-har-'));
    writeFileSync(join(dir, 'x.har'), '{"not":"har"}');
    await expect(readHar(join(dir, 'x.har'))).rejects.toThrow(HarError);
    await expect(readHar(join(dir, 'missing.har'))).rejects.toThrow(/cannot read/);
  });

  it('judges an empty recording inconclusive: a passive gate never passes on nothing', async () => {
    const judged = await judgeRecording([], { env: {} });
    expect(judged.report.summary.judged).toBe(0);
    expect(judged.report.summary.gate).toBe('inconclusive');
  });
});

describe('webhook deliveries recorded at a receiver', () => {
  const secret = 'whsec_passive_judge_test_secret_0123456789';

  async function delivery(index: number, sign: (id: string, ts: string, body: string) => Promise<string>, bend: { sequence?: unknown; idHeader?: string } = {}) {
    const body = JSON.stringify({ apiVersion: 'v1', event_id: `evt_${index}`, run_id: 'run_1', sequence: 'sequence' in bend ? bend.sequence : index });
    const ts = '1767225600';
    const signature = await sign(`evt_${index}`, ts, body);
    return exchangeOfEntry(
      entry(
        { method: 'POST', url: 'https://receiver.example/hooks', headers: [{ name: 'Service-Webhook-Id', value: bend.idHeader ?? `evt_${index}` }, { name: 'Service-Webhook-Timestamp', value: ts }, { name: 'Service-Webhook-Signature', value: signature }, { name: 'content-type', value: 'application/json' }], postData: { mimeType: 'application/json', text: body } },
        { status: 204, content: { size: 0, mimeType: '' } },
      ),
      index,
    )!;
  }

  it('verifies signatures with the secret from the environment, and says which variable to set without it', async () => {
    const good = await delivery(0, (id, ts, body) => signWebhook({ eventId: id, timestamp: ts, rawBody: body, secret }));
    const forged = await delivery(1, (id, ts, body) => signWebhook({ eventId: id, timestamp: ts, rawBody: `${body} `, secret }));
    const upper = await delivery(2, async (id, ts, body) => (await signWebhook({ eventId: id, timestamp: ts, rawBody: body, secret })).toUpperCase().replace('V1=', 'v1='));
    const judged = await judgeRecording([good, forged, upper], { env: { [WEBHOOK_SECRET_VARIABLE]: secret } });
    const result = (id: string) => judged.results.find((r) => r.rule.id === id)!;
    expect(result('v1.webhooks.delivery.signature-valid').verdict).toBe('fail');
    // Hex case is the format rule's verdict; the MAC is judged case-insensitively, as the active check does.
    expect(result('v1.webhooks.delivery.signature-valid').cases).toHaveLength(1);
    expect(result('v1.webhooks.delivery.signature-format').verdict).toBe('fail');
    expect(result('v1.webhooks.delivery.signature-format').cases).toHaveLength(1);
    expect(result('v1.webhooks.delivery.body').verdict).toBe('pass');
    expect(result('v1.webhooks.delivery.id-header').verdict).toBe('pass');
    expect(JSON.stringify(judged.report).includes(secret)).toBe(false);

    // The two delivery faults of the matrix, as a receiver would record them.
    const sign = (id: string, ts: string, body: string) => signWebhook({ eventId: id, timestamp: ts, rawBody: body, secret });
    const bent = await judgeRecording([await delivery(3, sign, { sequence: '3' }), await delivery(4, sign, { idHeader: 'evt_other' })], { env: {} });
    expect(bent.results.find((r) => r.rule.id === 'v1.webhooks.delivery.body')!.verdict).toBe('fail');
    expect(bent.results.find((r) => r.rule.id === 'v1.webhooks.delivery.id-header')!.verdict).toBe('fail');

    const unsigned = await judgeRecording([good], { env: {} });
    const valid = unsigned.results.find((r) => r.rule.id === 'v1.webhooks.delivery.signature-valid')!;
    // A fact the recording cannot show is a missing prerequisite: untestable, naming what to set.
    expect(valid.verdict).toBe('untestable');
    expect(valid.reason).toContain(WEBHOOK_SECRET_VARIABLE);
  });
});
