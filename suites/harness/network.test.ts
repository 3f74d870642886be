/**
 * Reaching a gateway as vendors deploy it: a private CA, mutual TLS, a forward proxy (CONNECT and
 * plain) and extra headers per surface, each proven against loopback servers of the test's own
 * (suites/support/network-servers.ts) with the embedded fake behind them.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { startFake, type RunningFake } from '../../src/fake/server.ts';
import { closeDispatcher } from '../../src/probe/client.ts';
import { networkDispatcher } from '../../src/probe/dispatcher.ts';
import { loadProfileFile, ProfileError } from '../../src/profile/load.ts';
import type { Network } from '../../src/profile/network.ts';
import type { Profile } from '../../src/profile/schema.ts';
import { renderHtml } from '../../src/reports/html.ts';
import { renderJunit } from '../../src/reports/junit.ts';
import { renderMarkdown } from '../../src/reports/markdown.ts';
import { certify } from '../../src/runner/certify.ts';
import { forwardProxy, headerGate, makePki, tlsFront, type TestPki } from '../support/network-servers.ts';

const RULES = ['v8.missions.get.*'];
let pki: TestPki;
let fake: RunningFake;
let base: Profile;

beforeAll(async () => {
  pki = makePki();
  fake = await startFake();
  base = embeddedProfile(fake);
}, 30_000);

afterAll(async () => {
  await fake?.close();
});

function profileAt(target: string, network: Partial<Network>): Profile {
  return { ...base, target, network: { headers: {}, ...network } };
}

async function gateOf(profile: Profile): Promise<{ gate: string; stopped?: string; json: string }> {
  const { report } = await certify({ profile, patterns: RULES, seed: 1 });
  return { gate: report.summary.gate, ...(report.run.stopped ? { stopped: report.run.stopped } : {}), json: JSON.stringify(report) };
}

describe('TLS with a private certificate authority', () => {
  it('passes when the profile names the CA, and cannot reach the target without it', async () => {
    const front = await tlsFront(pki, fake.baseUrl);
    try {
      expect((await gateOf(profileAt(front.url, { tls: { ca: pki.caFile } }))).gate).toBe('pass');
      const untrusted = await certify({ profile: profileAt(front.url, {}), patterns: RULES, seed: 1 });
      expect(untrusted.report.summary.gate).toBe('inconclusive');
      expect(untrusted.report.run.stopped).toMatch(/did not answer the first probe .*network\.tls\.ca/);
      expect(untrusted.firstProbeFailure).toMatch(/SELF_SIGNED_CERT_IN_CHAIN: .*give its PEM bundle as network\.tls\.ca/);
    } finally {
      await front.close();
    }
  }, 60_000);

  it('presents the client certificate a mutual-TLS gateway demands, and is refused without one or with a stranger', async () => {
    const front = await tlsFront(pki, fake.baseUrl, { requireClientCert: true });
    try {
      expect((await gateOf(profileAt(front.url, { tls: { ca: pki.caFile, cert: pki.clientCertFile, key: pki.clientKeyFile } }))).gate).toBe('pass');
      expect(front.clients.length).toBeGreaterThan(0);
      expect(new Set(front.clients)).toEqual(new Set(['apicert client']));
      expect((await gateOf(profileAt(front.url, { tls: { ca: pki.caFile } }))).gate).toBe('inconclusive');
      expect((await gateOf(profileAt(front.url, { tls: { ca: pki.caFile, cert: pki.strangerCertFile, key: pki.strangerKeyFile } }))).gate).toBe('inconclusive');
    } finally {
      await front.close();
    }
  }, 60_000);
});

describe('a forward proxy', () => {
  it('tunnels HTTPS with CONNECT, the target\'s TLS checked against the profile CA inside the tunnel', async () => {
    const [front, proxy] = await Promise.all([tlsFront(pki, fake.baseUrl), forwardProxy()]);
    try {
      expect((await gateOf(profileAt(front.url, { tls: { ca: pki.caFile }, proxy: proxy.url }))).gate).toBe('pass');
      expect(proxy.seen.length).toBeGreaterThan(0);
      expect(new Set(proxy.seen)).toEqual(new Set([`CONNECT ${new URL(front.url).host}`]));
    } finally {
      await Promise.all([front.close(), proxy.close()]);
    }
  }, 60_000);

  it('forwards plain HTTP in absolute form, with the credentials of the proxy URL, which no report shows', async () => {
    const proxy = await forwardProxy();
    const password = 'proxy-pass-5e1d0c7a';
    try {
      const withCredentials = proxy.url.replace('http://', `http://apicert:${password}@`);
      const run = await gateOf(profileAt(fake.baseUrl, { proxy: withCredentials }));
      expect(run.gate).toBe('pass');
      expect(run.json).not.toContain(password);
      expect(proxy.seen.length).toBeGreaterThan(0);
      for (const line of proxy.seen) expect(line).toMatch(new RegExp(`^[A-Z]+ ${fake.baseUrl}/`));
      expect(new Set(proxy.auth)).toEqual(new Set([`Basic ${Buffer.from(`apicert:${password}`).toString('base64')}`]));
    } finally {
      await proxy.close();
    }
  }, 60_000);

  it('takes HTTPS_PROXY and HTTP_PROXY from the environment, honours NO_PROXY, and "none" ignores them', async () => {
    const proxy = await forwardProxy();
    const get = async (network: Network | undefined, env: NodeJS.ProcessEnv) => {
      const dispatcher = await networkDispatcher(network, { env });
      try {
        const res = await request(`${fake.baseUrl}/v8/missions/00000000-0000-7000-8000-000000000000`, { dispatcher });
        await res.body.dump();
        return res.statusCode;
      } finally {
        await closeDispatcher(dispatcher, 200);
      }
    };
    try {
      expect(await get(undefined, { HTTP_PROXY: proxy.url })).toBe(401);
      expect(proxy.seen).toHaveLength(1);
      expect(await get(undefined, { HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' })).toBe(401);
      expect(await get({ headers: {}, proxy: 'none' }, { HTTP_PROXY: proxy.url })).toBe(401);
      expect(await get({ headers: {}, proxy: proxy.url, noProxy: '127.0.0.1' }, {})).toBe(401);
      expect(proxy.seen).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });
});

describe('extra request headers per surface', () => {
  it('sends them where the gateway wants them and never writes their value in any report', async () => {
    const secret = 'waf-7f3a9c1e2b4d6f80a1c3e5';
    const gate = await headerGate(fake.baseUrl, 'x-waf-token', secret, /^\/v8\//);
    try {
      const without = await gateOf(profileAt(gate.url, {}));
      expect(without.gate).not.toBe('pass');
      const before = gate.seen.length;
      const { report, redactor } = await certify({ profile: profileAt(gate.url, { headers: { v8: { 'x-waf-token': secret }, v1: { 'x-tenant': 'tenant-route-0042' } } }), patterns: RULES, seed: 1 });
      expect(report.summary.gate).toBe('pass');
      const sent = gate.seen.slice(before).filter((s) => s.path.startsWith('/v8/'));
      expect(sent.length).toBeGreaterThan(0);
      expect(sent.every((s) => s.value === secret)).toBe(true);
      const everyFormat = [JSON.stringify(report), renderMarkdown(report), renderHtml(report), renderJunit(report)].join('\n');
      expect(everyFormat).not.toContain(secret);
      expect(JSON.stringify(report.rules.flatMap((r) => r.evidence.map((e) => e.request.headers)))).toContain('«redacted:header:v8:x-waf-token»');
      expect(redactor!.text(`curl -H 'x-waf-token: ${secret}'`)).not.toContain(secret);
    } finally {
      await gate.close();
    }
  }, 60_000);

  it('leaves header values out of the profile fingerprint', async () => {
    const a = await certify({ profile: profileAt(fake.baseUrl, { headers: { v1: { 'x-tenant': 'first-tenant-secret-value' } } }), patterns: ['v8.missions.get.ok'], seed: 1 });
    const b = await certify({ profile: profileAt(fake.baseUrl, { headers: { v1: { 'x-tenant': 'other-tenant-secret-value' } } }), patterns: ['v8.missions.get.ok'], seed: 1 });
    expect(a.report.target.profileFingerprint).toBe(b.report.target.profileFingerprint);
  }, 30_000);
});

describe('network settings a user gets wrong: a ProfileError (exit 2) before anything is sent', () => {
  const profileFile = (network: unknown) => {
    const file = join(pki.dir, `profile-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, JSON.stringify({ target: 'https://127.0.0.1:9', network }));
    return file;
  };
  const refused = async (network: unknown, message: RegExp, env: NodeJS.ProcessEnv = {}) => {
    const loaded = loadProfileFile(profileFile(network), {});
    const failure = loaded.then((profile) => networkDispatcher(profile.network, { env }));
    await expect(failure).rejects.toThrow(ProfileError);
    await expect(failure).rejects.toThrow(message);
  };

  it('names the field and says what to give', async () => {
    await refused({ tls: { ca: 'missing-ca.pem' } }, /network\.tls\.ca: cannot read .*missing-ca\.pem \(ENOENT\)/);
    writeFileSync(join(pki.dir, 'not-pem.txt'), 'hello');
    await refused({ tls: { ca: 'not-pem.txt' } }, /network\.tls\.ca: .*not PEM/);
    await refused({ tls: { cert: pki.clientCertFile, key: join(pki.dir, 'no-such.key') } }, /network\.tls\.key: cannot read/);
    await refused({ tls: { cert: pki.clientCertFile, key: join(pki.dir, 'server.key') } }, /client certificate and key .* cannot be used/);
    await refused({ tls: { cert: pki.clientCertFile } }, /needs both cert and key/);
    await refused({ proxy: 'not a url' }, /network\.proxy: a proxy URL such as/);
    await refused({ proxy: 'socks5://127.0.0.1:1080' }, /network\.proxy/);
    await refused({ headers: { v8: { Authorization: 'Bearer x' } } }, /Authorization is set by apicert's rules/);
    await refused({ headers: { v8: { 'x-bad': 'a\r\nb' } } }, /may not hold CR, LF or NUL/);
    await refused({}, /HTTPS_PROXY is not a URL/, { HTTPS_PROXY: 'http//:nope' });
  });

  it('on the command line: exit 2, one line naming the field, no stack trace', async () => {
    const bin = fileURLToPath(new URL('../../bin/apicert.js', import.meta.url));
    const run = (file: string) =>
      new Promise<{ code: number | null; err: string }>((resolve) => {
        execFile(process.execPath, [bin, 'certify', '--profile', file, '--out', pki.dir], { encoding: 'utf8', timeout: 60_000 }, (error, _out, err) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, err }));
      });
    const [ca, proxy] = await Promise.all([run(profileFile({ tls: { ca: 'nowhere/ca.pem' } })), run(profileFile({ proxy: 'proxy.corp:3128' }))]);
    expect(ca.code, ca.err).toBe(2);
    expect(ca.err).toMatch(/^apicert: network\.tls\.ca: cannot read .*nowhere\/ca\.pem \(ENOENT\): give the path of a PEM certificate bundle/m);
    expect(proxy.code, proxy.err).toBe(2);
    expect(proxy.err).toMatch(/network\.proxy: a proxy URL such as http:\/\/proxy\.example:3128/);
    for (const r of [ca, proxy]) expect(r.err).not.toMatch(/\n\s+at .+:\d+:\d+/);
  }, 60_000);

  it('never prints a proxy password', async () => {
    const loaded = await loadProfileFile(profileFile({}), {});
    const failure = networkDispatcher(loaded.network, { env: { HTTPS_PROXY: 'ftp://user:s3cr3t-pass@proxy:21' } });
    await expect(failure).rejects.toThrow(/only/);
    await expect(failure).rejects.not.toThrow(/s3cr3t/);
  });
});
