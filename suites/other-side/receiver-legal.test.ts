/**
 * certify-receiver against receivers that choose differently from the sample where the seed leaves
 * the choice open: each must pass every rule. And against receivers it must not judge (a wrong
 * path, a slow one), whose rules must say why instead of passing or failing. Loopback only.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../src/reports/model.ts';
import type { RuleResult } from '../../src/rule/index.ts';
import { signedDelivery } from '../../src/receiver-cert/deliveries.ts';
import { certifyReceiver } from '../../src/receiver-cert/certify-receiver.ts';
import { TargetUnreachable } from '../../src/runner/certify.ts';
import { ALL_PASS, certifyAgainst, startLegalReceiver, verdicts } from './legal-receivers.ts';
import { SAMPLES, TEST_SECRET } from './support.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const BIN = join(ROOT, 'bin/apicert.js');

const observed = (report: Report, ruleId: string, subject: string) => report.observations.find((o) => o.ruleId === ruleId && o.subject === subject);
const byId = (results: readonly RuleResult[], id: string) => results.find((r) => r.rule.id === id)!;

/** The CLI, asynchronously: the receivers live in this process and must go on answering. */
function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, APICERT_WEBHOOK_SECRET: '', ...env } }, (error, out, err) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, out, err }),
    );
  });
}

describe.concurrent('receivers that choose where the seed leaves the choice open pass every rule', () => {
  it('answers 400 to a delivery without Service-Webhook-Signature (a malformed request as much as an unauthenticated one)', async () => {
    const { report, results } = await certifyAgainst({ unsignedStatus: 400 });
    expect(verdicts(results), byId(results, 'receiver.v1.webhooks.bad-signature').reason).toEqual(ALL_PASS);
    expect(observed(report, 'receiver.v1.webhooks.bad-signature', 'status for a delivery without Service-Webhook-Signature')?.value).toBe(400);
  });

  it('labels every answer application/json with a body that is not JSON (no sentence governs the answer body)', async () => {
    const { report, results } = await certifyAgainst({ mislabelledBody: true });
    expect(verdicts(results), results.map((r) => r.reason).join('; ')).toEqual(ALL_PASS);
    expect(String(observed(report, 'receiver.v1.webhooks.accepts-valid', 'answer body')?.value)).toMatch(/^the 200 answer to POST \/hook is application\/json but not JSON$/);
  });

  it.each([['hang' as const], ['reset' as const]])('%s on GET and serves POST ("Each delivery is an HTTP POST")', async (otherMethods) => {
    const { results } = await certifyAgainst({ otherMethods }, { requestTimeoutMs: 1_000 });
    expect(verdicts(results)).toEqual(ALL_PASS);
  });

  it('keeps a clock 200 s ahead, and rejects by its own clock (the Date header shows it)', async () => {
    const { report, results } = await certifyAgainst({ clockOffsetSeconds: 200 });
    expect(verdicts(results), results.map((r) => r.reason).join('; ')).toEqual(ALL_PASS);
    expect(String(observed(report, 'receiver.v1.webhooks.timestamp-future', 'receiver clock')?.value)).toMatch(/^(199|200|201) s from apicert's/);
  });

  it('sends no Date header: the stamps fall back to 600 s, and say so', async () => {
    const { report, results } = await certifyAgainst({ noDate: true });
    expect(verdicts(results)).toEqual(ALL_PASS);
    expect(observed(report, 'receiver.v1.webhooks.timestamp-past', 'receiver clock')).toMatchObject({ value: 'no Date header', note: "deliveries stamped 600 s off apicert's clock" });
  });

  it('refuses a sequence that arrives before the one it waits for, and takes it when retried in order', async () => {
    const { report, results } = await certifyAgainst({ holdGaps: true });
    expect(verdicts(results), byId(results, 'receiver.v1.webhooks.ordering').reason).toEqual(ALL_PASS);
    expect(observed(report, 'receiver.v1.webhooks.ordering', 'status for sequence 2 before sequence 1')?.value).toBe(409);
  });

  it('refuses fields the seed does not name (raw-body judges verification alone)', async () => {
    const { results } = await certifyAgainst({ strictFields: true });
    expect(verdicts(results), byId(results, 'receiver.v1.webhooks.raw-body').reason).toEqual(ALL_PASS);
  });
});

describe.concurrent('receivers certify-receiver must not pass, or cannot judge', () => {
  it('a receiver that answers 404 to every POST (a wrong path): the refusal rules are inconclusive, not passed', async () => {
    const { results } = await certifyAgainst({ everyPost: 404 });
    const refusals = ['bad-signature', 'timestamp-past', 'timestamp-future', 'api-version', 'event-id-mismatch'].map((name) => `receiver.v1.webhooks.${name}`);
    for (const id of refusals) {
      expect(byId(results, id).verdict, id).toBe('inconclusive');
      expect(byId(results, id).reason, id).toMatch(/^setup failed: the receiver answered 404 to a valid signed delivery/);
    }
    expect(byId(results, 'receiver.v1.webhooks.accepts-valid').verdict).toBe('fail');
  });

  it('a tolerance of 500 s fails both timestamp rules', async () => {
    const { results } = await certifyAgainst({ toleranceSeconds: 500 });
    expect(verdicts(results)).toEqual({ ...ALL_PASS, 'receiver.v1.webhooks.timestamp-past': 'fail', 'receiver.v1.webhooks.timestamp-future': 'fail' });
    expect(byId(results, 'receiver.v1.webhooks.timestamp-past').reason).toMatch(/stamped 3[01]\d s ago \(its Date header puts its clock -?\d s from apicert's\) got 204/);
  });

  it('an unsigned delivery answered 200 fails bad-signature; one answered 429 leaves it inconclusive', async () => {
    const taken = await certifyAgainst({ unsignedStatus: 200 }, { patterns: ['receiver.v1.webhooks.bad-signature'] });
    expect(taken.results[0]!.verdict).toBe('fail');
    expect(taken.results[0]!.reason).toMatch(/without Service-Webhook-Signature got 200: it must be refused \(4xx/);
    const limited = await certifyAgainst({ unsignedStatus: 429 }, { patterns: ['receiver.v1.webhooks.bad-signature'] });
    expect(limited.results[0]!.verdict).toBe('inconclusive');
  });

  it('a receiver slower than the timeout: inconclusive, naming the path and receiver.requestTimeoutMs', async () => {
    const { results } = await certifyAgainst({ hangPost: true }, { requestTimeoutMs: 500, patterns: ['receiver.v1.webhooks.accepts-valid'] });
    expect(results[0]!.verdict).toBe('inconclusive');
    expect(results[0]!.reason).toMatch(/^POST \/hook: UND_ERR_HEADERS_TIMEOUT: .*receiver\.requestTimeoutMs/);
  });

  it('nothing listening is still unreachable', async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    await expect(certifyReceiver({ url: `http://127.0.0.1:${port}/hook`, secret: TEST_SECRET })).rejects.toThrow(TargetUnreachable);
  });
});

describe.concurrent('what certify-receiver says about its own inputs', () => {
  it('names the variable the secret was to come from', async () => {
    const { results } = await certifyAgainst({}, { secret: undefined, secretEnv: 'MY_HOOK_SECRET' });
    for (const r of results) expect(r.reason, r.rule.id).toMatch(/^MY_HOOK_SECRET: no signing secret/);
  });

  it('warns of a secret too short to redact everywhere, in the report and on the console', async () => {
    const warnings: string[] = [];
    const receiver = await startLegalReceiver('s3cr3t', {});
    try {
      const { report } = await certifyReceiver({ url: receiver.url, secret: 's3cr3t', seed: 7, patterns: ['receiver.v1.webhooks.accepts-valid'], onWarning: (w) => warnings.push(w) });
      expect(warnings).toEqual([expect.stringMatching(/the secret signing-secret is only 6 characters long/)]);
      expect(report.run.warnings).toEqual(warnings);
      const run = await cli(['certify-receiver', '--url', receiver.url, '--out', mkdtempSync(join(tmpdir(), 'apicert-legal-')), '--rules', 'receiver.v1.webhooks.accepts-valid'], { APICERT_WEBHOOK_SECRET: 's3cr3t' });
      expect(run.code, run.err).toBe(0);
      expect(run.err).toMatch(/apicert: warning: the secret signing-secret is only 6 characters long/);
    } finally {
      await receiver.close();
    }
  });

  it.each([
    ['a+b/c%2Bxyz12345', ['a+b/', 'xyz12345']],
    ['abc%7Edef~ghi12345', ['abc%7E', 'ghi12345']],
  ])('keeps a query key written with mixed encodings (%s) out of the report', async (written, pieces) => {
    const receiver = await startLegalReceiver(TEST_SECRET, {});
    try {
      const { report } = await certifyReceiver({ url: `${receiver.url}?token=${written}`, secret: TEST_SECRET, seed: 7, patterns: ['receiver.v1.webhooks.accepts-valid'] });
      const text = JSON.stringify(report);
      expect(text).toContain('«redacted:receiver-url-query:token»');
      for (const piece of pieces) expect(text).not.toContain(piece);
    } finally {
      await receiver.close();
    }
  });

  it.each([['ftp://127.0.0.1:1/h?token=tok_SuperSecret_987654'], ['http://127.0.0.1:99999/h?token=tok_SuperSecret_987654']])('never echoes the query of a --url it refuses (%s)', async (url) => {
    const run = await cli(['certify-receiver', '--url', url, '--out', mkdtempSync(join(tmpdir(), 'apicert-legal-'))], { APICERT_WEBHOOK_SECRET: 'x' });
    expect(run.code).toBe(2);
    expect(run.err).toMatch(/--url .*(is not an http or https URL|is not a URL)/);
    expect(run.err).not.toContain('tok_SuperSecret');
  });
});

describe('the handler of docs/webhooks.md and samples/receiver.ts', () => {
  const docs = readFileSync(join(ROOT, 'docs/webhooks.md'), 'utf8');
  const snippet = /```ts\n([\s\S]*?)```/.exec(docs)![1]!;

  it('answers 500 and releases the claim when the effect fails, and goes on serving', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apicert-docs-handler-'));
    const file = join(dir, 'handler.ts');
    const program = [
      "async function handle(_event: unknown): Promise<void> { throw new Error('database unavailable'); }",
      'setTimeout(() => process.exit(0), 30_000).unref();',
      snippet.replace("'apicert/webhooks'", `'${join(ROOT, 'src/webhooks/index.ts')}'`).replace('.listen(8080);', ".listen(0, '127.0.0.1', function (this: any) { console.log(`listening ${this.address().port}`); });"),
    ].join('\n');
    expect(program).toContain("listen(0, '127.0.0.1'");
    writeFileSync(file, program);
    const child = spawn(process.execPath, [file], { env: { ...process.env, WEBHOOK_SECRET: TEST_SECRET }, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const port = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (c: Buffer) => {
          const found = /listening (\d+)/.exec(c.toString())?.[1];
          if (found) resolve(found);
        });
        child.once('exit', (code) => reject(new Error(`the handler exited (${code}) before listening`)));
      });
      const first = await signedDelivery(TEST_SECRET);
      const post = async () => {
        const delivery = await signedDelivery(TEST_SECRET, { eventId: first.eventId, rawBody: () => first.rawBody });
        return (await fetch(`http://127.0.0.1:${port}/webhooks`, { method: 'POST', headers: delivery.headers, body: delivery.rawBody })).status;
      };
      // Released, the retry is a new attempt at the effect (500 again), not a duplicate answered 204.
      expect(await post()).toBe(500);
      expect(await post()).toBe(500);
      expect(child.exitCode).toBeNull();
    } finally {
      if (child.exitCode === null && child.pid) process.kill(child.pid, 'SIGTERM');
    }
  });

  it('is the sample receiver\'s handler, line for line', () => {
    const sample = readFileSync(join(SAMPLES, 'receiver.ts'), 'utf8').split('\n').map((line) => line.trim());
    const handler = snippet.slice(snippet.indexOf('  if (!result.ok)'), snippet.indexOf('}).listen')).split('\n').map((line) => line.trim()).filter(Boolean);
    expect(handler.length).toBeGreaterThanOrEqual(3);
    for (const line of handler) expect(sample, line).toContain(line);
  });
});
