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
import { parseProfile } from '../../src/profile/load.ts';
import { V8_SCOPES } from '../../src/profile/schema.ts';

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
    const auth = { name: 'authorization', value: 'Bearer k3J9xQpLm2ZtV7wR0aYb4Nc8' };
    const json = [...V8, { name: 'content-type', value: 'application/json' }];
    const projection = JSON.stringify({ runId, status: 'running', sequence: 1, steps: [] });
    const exchanges = [
      // The caller's own mission, created and read: the stream judgements pick its events by that.
      exchangeOfEntry(entry({ method: 'POST', url: 'https://api.example/v8/missions', headers: [auth, { name: 'idempotency-key', value: 'har-quirks-key-0001' }], postData: { mimeType: 'application/json', text: JSON.stringify({ goalSpec: { task: 'x' }, resourceBudget: { maximumSteps: 5, maximumToolCalls: 5, maximumElapsedMs: 60000, maximumParallelism: 1 } }) } }, { status: 202, headers: json, content: { mimeType: 'application/json', text: projection } }), 0)!,
      exchangeOfEntry(entry({ method: 'GET', url: `https://api.example/v8/missions/${runId}`, headers: [auth] }, { status: 200, headers: json, content: { mimeType: 'application/json', text: projection } }), 1)!,
      exchangeOfEntry(entry({ method: 'GET', url: `https://api.example/v8/missions/${runId}/events`, headers: [auth] }, { status: 200, headers: [...V8, { name: 'content-type', value: 'text/event-stream' }], content: { mimeType: 'text/event-stream', text: stream } }), 2)!,
      exchangeOfEntry(entry({ method: 'GET', url: `https://api.example/v8/missions/${runId}`, headers: [auth] }, { status: 404, headers: [...V8, { name: 'content-type', value: 'application/problem+json' }], content: { size: 9000, mimeType: 'application/problem+json', text: '{"type":' } }), 3)!,
    ];
    // The entries' start times are all the same instant: recording order is what orders them.
    exchanges.forEach((ex) => delete ex.startedAt);
    const judged = await judgeRecording(exchanges, { env: {} });
    const result = (id: string) => judged.results.find((r) => r.rule.id === id)!;
    expect(result('v8.missions.events.shape').verdict).toBe('pass');
    expect(result('v8.missions.events.trace-id').verdict).toBe('fail');
    expect(result('v8.missions.events.trace-id').reason).toMatch(/event #2 \(mission.step.started, id 2\) lacks traceId/);
    // The cut problem body: its media type holds, but its shape, which decides, was not kept: no pass over it.
    expect(result('v8.errors.problem-shape').verdict).toBe('untestable');
    expect(judged.report.rules.find((r) => r.id === 'v8.errors.problem-shape')!.exchanges).toBe(1);
    expect(result('v1.errors.problem-shape').verdict).toBe('not-applicable');
    expect(result('v1.errors.problem-shape').reason).toMatch(/record a request to a \/v1 endpoint \(a method and path of the table\) answered 4xx or 5xx/);
    expect(judged.report.summary.gate).toBe('fail');
  });

  it('marks what a recorder did not keep: omitted bodies (empty text, positive size), aborted streams, a stripped credential', () => {
    const omittedPost = exchangeOfEntry(entry({ method: 'POST', url: 'https://api.example/v8/missions', bodySize: 189, postData: { mimeType: 'application/json', text: '' } }, { status: 202, bodySize: 91, content: { size: 91, mimeType: 'application/json' } }), 0)!;
    expect(omittedPost.requestBody).toBeUndefined();
    expect(omittedPost.requestBodyMissing).toMatch(/kept no request body \(the request had 189 bytes\)/);
    expect(omittedPost.responseBodyMissing).toMatch(/91 bytes/);
    const emptyText = exchangeOfEntry(entry({ method: 'GET', url: 'https://api.example/v8/missions/x' }, { status: 404, content: { size: 120, mimeType: 'application/problem+json', text: '' } }), 1)!;
    expect(emptyText.responseBody).toBeUndefined();
    expect(emptyText.responseBodyMissing).toMatch(/kept no response body \(the answer had 120 bytes\)/);
    // A body that is empty because the answer had none is no lack.
    const none = exchangeOfEntry(entry({ method: 'POST', url: 'https://api.example/v8/missions/x/signals', headers: [{ name: 'authorization', value: 'Bearer t' }], bodySize: 0, postData: { mimeType: 'application/json', text: '' } }, { status: 204, content: { size: 0, mimeType: '' } }), 2)!;
    expect([none.requestBodyMissing, none.responseBodyMissing, none.headersMissing]).toEqual([undefined, undefined, undefined]);
    const aborted = exchangeOfEntry({ ...entry({ method: 'GET', url: 'https://api.example/v8/missions/x/events' }, { status: 200, headers: [{ name: 'content-type', value: 'text/event-stream' }], content: { size: -1, mimeType: 'text/event-stream' }, _failureText: 'net::ERR_ABORTED' }), _resourceType: 'fetch' }, 3)!;
    expect([aborted.streamEnd, aborted.error]).toEqual(['aborted', 'net::ERR_ABORTED']);
    expect(aborted.responseBodyMissing).toMatch(/client aborted the stream \(net::ERR_ABORTED\)/);
    const partial = exchangeOfEntry(entry({ method: 'GET', url: 'https://api.example/v8/missions/x/events' }, { status: 200, headers: [{ name: 'content-type', value: 'text/event-stream' }], content: { mimeType: 'text/event-stream', text: 'id: 1\nevent: mission.started\ndata: {}\n\n' }, _error: 'net::ERR_ABORTED' }), 4)!;
    expect(partial.responseBody).toContain('mission.started');
    expect(partial.responseBodyTruncated).toBe(true);
    expect(partial.streamEnd).toBe('aborted');
    const stripped = exchangeOfEntry(entry({ method: 'GET', url: 'https://api.example/v1/usage' }, { status: 200, content: { mimeType: 'application/json', text: '{}' } }), 5)!;
    expect(stripped.headersMissing?.authorization).toMatch(/stripped/);
    expect(exchangeOfEntry({ ...entry({ method: 'OPTIONS', url: 'https://api.example/v1/usage' }, { status: 204 }), _resourceType: 'preflight' }, 6)).toBeUndefined();
  });

  it('reads a gzipped HAR, by its magic bytes whatever its name', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apicert-har-'));
    const har = JSON.stringify({ log: { entries: [entry({ method: 'GET', url: 'https://api.example/v8/missions/x' }, { status: 404, content: { mimeType: 'application/problem+json', text: JSON.stringify(PROBLEM) } })] } });
    for (const name of ['x.har.gz', 'x.har']) {
      writeFileSync(join(dir, name), gzipSync(har));
      const { exchanges } = await readHar(join(dir, name));
      expect(exchanges.map((ex) => ex.status)).toEqual([404]);
    }
    writeFileSync(join(dir, 'cut.har.gz'), gzipSync(har).subarray(0, 20));
    await expect(readHar(join(dir, 'cut.har.gz'))).rejects.toThrow(/gzipped but cannot be unpacked/);
  });

  it('keeps the method as recorded (RFC 9110 9.1: case-sensitive), and takes a 501 to a method the surface uses nowhere as no server error', async () => {
    const notImplemented = { ...PROBLEM, type: 'https://errors.example/not-implemented', title: 'Not implemented', status: 501, code: 'not_implemented' };
    const answered = (method: string, index: number) =>
      exchangeOfEntry(entry({ method, url: 'https://api.example/v8/missions/0190a7b2-0000-7000-8000-000000000001', headers: [{ name: 'authorization', value: 'Bearer abc' }] }, { status: 501, headers: [...V8, { name: 'content-type', value: 'application/problem+json' }], content: { mimeType: 'application/problem+json', text: JSON.stringify(notImplemented) } }), index)!;
    const noServerError = async (method: string) => {
      const judged = await judgeRecording([answered(method, 0)], { env: {}, patterns: ['v8.contract.generated.no-5xx'] });
      return judged.results.find((r) => r.rule.id === 'v8.contract.generated.no-5xx')!.verdict;
    };
    expect(answered('get', 0).method).toBe('get');
    // `get` is not GET, and PUT and TRACE are used nowhere on /v8: 501 is the answer RFC 9110 15.6.2 names.
    for (const method of ['get', 'PUT', 'TRACE']) expect(await noServerError(method), method).toBe('pass');
    // GET and HEAD every server supports, and POST is a /v8 method: a 501 to them is a server error.
    for (const method of ['GET', 'HEAD', 'POST']) expect(await noServerError(method), method).toBe('fail');
  });

  it('refuses a file that is not HAR with a message (a usage error)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apicert-har-'));
    writeFileSync(join(dir, 'x.har'), '{"not":"har"}');
    await expect(readHar(join(dir, 'x.har'))).rejects.toThrow(HarError);
    await expect(readHar(join(dir, 'missing.har'))).rejects.toThrow(/cannot read/);
  });

  it('judges an empty recording inconclusive or untestable: a passive gate never passes on nothing', async () => {
    const judged = await judgeRecording([], { env: {} });
    expect(judged.report.summary.judged).toBe(0);
    expect(judged.report.summary.gate).toMatch(/^(inconclusive|untestable)$/);
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

    // Bent deliveries, as a receiver would record them: a sequence that is no integer, a header that is not the event_id.
    const sign = (id: string, ts: string, body: string) => signWebhook({ eventId: id, timestamp: ts, rawBody: body, secret });
    const bent = await judgeRecording([await delivery(3, sign, { sequence: 'three' }), await delivery(4, sign, { idHeader: 'evt_other' })], { env: {} });
    expect(bent.results.find((r) => r.rule.id === 'v1.webhooks.delivery.body')!.verdict).toBe('fail');
    // The seed names `sequence`, not its JSON type: a string of its digits is a legal reading.
    const digits = await judgeRecording([await delivery(5, sign, { sequence: '5' })], { env: {} });
    expect(digits.results.find((r) => r.rule.id === 'v1.webhooks.delivery.body')!.verdict).toBe('pass');
    expect(bent.results.find((r) => r.rule.id === 'v1.webhooks.delivery.id-header')!.verdict).toBe('fail');

    const unsigned = await judgeRecording([good], { env: {} });
    const valid = unsigned.results.find((r) => r.rule.id === 'v1.webhooks.delivery.signature-valid')!;
    // A fact the recording cannot show is a missing prerequisite: untestable, naming what to set.
    expect(valid.verdict).toBe('untestable');
    expect(valid.reason).toContain(WEBHOOK_SECRET_VARIABLE);
  });

  it('leaves accepts-valid untestable for a cut request body only where a body could have made it judge one: from the primary credential', async () => {
    const body = JSON.stringify({ goalSpec: { task: 'x'.repeat(200) }, resourceBudget: { maximumSteps: 5, maximumToolCalls: 5, maximumElapsedMs: 60000, maximumParallelism: 1 } });
    const projection = JSON.stringify({ runId: '01a20fcf-1d29-73f9-8aa4-3654cd9de6d2', status: 'running', sequence: 1, steps: [] });
    const create = (credential: string) =>
      exchangeOfEntry(
        entry(
          { method: 'POST', url: 'https://api.example/v8/missions', headers: [{ name: 'authorization', value: `Bearer «redacted:token:${credential}»` }, { name: 'content-type', value: 'application/json' }, { name: 'idempotency-key', value: `har-quirks-cut-${credential}` }], postData: { mimeType: 'application/json', text: body } },
          { status: 202, headers: [...V8, { name: 'content-type', value: 'application/json' }], content: { mimeType: 'application/json', text: projection } },
        ),
        0,
        64,
      )!;
    expect(create('full').requestBodyTruncated).toBe(true);
    const rule = 'v8.contract.generated.accepts-valid';
    const profile = parseProfile({ target: 'https://api.example', credentials: [{ name: 'full', token: 'k3J9xQpLm2ZtV7wR0aYb4Nc8', surfaces: ['v8'], scopes: [...V8_SCOPES] }, { name: 'reader', token: 'r7P2wQ9mK4xT1zV8nB3cL6jH', surfaces: ['v8'], scopes: ['missions:read'] }] }, 'the test');
    const verdict = async (credential: string, given?: typeof profile) => (await judgeRecording([create(credential)], { env: {}, patterns: [rule], ...(given ? { profile: given } : {}) })).results.find((r) => r.rule.id === rule)!;
    // The primary credential's request: what its cut body held decides whether it was within every constraint.
    const primary = await verdict('full', profile);
    expect(primary.verdict).toBe('untestable');
    expect(primary.reason).toContain('only a prefix was kept');
    // Another credential's acceptance is its scopes' to decide, and with no profile none is known to be the primary: nothing is missing.
    for (const [credential, given] of [['reader', profile], ['full', undefined]] as const) {
      const other = await verdict(credential, given);
      expect(other.verdict, credential).toBe('not-applicable');
      expect(other.reason, credential).toContain('sent by the primary credential');
    }
  });
});
