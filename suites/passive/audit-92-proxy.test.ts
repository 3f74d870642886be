/**
 * `apicert proxy` (audits 92 and 93): the values of `--header` and of the profile's network.headers
 * are redacted everywhere the proxy writes (live findings, console, report, HAR) as certify's are
 * (D3); an exchange has one number in live findings and in the report once the record dropped some
 * (D1); a `--har-out` that cannot be written is refused before the proxy listens, and one that
 * fails at the stop costs the HAR only, never the report (N2); an upstream with a query is refused
 * before the proxy listens, without repeating it (N3).
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { startFake } from '../../src/fake/server.ts';
import { judgeRecording } from '../../src/passive/judge.ts';
import { LiveJudge, type LiveFinding } from '../../src/passive/live.ts';
import { exchangeOfBytes, startProxy } from '../../src/passive/proxy.ts';
import { RULES } from '../../src/registry.ts';
import { until } from '../support/bounded.ts';

const BIN = new URL('../../bin/apicert.js', import.meta.url).pathname;
const RULE = 'v8.contract.version-header';

interface Proxy {
  child: ChildProcessByStdio<null, Readable, Readable>;
  out: () => string;
  err: () => string;
  closed: Promise<number | null>;
}

function proxyCli(args: string[], env: NodeJS.ProcessEnv = {}): Proxy {
  const child = spawn(process.execPath, [BIN, 'proxy', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  // 'close': the output is read after the exit, and its last lines may still be in the pipe at 'exit'.
  const closed = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return { child, out: () => out, err: () => err, closed };
}

async function listeningUrl(proxy: Proxy): Promise<string> {
  await until('the proxy to listen', () => /apicert proxy: http:\/\/127\.0\.0\.1:\d+/.test(proxy.out()) || proxy.child.exitCode !== null, 60_000);
  const url = /apicert proxy: (http:\/\/127\.0\.0\.1:\d+)/.exec(proxy.out())?.[1];
  if (!url) throw new Error(`the proxy did not listen: ${proxy.err()}`);
  return url;
}

/** Every file under `dir`, as text. */
function filesUnder(dir: string): Array<{ path: string; text: string }> {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile())
    .map((path) => ({ path, text: readFileSync(path, 'utf8') }));
}

/** An upstream (a gateway in front of the deployment) whose 500 names the key it was sent, in a header and in its body. */
async function echoingGateway(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const key = `${req.headers['x-gw-key']} ${req.headers['x-tenant-key']}`;
      res.writeHead(500, { 'content-type': 'text/plain', 'x-service-contract-version': key });
      res.end(`gateway rejected keys ${key} for ${req.url}\n`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('D3: the proxy redacts the headers it adds upstream (--header, network.headers)', () => {
  it('hides both values in live findings, the console, every report file and the HAR', async () => {
    const gateway = await echoingGateway();
    const dir = mkdtempSync(join(tmpdir(), 'apicert-a92-hdr-'));
    const flagValue = 'gwkey-7f3a9c1e5b2d4f60a8e1';
    const profileValue = 'tenant-key-9c0d2e4f6a8b1c3d5e7f';
    const profile = join(dir, 'profile.json');
    writeFileSync(profile, JSON.stringify({ target: 'http://gateway.invalid', credentials: [], network: { headers: { v8: { 'x-tenant-key': '${A92_TENANT_KEY}' } } } }));
    const findings = join(dir, 'findings.jsonl');
    const har = join(dir, 'proxy.har');
    const proxy = proxyCli(['--upstream', gateway.url, '--header', `x-gw-key: ${flagValue}`, '--profile', profile, '--findings', findings, '--har-out', har, '--out', join(dir, 'reports'), '--rules', 'v8.contract.*'], { A92_TENANT_KEY: profileValue });
    try {
      const url = await listeningUrl(proxy);
      for (const path of ['/v8/missions/a', '/v8/missions/b']) {
        const res = await fetch(new URL(path, url));
        expect(res.status).toBe(500);
        // The gateway did get both headers: the proxy added them upstream.
        expect(await res.text()).toContain(`${flagValue} ${profileValue}`);
      }
      await until('the live finding', () => proxy.out().includes(`FAIL ${RULE}`), 60_000);
      proxy.child.kill('SIGTERM');
      await proxy.closed;
      const written = [...filesUnder(join(dir, 'reports')), { path: findings, text: readFileSync(findings, 'utf8') }, { path: har, text: readFileSync(har, 'utf8') }];
      expect(written.map((f) => f.path).some((p) => p.endsWith('report.json'))).toBe(true);
      const leaks = [...written, { path: 'stdout', text: proxy.out() }, { path: 'stderr', text: proxy.err() }].filter((f) => f.text.includes(flagValue) || f.text.includes(profileValue)).map((f) => f.path);
      expect(leaks).toEqual([]);
      // Hidden by their labelled markers, not merely absent.
      const lines = readFileSync(findings, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as LiveFinding);
      expect(lines.find((f) => f.rule === RULE)?.reason).toMatch(/«redacted:header:[^»]*:x-gw-key» «redacted:header:v8:x-tenant-key»/);
      expect(readFileSync(join(dir, 'reports', 'latest', 'report.json'), 'utf8')).toContain('«redacted:header:v8:x-tenant-key»');
      expect(readFileSync(har, 'utf8')).toMatch(/«redacted:header:[^»]*:x-gw-key»/);
    } finally {
      if (proxy.child.exitCode === null) proxy.child.kill('SIGKILL');
      await new Promise((resolve) => gateway.server.close(resolve));
    }
  }, 120_000);
});

describe('D1: one exchange has one number in live findings and in the report, once the record dropped some', () => {
  it('keeps the arrival index in the exchanges judged at the stop', async () => {
    const fake = await startFake({ faults: [`${RULE}/missing-on-errors`] });
    const profile = embeddedProfile(fake);
    const token = profile.credentials.find((c) => c.surfaces.includes('v8') && !c.expired)!.token;
    const found: LiveFinding[] = [];
    const rules = RULES.filter((r) => r.id === RULE);
    const live = new LiveJudge({ rules, profile, webhookSecretVariable: 'APICERT_WEBHOOK_SECRET', onFinding: (f) => found.push(f) });
    const proxy = await startProxy({ upstream: fake.baseUrl, bodyLimit: 64 * 1024, maxExchanges: 5, onExchange: (rec, index) => live.add(exchangeOfBytes(rec, index, 64 * 1024)) });
    try {
      // Sequential, so arrival order is request order: exchange #i asks for mission …i.
      for (let i = 0; i < 12; i += 1) {
        const res = await fetch(new URL(`/v8/missions/00000000-0000-7000-8000-0000000000${String(i).padStart(2, '0')}`, proxy.url), { headers: { authorization: `Bearer ${token}` } });
        expect(res.status).toBe(404);
        await res.arrayBuffer();
      }
      await until('twelve exchanges ended', () => proxy.recorded().every((r) => r.durationMs !== undefined) && proxy.dropped() === 7);
      live.flush();
      const exchanges = proxy.exchanges();
      expect(exchanges.map((ex) => ex.index)).toEqual([7, 8, 9, 10, 11]);
      expect(exchanges.every((ex) => ex.path.endsWith(`0000000000${String(ex.index).padStart(2, '0')}`))).toBe(true);
      const judged = await judgeRecording(exchanges, { env: {}, patterns: [RULE], profile, dropped: { exchanges: proxy.dropped(), limits: '--max-exchanges 5' } });
      const result = judged.results.find((r) => r.rule.id === RULE)!;
      expect(result.verdict).toBe('fail');
      // The report's evidence names each failing exchange as live findings did: by its place in the traffic.
      const inReport = result.evidence.map((e) => /recorded exchange #(\d+)/.exec(e.label ?? '')?.[1]).filter((n) => n !== undefined).map(Number);
      expect(inReport.length).toBeGreaterThan(0);
      const saidLive = new Map(found.map((f) => [f.exchange.index, f.exchange.path]));
      for (const index of inReport) expect(saidLive.get(index)).toBe(exchanges.find((ex) => ex.index === index)!.path);
    } finally {
      await proxy.close();
      await fake.close();
    }
  }, 60_000);
});

describe('N2: --har-out never costs the report', () => {
  it('refuses a --har-out that cannot be written before listening (exit 2)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apicert-a93-har-'));
    const proxy = proxyCli(['--upstream', 'http://127.0.0.1:9', '--har-out', join(dir, 'no-such-folder', 'x.har'), '--duration', '15s', '--out', join(dir, 'reports')]);
    try {
      expect(await proxy.closed).toBe(2);
      expect(proxy.out()).not.toMatch(/apicert proxy: http/);
      expect(proxy.err()).toMatch(/--har-out .*no-such-folder.*x\.har.*ENOENT/);
      expect(existsSync(join(dir, 'no-such-folder'))).toBe(false);
    } finally {
      if (proxy.child.exitCode === null) proxy.child.kill('SIGKILL');
    }
  }, 60_000);

  it('checks --har-out without creating or emptying the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apicert-a93-har-'));
    const kept = join(dir, 'kept.har');
    writeFileSync(kept, 'an earlier recording');
    // Refused for another reason after --har-out is checked: the file is left as it was.
    const proxy = proxyCli(['--upstream', 'http://127.0.0.1:9', '--har-out', kept, '--findings', join(dir, 'no-such-folder', 'f.jsonl'), '--out', join(dir, 'reports')]);
    expect(await proxy.closed).toBe(2);
    expect(readFileSync(kept, 'utf8')).toBe('an earlier recording');
    const fresh = join(dir, 'fresh.har');
    const again = proxyCli(['--upstream', 'http://127.0.0.1:9', '--har-out', fresh, '--findings', join(dir, 'no-such-folder', 'f.jsonl'), '--out', join(dir, 'reports')]);
    expect(await again.closed).toBe(2);
    expect(existsSync(fresh)).toBe(false);
  }, 60_000);

  it('writes the report, and warns, when the HAR cannot be written at the stop', async () => {
    const fake = await startFake({ faults: [`${RULE}/missing-on-errors`] });
    const dir = mkdtempSync(join(tmpdir(), 'apicert-a93-har-'));
    const folder = join(dir, 'recordings');
    mkdirSync(folder);
    const proxy = proxyCli(['--upstream', fake.baseUrl, '--har-out', join(folder, 'x.har'), '--out', join(dir, 'reports'), '--rules', RULE]);
    try {
      const url = await listeningUrl(proxy);
      const res = await fetch(new URL('/v8/missions/00000000-0000-7000-8000-000000000000', url));
      await res.arrayBuffer();
      // The folder goes away while the proxy runs: writable at the start, not at the stop.
      rmSync(folder, { recursive: true });
      proxy.child.kill('SIGTERM');
      // The gate's exit code (the fault fails a required rule), not 2: the run was judged and reported.
      expect(await proxy.closed).toBe(1);
      const report = JSON.parse(readFileSync(join(dir, 'reports', 'latest', 'report.json'), 'utf8')) as { run: { requests: number }; rules: Array<{ id: string; verdict: string }> };
      expect(report.run.requests).toBe(1);
      expect(report.rules.find((r) => r.id === RULE)?.verdict).toBe('fail');
      expect(proxy.err()).toMatch(/warning: the recording .*x\.har could not be written \(ENOENT\); the report is written/);
    } finally {
      if (proxy.child.exitCode === null) proxy.child.kill('SIGKILL');
      await fake.close();
    }
  }, 60_000);
});

describe('N3: an upstream with a query or fragment is refused before listening', () => {
  for (const upstream of ['http://127.0.0.1:9/?api_key=SECRETQQQ123', 'http://127.0.0.1:9/#SECRETQQQ123']) {
    it(`refuses ${upstream.replace('SECRETQQQ123', '…')} with exit 2, never repeating it`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'apicert-a93-query-'));
      const proxy = proxyCli(['--upstream', upstream, '--duration', '15s', '--out', join(dir, 'reports')]);
      try {
        expect(await proxy.closed).toBe(2);
        expect(proxy.out()).not.toMatch(/apicert proxy: http/);
        expect(proxy.err()).toMatch(/--upstream .*no query or fragment.*give the base URL alone/s);
        expect(proxy.out() + proxy.err()).not.toContain('SECRETQQQ123');
      } finally {
        if (proxy.child.exitCode === null) proxy.child.kill('SIGKILL');
      }
    }, 60_000);
  }
});
