/**
 * What the proxy says and hides (audit 53): exchanges its record dropped are said, in the report
 * and at the stop, and a gate over them says it judged a subset (D1); a credential a 403 answered
 * is one the deployment authenticated, and the HAR never carries a client's credential its answer
 * echoed (D5); the live hand-over is bounded in bytes (D6); live findings and the report name a
 * secret alike (D8).
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { liveJudging, outranLine } from '../../src/cli/live-findings.ts';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { startFake } from '../../src/fake/server.ts';
import { exchangeOfEntry } from '../../src/passive/har.ts';
import { judgeRecording, recordingHiding } from '../../src/passive/judge.ts';
import { LiveJudge, MAX_PENDING_BYTES, type LiveFinding } from '../../src/passive/live.ts';
import { hiddenHar, writeHar } from '../../src/passive/recorder.ts';
import { keyedLabels, learnSecrets } from '../../src/passive/secrets.ts';
import type { RecordedBytes } from '../../src/passive/har.ts';
import { RULES } from '../../src/registry.ts';
import { renderHtml } from '../../src/reports/html.ts';
import { renderJunit } from '../../src/reports/junit.ts';
import { renderMarkdown } from '../../src/reports/markdown.ts';
import { until } from '../support/bounded.ts';

const BIN = new URL('../../bin/apicert.js', import.meta.url).pathname;
const V8 = [{ name: 'x-service-contract-version', value: 'service-integration-gateway-v8.1' }, { name: 'content-type', value: 'application/problem+json' }];
const problem = (status: number, detail: string) => JSON.stringify({ type: 'https://errors.example/x', title: 'x', status, detail, code: 'x', requestId: '9cbde346-84c1-4d99-9a60-98f22e484bcb' });

function exchange(index: number, token: string, status: number, body: string, options: { path?: string; method?: string; headers?: Array<{ name: string; value: string }>; requestBody?: string } = {}) {
  return exchangeOfEntry(
    {
      startedDateTime: '2026-01-01T00:00:00.000Z',
      request: {
        method: options.method ?? 'GET',
        url: `https://api.example${options.path ?? `/v8/missions/0000000${index}`}`,
        headers: [{ name: 'Authorization', value: `Bearer ${token}` }, ...(options.requestBody ? [{ name: 'content-type', value: 'application/json' }] : [])],
        ...(options.requestBody ? { postData: { mimeType: 'application/json', text: options.requestBody } } : {}),
      },
      response: { status, headers: [...V8, ...(options.headers ?? [])], content: { mimeType: 'application/problem+json', text: body } },
    },
    index,
  )!;
}

function recorded(token: string, status: number, body: string, headers: Record<string, string> = {}): RecordedBytes {
  return {
    startedAt: new Date('2026-01-01T00:00:00.000Z'),
    method: 'GET',
    url: 'https://api.example/v8/missions/00000001',
    requestHeaders: { authorization: `Bearer ${token}` },
    status,
    responseHeaders: { 'content-type': 'application/problem+json', ...headers },
    responseBody: Buffer.from(body),
  };
}

describe('D5: a 403 shows the token was authenticated; the HAR hides what an answer echoed', () => {
  it('judges a token a /v8 403 answered as a secret, but not a 401 (issue 35), a 403 of memory query or /v1', () => {
    const probe = 'a'.repeat(4096);
    const learned = learnSecrets([
      exchange(0, probe, 401, problem(401, 'no')),
      exchange(1, 'scope-less-token-JJJ999', 403, problem(403, 'no')),
      exchange(2, 'memory-403-token-KKK777', 403, problem(403, 'principalId'), { path: '/v8/memory/query', method: 'POST', requestBody: '{"principalId":"x"}' }),
      exchange(3, 'v1-403-token-LLL666', 403, problem(403, 'no'), { path: '/v1/runs' }),
    ]);
    expect(learned.map((s) => [s.value.slice(0, 12), s.judged])).toEqual([
      ['aaaaaaaaaaaa', false],
      ['scope-less-t', true],
      ['memory-403-t', false],
      ['v1-403-token', false],
    ]);
  });

  it('fails v8.redaction.run-secrets on a 403 that echoes the token it refused for a scope', async () => {
    const token = 'valid-but-403-JJJ999xyz';
    const judged = await judgeRecording([exchange(0, token, 403, problem(403, `token ${token} lacks scope missions:read`))], { env: {}, patterns: ['v8.redaction.run-secrets'] });
    const result = judged.results.find((r) => r.rule.id === 'v8.redaction.run-secrets')!;
    expect(result.verdict, result.reason).toBe('fail');
    expect(JSON.stringify(judged.report)).not.toContain(token);
  });

  it("keeps no client's credential its own answer echoed in the proxy's HAR, whatever was answered, and writes the HAR readable by its owner only", async () => {
    const expired = 'expired-opaque-DDD444';
    const unseen = 'valid-but-404-HHH888';
    const recs = [recorded(expired, 401, problem(401, `token ${expired} expired`), { 'www-authenticate': `Bearer error="invalid_token", token="${expired}"` }), recorded(unseen, 404, problem(404, `no mission for ${unseen}`))];
    const exchanges = recs.map((rec, i) => exchangeOfEntry({ startedDateTime: rec.startedAt.toISOString(), request: { method: rec.method, url: rec.url, headers: [{ name: 'authorization', value: rec.requestHeaders.authorization! }] }, response: { status: rec.status!, headers: Object.entries(rec.responseHeaders).map(([name, value]) => ({ name, value })), content: { mimeType: 'application/problem+json', text: rec.responseBody!.toString() } } }, i)!);
    const har = JSON.stringify(hiddenHar(recs, 'test', recordingHiding(exchanges, undefined, {})));
    expect(har).not.toContain(expired);
    expect(har).not.toContain(unseen);
    expect(har).toContain('token «redacted:authorization#1» expired');
    expect(har).toContain('no mission for «redacted:authorization#2»');
    const dir = mkdtempSync(join(tmpdir(), 'apicert-har-mode-'));
    const file = join(dir, 'rec.har');
    writeFileSync(file, 'old');
    chmodSync(file, 0o644);
    await writeHar(file, hiddenHar(recs, 'test', recordingHiding(exchanges, undefined, {})));
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});

describe('D8: live findings and the report name one secret alike', () => {
  it('gives an echoed secret the same label live (in batches) and in the report (over a part of the traffic)', async () => {
    const key = 'k'.repeat(64);
    const first = 'first-accepted-token-AAA111';
    const second = 'second-accepted-token-BBB222';
    const exchanges = [exchange(0, first, 200, '{}'), exchange(1, second, 200, '{}'), exchange(2, second, 404, problem(404, `no mission for ${second}`))];
    const findings: LiveFinding[] = [];
    const live = new LiveJudge({ rules: RULES.filter((r) => r.id === 'v8.redaction.run-secrets'), webhookSecretVariable: 'X', labelKey: key, onFinding: (f) => findings.push(f) });
    live.add(exchanges[0]!);
    live.flush();
    live.add(exchanges[1]!);
    live.add(exchanges[2]!);
    live.flush();
    const label = /(authorization#\w+)/.exec(findings.find((f) => f.rule === 'v8.redaction.run-secrets')?.reason ?? '')?.[1];
    expect(label).toBeDefined();
    // The report's record dropped the first exchange: numbering what it holds would call the echoed secret #1.
    const judged = await judgeRecording(exchanges.slice(1), { env: {}, patterns: ['v8.redaction.run-secrets'], labels: keyedLabels(key) });
    const reason = judged.results.find((r) => r.rule.id === 'v8.redaction.run-secrets')!.cases[0]!.reason;
    expect(reason).toContain(`${label} in its body`);
    expect(`${reason} ${findings.map((f) => f.reason).join(' ')}`).not.toMatch(/AAA111|BBB222/);
  });
});

describe('D6: the live hand-over is bounded in bytes', () => {
  it(`hands the judging thread at most ${MAX_PENDING_BYTES} bytes of bodies waiting, and says the rest were judged in the report`, async () => {
    const errors: string[] = [];
    const spy = vi.spyOn(console, 'error').mockImplementation((line: string) => void errors.push(line));
    try {
      const live = await liveJudging({ quiet: true, bodyLimit: 1024 * 1024, rules: ['v8.redaction.run-secrets'] }, undefined);
      const body = Buffer.alloc(1024 * 1024, 0x61);
      // 48 MiB of bodies: past the budget by 16 exchanges of 1 MiB.
      const count = 48;
      // Handed over in one turn: the judging thread cannot give room back before the last.
      for (let i = 0; i < count; i += 1) live.add({ ...recorded('tok-0123456789', 200, ''), responseBody: body }, i);
      await live.stop();
      expect(errors.join('\n')).toMatch(/traffic outran live judging: (\d+) exchange/);
      expect(Number(/outran live judging: (\d+)/.exec(errors.join('\n'))![1])).toBeGreaterThanOrEqual(count - MAX_PENDING_BYTES / body.length);
    } finally {
      spy.mockRestore();
    }
  }, 30_000);
});

describe('D1: exchanges dropped from the record are said', () => {
  it('says at the stop, once, how many exchanges past a limit were not judged in the report, and only judged-in-the-report ones as such', () => {
    expect(outranLine(5, { exchanges: 0, limits: '--max-exchanges 2' })).toMatch(/5 exchange\(s\) were judged only in the report written now/);
    const line = outranLine(5, { exchanges: 3, limits: '--max-exchanges 2' })!;
    expect(line).not.toMatch(/were judged only in the report/);
    expect(line).toMatch(/5 exchange\(s\) were not judged live.*dropped 3 exchange\(s\) unjudged \(--max-exchanges 2\)/);
  });

  it('reports the dropped exchanges in report.json, summary.md, HTML and JUnit, and on the console at the stop', async () => {
    const fake = await startFake({});
    const dir = mkdtempSync(join(tmpdir(), 'apicert-proxy-dropped-'));
    const har = join(dir, 'rec.har');
    const child = spawn(process.execPath, [BIN, 'proxy', '--upstream', fake.baseUrl, '--out', join(dir, 'reports'), '--max-exchanges', '2', '--rules', 'v8.contract.version-header', '--har-out', har, '--quiet'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    try {
      await until('the proxy to listen', () => /apicert proxy: http:\/\/127\.0\.0\.1:\d+/.test(out));
      const url = /apicert proxy: (http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1]!;
      const token = embeddedProfile(fake).credentials.find((c) => c.surfaces.includes('v8') && !c.expired)!.token;
      for (let i = 0; i < 5; i += 1) await (await fetch(new URL('/v8/missions/00000000-0000-7000-8000-000000000000', url), { headers: { authorization: `Bearer ${token}` } })).arrayBuffer();
      const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
      child.kill('SIGTERM');
      await exited;
      const report = JSON.parse(readFileSync(join(dir, 'reports', 'latest', 'report.json'), 'utf8')) as Parameters<typeof renderMarkdown>[0];
      expect(report.run.requests).toBe(2);
      expect(report.run.dropped).toEqual({ exchanges: 3, limits: '--max-exchanges 2, --max-kept-bytes 134217728' });
      expect(readFileSync(join(dir, 'reports', 'latest', 'summary.md'), 'utf8')).toMatch(/Gate: \*\*\w+\*\*, judged over a subset: the 2 exchanges the record held; 3 more passed but were dropped/);
      expect(renderHtml(report)).toContain('judged over a subset');
      expect(renderJunit(report)).toMatch(/<property name="run.dropped" value="judged over a subset/);
      expect(out).toMatch(/gate \w+ judged over a subset: the 2 exchanges the record held; 3 more passed but were dropped from the record unjudged \(--max-exchanges 2/);
      expect(statSync(har).mode & 0o777).toBe(0o600);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await fake.close();
    }
  }, 60_000);
});
