/**
 * A secret in an answer, judged alike live and from the recording, and only when the service handed
 * it out (audit s27-proxy F4, F5, F7).
 *
 * F4: a client that pasted a signing secret into a field of its own request and got the field back
 * was not handed the secret by the service: `v1.auth.run-secrets` and
 * `v1.webhooks.register.secret-once` failed the echo. A secret the request did not carry, or carried
 * as its credential (`Authorization`, `access_token`), still fails: the token echoed in a 401.
 *
 * F7: `proxy --har-out` hid the secret inside that request's body, which then held fewer bytes than
 * its kept Content-Length, and judge-traffic read the whole body as a prefix (three rules
 * untestable); and a numbered signing-secret marker in an answer was no secret to run-secrets,
 * which the proxy had failed live.
 *
 * F5: the "need an active probe" line beside a passive gate named /v8 rules for /v1-only traffic.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readHar, type RecordedBytes } from '../../src/passive/har.ts';
import { judgeRecording, recordingHiding } from '../../src/passive/judge.ts';
import { exchangeOfBytes } from '../../src/passive/proxy.ts';
import { hiddenHar, writeHar } from '../../src/passive/recorder.ts';
import { keyedLabels } from '../../src/passive/secrets.ts';
import { apicert } from '../support/in-process-cli.ts';

const KEY = 'service_sk_Q7mZ2pLx9VtR4wKc8NbY3hJd';
const SECRET = 'whsec_5nB8qRt2LmX7vZc4KpW9yHd3FjG6sA1eU0oI8rT5wQ2xNb';
const V1 = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'x-ai-platform-version': 'v1' };
const ANSWER = { 'content-type': 'application/json' };

function rec(method: string, path: string, status: number, response: unknown, request?: unknown, headers: Record<string, string> = {}): RecordedBytes {
  const body = request === undefined ? undefined : Buffer.from(JSON.stringify(request));
  return {
    startedAt: new Date('2026-01-01T00:00:00Z'),
    method,
    url: `http://127.0.0.1:9${path}`,
    // The Content-Length as sent: the recording keeps it whatever it does to the body's text.
    requestHeaders: { ...V1, ...(body ? { 'content-length': String(body.length) } : {}), ...headers },
    ...(body ? { requestBody: body } : {}),
    status,
    responseHeaders: ANSWER,
    responseBody: Buffer.from(JSON.stringify(response)),
  };
}

/** The first registration: 201 with its signing secret. */
const created = rec('POST', '/v1/webhooks', 201, { id: 'we_1', url: 'https://hooks.example.net/a', signing_secret: SECRET }, { url: 'https://hooks.example.net/a' });

/** The proxy's two verdicts of one traffic: its report (the exchanges as forwarded) and judge-traffic's of its `--har-out`. */
async function liveAndRecorded(records: RecordedBytes[]) {
  const labels = keyedLabels('a key of this test run, never written anywhere');
  const exchanges = records.map((r, i) => exchangeOfBytes(r, i, 1024 * 1024));
  const file = join(mkdtempSync(join(tmpdir(), 'apicert-echoed-')), 'rec.har');
  await writeHar(file, hiddenHar(records, 'test', recordingHiding(exchanges, undefined, {}, labels)));
  const read = (await readHar(file)).exchanges;
  const verdicts = async (judged: typeof exchanges) => new Map((await judgeRecording(judged, { env: {}, labels, surfaces: ['v1'] })).results.map((r) => [r.rule.id, r]));
  return { live: await verdicts(exchanges), recorded: await verdicts(read), read };
}

function same(live: Map<string, { verdict: string }>, recorded: Map<string, { verdict: string }>): Array<[string, string, string | undefined]> {
  return [...live].filter(([id, r]) => recorded.get(id)?.verdict !== r.verdict).map(([id, r]) => [id, r.verdict, recorded.get(id)?.verdict]);
}

describe('a secret the client pasted into its own request (F4, F7)', () => {
  it('passes the echo of the pasted secret, live and from the recording alike, which reads the request body whole', async () => {
    const pasted = rec('POST', '/v1/webhooks', 201, { id: 'we_2', url: 'https://hooks.example.net/b', description: `copy of ${SECRET}`, signing_secret: 'whsec_second_Zx8Lq2Vn7Rt4Kp9Wm3Hc6Jd1Fg5Sb0Ya' }, { url: 'https://hooks.example.net/b', description: `copy of ${SECRET}` });
    const { live, recorded, read } = await liveAndRecorded([created, pasted]);
    // The writer hid the secret in the request's body: the text is shorter than the Content-Length kept, and still the whole body.
    expect(read[1]!.requestBody).toMatch(/copy of «redacted:signing-secret#[0-9a-f]+»/);
    expect(read[1]!.requestBodyTruncated).toBeUndefined();
    for (const id of ['v1.auth.run-secrets', 'v1.webhooks.register.secret-once']) {
      expect(live.get(id)?.verdict, id).toBe('pass');
      expect(recorded.get(id)?.verdict, id).toBe('pass');
    }
    expect(same(live, recorded)).toEqual([]);
  });

  it('still fails a secret the request did not carry, live and from the recording alike (its numbered marker stands for it)', async () => {
    // The endpoint read back: its answer carries the secret, which this request never sent.
    const readback = rec('GET', '/v1/webhooks/we_1', 200, { id: 'we_1', url: 'https://hooks.example.net/a', signing_secret: SECRET });
    const { live, recorded } = await liveAndRecorded([created, readback]);
    for (const id of ['v1.auth.run-secrets', 'v1.webhooks.register.secret-once']) {
      expect(live.get(id)?.verdict, id).toBe('fail');
      expect(recorded.get(id)?.verdict, id).toBe('fail');
    }
    const reasons = (r: { cases: ReadonlyArray<{ reason: string }> } | undefined) => r!.cases.map((c) => c.reason.replace(/ at character \d+/, ''));
    expect(reasons(recorded.get('v1.auth.run-secrets') as never)).toEqual(reasons(live.get('v1.auth.run-secrets') as never));
    expect(reasons(live.get('v1.auth.run-secrets') as never)[0]).toMatch(/signing-secret#[0-9a-f]+ in its body/);
    expect(same(live, recorded)).toEqual([]);
  });

  it('reads a request body the writer both cut and hid a secret in as the prefix it is', async () => {
    const long = rec('POST', '/v1/webhooks', 201, { id: 'we_3' }, { url: 'https://hooks.example.net/c', description: `copy of ${SECRET} ${'x'.repeat(200)}` });
    // The recorder kept a part of the body only (its budget): a prefix holding the secret.
    const cut = { ...long, requestBody: long.requestBody!.subarray(0, 120), requestTruncated: true };
    const { read } = await liveAndRecorded([created, cut]);
    expect(read[1]!.requestBody).toContain('«redacted:signing-secret#');
    expect(read[1]!.requestBodyTruncated).toBe(true);
  });
});

describe('an echoed secret is judged where the request did not send it as data (F4, every surface)', () => {
  const TOKEN = 'mcp-token-7Kq2Wx9Lm4Vr8Zt3Nb6Yc1Hd';
  const profile = { target: 'http://127.0.0.1:9', credentials: [{ name: 'mcp-main', token: TOKEN, surfaces: ['mcp'] }] };

  /** One POST to /mcp answered 200 with a JSON-RPC error whose message echoes what it was sent, judged by mcp.redaction.run-secrets. */
  async function verdict(request: { path?: string; headers?: Record<string, string>; body: unknown }, echoed: string): Promise<string> {
    const { parseProfile } = await import('../../src/profile/load.ts');
    const r: RecordedBytes = {
      startedAt: new Date('2026-01-01T00:00:00Z'),
      method: 'POST',
      url: `http://127.0.0.1:9${request.path ?? '/mcp'}`,
      requestHeaders: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...request.headers },
      requestBody: Buffer.from(JSON.stringify(request.body)),
      status: 200,
      responseHeaders: ANSWER,
      responseBody: Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: `unknown argument: ${echoed}` } })),
    };
    const judged = await judgeRecording([exchangeOfBytes(r, 0, 1024 * 1024)], { env: {}, profile: parseProfile(profile, 'test'), patterns: ['mcp.redaction.run-secrets'] });
    return judged.results.find((x) => x.rule.id === 'mcp.redaction.run-secrets')!.verdict;
  }

  const call = (args: unknown) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: args } });

  it('passes a token the client put in its body, a query parameter or a header of its own, and its answer repeated', async () => {
    expect(await verdict({ headers: { authorization: 'Bearer some-other-token-accepted' }, body: call({ note: TOKEN }) }, TOKEN)).toBe('pass');
    expect(await verdict({ path: `/mcp?note=${TOKEN}`, body: call({}) }, TOKEN)).toBe('pass');
    expect(await verdict({ headers: { 'x-client-note': TOKEN }, body: call({}) }, TOKEN)).toBe('pass');
  });

  it('fails the token the request authenticated with (Authorization, X-Api-Key, access_token) when its answer repeats it, and one it did not send', async () => {
    expect(await verdict({ headers: { authorization: `Bearer ${TOKEN}` }, body: call({}) }, TOKEN)).toBe('fail');
    expect(await verdict({ headers: { 'x-api-key': TOKEN }, body: call({}) }, TOKEN)).toBe('fail');
    expect(await verdict({ path: `/mcp?access_token=${TOKEN}`, body: call({}) }, TOKEN)).toBe('fail');
    expect(await verdict({ body: call({ note: 'nothing secret here' }) }, TOKEN)).toBe('fail');
  });
});

describe('the rules that need an active probe, named beside a passive gate (F5)', () => {
  async function line(records: RecordedBytes[]): Promise<string> {
    const exchanges = records.map((r, i) => exchangeOfBytes(r, i, 1024 * 1024));
    const dir = mkdtempSync(join(tmpdir(), 'apicert-active-line-'));
    const file = join(dir, 'rec.har');
    await writeHar(file, hiddenHar(records, 'test', recordingHiding(exchanges, undefined, {})));
    const judged = await apicert('judge-traffic', '--har', file, '--out', join(dir, 'out'), '--quiet', '--allow-untestable');
    return judged.out.split('\n').find((l) => l.includes('covers what a recording shows')) ?? '';
  }

  it('names only those of the surfaces the traffic holds exchanges of', async () => {
    const text = await line([rec('GET', '/v1/usage', 200, { period: {} })]);
    expect(text).toMatch(/\d+ rule\(s\) need an active probe and were not judged \(run "apicert certify"\): v1\./);
    expect(text).toContain("(those of this traffic's surfaces: v1)");
    expect(text).not.toMatch(/\b(v8|mcp)\.[a-z]/);
  });

  it("says so when none of them is of this traffic's surfaces", async () => {
    const text = await line([rec('GET', '/health', 200, { ok: true })]);
    expect(text).toMatch(/the \d+ rule\(s\) that need an active probe are of none of this traffic's surfaces$/);
  });
});
