/** `apicert judge-traffic` and `apicert proxy` end to end: reports marked passive, the usual exit codes. */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { apicert } from '../support/in-process-cli.ts';
import { until } from '../support/bounded.ts';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { startFake } from '../../src/fake/server.ts';

const BIN = new URL('../../bin/apicert.js', import.meta.url).pathname;


interface PassiveReport {
  run: { mode?: string; requests: number; allowUntestable: boolean };
  summary: { gate: string };
  rules: Array<{ id: string; verdict: string; exchanges?: number }>;
}

/** Each run writes its own folder below --out; `latest` points at it. */
const readReport = (out: string) => JSON.parse(readFileSync(join(out, 'latest', 'report.json'), 'utf8')) as PassiveReport;

describe('apicert judge-traffic', () => {
  it('judges certify --har-out recordings: exit 0 on the clean fake, 1 under a fault; secrets stay out of the recording', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apicert-traffic-'));
    const clean = join(dir, 'clean.har');
    expect((await apicert('certify', '--rules', 'mcp.jsonrpc.id-echoed', '--out', join(dir, 'active'), '--quiet', '--har-out', clean)).code).toBe(0);
    // Hidden or not, a recording holds traffic: readable by its owner only.
    expect(statSync(clean).mode & 0o077).toBe(0);
    const judged = await apicert('judge-traffic', '--har', clean, '--out', join(dir, 'passive'), '--quiet');
    expect(judged.code, judged.err).toBe(0);
    expect(judged.out).toMatch(/\(mode: passive\): gate PASS/);
    // A pass over a recording says which rules only an active run judges (a certify FAIL of one would not show here).
    expect(judged.out).toMatch(/gate PASS covers what a recording shows: \d+ rule\(s\) need an active probe and were not judged \(run "apicert certify"\): [a-z0-9.-]+/);
    const report = readReport(join(dir, 'passive'));
    expect(report.run.mode).toBe('passive');
    expect(report.rules.find((r) => r.id === 'mcp.jsonrpc.id-echoed')).toMatchObject({ verdict: 'pass' });
    expect(report.rules.find((r) => r.id === 'mcp.jsonrpc.id-echoed')!.exchanges).toBeGreaterThan(0);
    expect(readFileSync(clean, 'utf8')).toMatch(/Bearer «redacted:token:/);

    const faulty = join(dir, 'faulty.har');
    await apicert('certify', '--rules', 'mcp.jsonrpc.id-echoed', '--faults', 'mcp.jsonrpc.id-echoed/digit-string-as-number', '--out', join(dir, 'active2'), '--quiet', '--har-out', faulty, '--har-secrets');
    expect(statSync(faulty).mode & 0o077).toBe(0);
    const failing = await apicert('judge-traffic', '--har', faulty, '--out', join(dir, 'passive2'), '--quiet');
    expect(failing.code).toBe(1);
    expect(failing.out).toMatch(/gate FAIL/);
    // The recording holds the secrets; the reports learned them from it and hold none.
    // A credential is a b64token (RFC 6750 2.1); a WWW-Authenticate challenge ("Bearer realm=...") is none.
    const tokens = [...readFileSync(faulty, 'utf8').matchAll(/"Bearer ([A-Za-z0-9._~+/-]+=*)"/g)].map((m) => m[1]!);
    expect(tokens.length).toBeGreaterThan(0);
    for (const file of ['report.json', 'summary.md', 'report.html', 'junit.xml']) {
      const text = readFileSync(join(dir, 'passive2', 'latest', file), 'utf8');
      for (const token of tokens) expect(text.includes(token), `${file} holds a token`).toBe(false);
    }
  }, 120_000);

  it('judges a recording of the built-in fake as its run did, with no profile file: the facts travel in the recording, never a token', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apicert-traffic-'));
    const har = join(dir, 'run.har');
    // These need what traffic cannot show: which credential holds which scopes, which key is expired.
    const needFacts = ['v8.missions.auth.scope-403', 'v1.auth.expired-key'];
    // This one reads a token's text, which the facts do not hold (a marker stands in it): it judges what the recording shows of it.
    const rules = [...needFacts, 'v1.auth.key-prefix'];
    expect((await apicert('certify', '--rules', rules.join(','), '--out', join(dir, 'active'), '--quiet', '--har-out', har)).code).toBe(0);
    const written = JSON.parse(readFileSync(har, 'utf8')) as { log: { _apicertProfile: { credentials: Array<Record<string, unknown>> }; entries: unknown[] } };
    expect(written.log._apicertProfile.credentials.length).toBeGreaterThan(0);
    for (const c of written.log._apicertProfile.credentials) expect(Object.keys(c)).not.toContain('token');

    const judged = await apicert('judge-traffic', '--har', har, '--out', join(dir, 'passive'));
    expect(judged.code, judged.err).toBe(0);
    expect(judged.out).toMatch(/facts .* are the recording's own/);
    const report = readReport(join(dir, 'passive'));
    for (const id of rules) {
      const rule = report.rules.find((r) => r.id === id)!;
      expect(rule.verdict, id).toBe('pass');
      expect(rule.exchanges, id).toBeGreaterThan(0);
    }

    // Without them, the same recording cannot say who holds what: those rules are untestable.
    const bare = join(dir, 'bare.har');
    writeFileSync(bare, JSON.stringify({ log: { ...written.log, _apicertProfile: undefined } }));
    const unknown = await apicert('judge-traffic', '--har', bare, '--out', join(dir, 'bare'), '--quiet');
    expect(unknown.code).toBe(1);
    expect(unknown.out).toMatch(/gate UNTESTABLE - .*; required \d+ pass, 0 fail, [1-9]\d* untestable, /);
    for (const id of needFacts) expect(readReport(join(dir, 'bare')).rules.find((r) => r.id === id)!.verdict, id).toBe('untestable');

    // Facts that are not a profile's are a usage error that names the way out.
    const broken = join(dir, 'broken.har');
    writeFileSync(broken, JSON.stringify({ log: { ...written.log, _apicertProfile: { credentials: 'all of them' } } }));
    const refused = await apicert('judge-traffic', '--har', broken, '--out', join(dir, 'broken'), '--quiet');
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/_apicertProfile .* is not valid.*--profile FILE/);
  }, 120_000);

  it('exits 2 on a file that is not HAR and 3 on a recording that lets no rule judge', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apicert-traffic-'));
    const missing = await apicert('judge-traffic', '--har', join(dir, 'nope.har'), '--out', dir);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/cannot read .*nope\.har/);
    writeFileSync(join(dir, 'empty.har'), JSON.stringify({ log: { version: '1.2', entries: [] } }));
    const empty = await apicert('judge-traffic', '--har', join(dir, 'empty.har'), '--out', dir, '--quiet');
    expect(empty.code).toBe(3);
    expect(empty.out).toMatch(/gate INCONCLUSIVE/);
  }, 60_000);
});

/** `apicert proxy` in a child process (it stops on a signal), once it listens. */
async function proxyChild(args: string[]): Promise<{ url: string; child: ChildProcessWithoutNullStreams; stop: (again?: boolean) => Promise<{ code: number | null }> }> {
  const child = spawn(process.execPath, [BIN, 'proxy', ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the proxy did not start: ${out}`)), 30_000);
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const found = /apicert proxy: (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]!);
      }
    });
  });
  /** SIGTERM; `again`: once the proxy said it is stopping, SIGTERM again. */
  const stop = async (again = false) => {
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    if (!again) return { code: await exited };
    await until('the proxy to say it is stopping', () => err.includes('SIGTERM received: stopping the proxy'));
    child.kill('SIGTERM');
    return { code: await exited };
  };
  return { url, child, stop };
}

describe('apicert proxy', () => {
  it('forwards to the upstream, judges what passed and writes the report on SIGTERM', async () => {
    const fake = await startFake();
    const dir = mkdtempSync(join(tmpdir(), 'apicert-proxy-'));
    // Without --profile the rules that need its facts (which token is expired, which scopes it holds) are untestable.
    const { url, child, stop } = await proxyChild(['--upstream', fake.baseUrl, '--out', dir, '--quiet', '--allow-untestable']);
    try {
      const token = embeddedProfile(fake).credentials.find((c) => c.surfaces.includes('v8') && !c.expired)!.token;
      for (let i = 0; i < 3; i += 1) {
        const res = await fetch(new URL('/v8/missions/00000000-0000-7000-8000-000000000000', url), { headers: { authorization: `Bearer ${token}` } });
        expect(res.status).toBe(404);
        await res.arrayBuffer();
      }
      expect((await stop()).code).toBe(0);
      const report = readReport(dir);
      expect(report.run.mode).toBe('passive');
      expect(report.run.requests).toBe(3);
      expect(report.rules.find((r) => r.id === 'v8.errors.problem-shape')).toMatchObject({ verdict: 'pass', exchanges: 3 });
      expect(readFileSync(join(dir, 'latest', 'report.json'), 'utf8').includes(token)).toBe(false);
      // Exit 0 under --allow-untestable: the report records the flag, so its formats say the gate the exit code gave.
      expect(report.summary.gate).toBe('untestable');
      expect(report.run.allowUntestable).toBe(true);
      expect(readFileSync(join(dir, 'latest', 'summary.md'), 'utf8')).toContain('- Gate: **PASS (untestable rules allowed by --allow-untestable)**');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await fake.close();
    }
  }, 60_000);

  it('keeps its signal handlers while it judges and writes: a repeated SIGTERM is heard, never the default that kills it unsaid', async () => {
    const fake = await startFake();
    const dir = mkdtempSync(join(tmpdir(), 'apicert-proxy-'));
    const { url, child, stop } = await proxyChild(['--upstream', fake.baseUrl, '--out', dir, '--quiet', '--allow-untestable']);
    try {
      const token = embeddedProfile(fake).credentials.find((c) => c.surfaces.includes('v8') && !c.expired)!.token;
      const res = await fetch(new URL('/v8/missions/00000000-0000-7000-8000-000000000000', url), { headers: { authorization: `Bearer ${token}` } });
      await res.arrayBuffer();
      // The first signal is answered with the stopping line (stop(true) waits for it), the second by the handler: within
      // the repeat window (1 s) it is the same request and the report is written (0); later it quits at once (143).
      // Which of the two depends on the machine's speed; a process killed by the default action has no exit code.
      const stopped = await stop(true);
      expect([0, 143]).toContain(stopped.code);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await fake.close();
    }
  }, 60_000);

  it('--har-out hides every credential the traffic carried and carries the --profile facts: judge-traffic then judges it as the proxy did, with no profile', async () => {
    const fake = await startFake();
    const dir = mkdtempSync(join(tmpdir(), 'apicert-proxy-'));
    const profile = embeddedProfile(fake);
    const profileFile = join(dir, 'profile.json');
    writeFileSync(profileFile, JSON.stringify(profile));
    const har = join(dir, 'traffic.har');
    const { url, child, stop } = await proxyChild(['--upstream', fake.baseUrl, '--profile', profileFile, '--har-out', har, '--out', join(dir, 'proxy')]);
    const unknownToken = 'someone-elses-key-0123456789abcdef';
    try {
      const v8 = profile.credentials.find((c) => c.surfaces.includes('v8') && !c.expired)!;
      const expired = profile.credentials.find((c) => c.expired)!;
      const send = async (path: string, token: string, init: RequestInit = {}) => {
        const res = await fetch(new URL(path, url), { ...init, headers: { authorization: `Bearer ${token}`, ...(init.headers as Record<string, string> | undefined) } });
        await res.arrayBuffer();
        return res;
      };
      expect((await send('/v8/missions/00000000-0000-7000-8000-000000000000', v8.token)).status).toBe(404);
      expect((await send('/v8/missions/00000000-0000-7000-8000-000000000000', expired.token)).status).toBe(401);
      expect((await send('/v8/missions/00000000-0000-7000-8000-000000000000', unknownToken)).status).toBe(401);
      const mcp = profile.credentials.find((c) => c.surfaces.includes('mcp'))!;
      const init = await send('/mcp', mcp.token, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'cli-test', version: '1' } } }),
      });
      const session = init.headers.get('mcp-session-id');
      expect(session).toBeTruthy();
      expect((await stop()).code).toBe(0);

      const text = readFileSync(har, 'utf8');
      expect(statSync(har).mode & 0o077).toBe(0);
      for (const c of profile.credentials) expect(text.includes(c.token), `${c.name}'s token`).toBe(false);
      expect(text.includes(unknownToken)).toBe(false);
      // The target's session ids stay, as certify --har-out keeps them: the session rules read them.
      expect(text).toContain(session!);
      expect(text).toContain(`Bearer «redacted:token:${v8.name}»`);
      const written = JSON.parse(text) as { log: { _apicertProfile?: { credentials: Array<Record<string, unknown>> } } };
      expect(written.log._apicertProfile?.credentials.map((c) => c.name)).toEqual(profile.credentials.map((c) => c.name));

      // The recording judged with no profile gives the proxy's verdicts, those that need the facts included.
      const judged = await apicert('judge-traffic', '--har', har, '--out', join(dir, 'passive'), '--quiet');
      const live = readReport(join(dir, 'proxy'));
      const recorded = readReport(join(dir, 'passive'));
      expect(live.rules.find((r) => r.id === 'v8.missions.auth.expired-token-401')).toMatchObject({ verdict: 'pass' });
      expect(recorded.rules.map((r) => [r.id, r.verdict])).toEqual(live.rules.map((r) => [r.id, r.verdict]));
      expect(recorded.summary.gate).toBe(live.summary.gate);
      expect(judged.code, judged.err).toBe(live.summary.gate === 'pass' ? 0 : 1);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await fake.close();
    }
  }, 60_000);

  it('--har-secrets keeps the traffic as sent, readable by its owner only, and needs --har-out', async () => {
    const fake = await startFake();
    const dir = mkdtempSync(join(tmpdir(), 'apicert-proxy-'));
    const har = join(dir, 'traffic.har');
    const { url, child, stop } = await proxyChild(['--upstream', fake.baseUrl, '--har-out', har, '--har-secrets', '--out', dir, '--quiet', '--allow-untestable']);
    try {
      const token = embeddedProfile(fake).credentials.find((c) => c.surfaces.includes('v8') && !c.expired)!.token;
      const res = await fetch(new URL('/v8/missions/00000000-0000-7000-8000-000000000000', url), { headers: { authorization: `Bearer ${token}` } });
      await res.arrayBuffer();
      expect((await stop()).code).toBe(0);
      expect(readFileSync(har, 'utf8')).toContain(`Bearer ${token}`);
      expect(statSync(har).mode & 0o077).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await fake.close();
    }
    const refused = await apicert('proxy', '--upstream', 'http://127.0.0.1:9', '--har-secrets', '--out', dir);
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/--har-secrets applies only with --har-out FILE/);
  }, 60_000);
});
