/**
 * `apicert load` on real k6 through what stands in front of a vendor's gateway: a private CA
 * (SSL_CERT_FILE, a bundle of Node's roots and the CA), mutual TLS (tlsAuth), a header gate
 * (APICERT_HEADERS, from --header) and a forward proxy (HTTPS_PROXY, HTTP_PROXY). Loopback only.
 *
 * CI has no k6: set APICERT_TEST_K6 to one k6 binary or several, comma separated (v0.48.0 and
 * later), to run it; without, every case reports itself skipped and why.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { startFake, type RunningFake } from '../../src/fake/server.ts';
import type { Network } from '../../src/profile/network.ts';
import { rulesOf } from '../../src/load/rules.ts';
import { forwardProxy, GATEWAY_HOST, headerGate, makePki, tlsFront, type TestPki } from '../support/network-servers.ts';

const K6 = (process.env.APICERT_TEST_K6 ?? '').split(',').map((s) => s.trim()).filter(Boolean);
const SKIP = K6.length === 0 ? ' (skipped: no real k6; set APICERT_TEST_K6=/path/to/k6[,/path/to/other-k6])' : '';
const SCRIPT = 'v8-idempotency-storm';
/** Small and bounded: two storms of four requests, 30 s at most per scenario. */
const SETTINGS = { APICERT_ITERATIONS: '2', APICERT_VUS: '1', APICERT_STORM: '4', APICERT_MAX_DURATION: '30s', APICERT_STREAM_TIMEOUT: '3s' };

let pki: TestPki;
let fake: RunningFake;
let dir: string;

beforeAll(async () => {
  if (K6.length === 0) return;
  pki = makePki();
  fake = await startFake();
  dir = mkdtempSync(join(tmpdir(), 'apicert-k6-network-'));
}, 30_000);

afterAll(async () => {
  await fake?.close();
});

/** `apicert load --profile` (the fake's credentials and fixtures, this target and network) on one k6, asynchronously: the fronts live in this process. */
function load(k6: string, target: string, network: Partial<Network> | undefined, extra: string[] = []): Promise<{ code: number | null; out: string }> {
  const file = join(dir, `profile-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify({ ...embeddedProfile(fake), target, ...(network ? { network: { headers: {}, ...network } } : {}) }));
  const bin = new URL('../../bin/apicert.js', import.meta.url).pathname;
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('APICERT_') && !/_proxy$/i.test(name)));
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, 'load', '--profile', file, '--script', SCRIPT, '--out', join(dir, 'reports'), ...extra], { encoding: 'utf8', timeout: 150_000, env: { ...clean, ...SETTINGS, K6_BINARY: k6 } }, (error, out, err) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, out: out + err }),
    );
  });
}

const everyRulePasses = (out: string) => rulesOf(SCRIPT).every((r) => new RegExp(`^pass +${r.id.replace(/\./g, '\\.')}$`, 'm').test(out));

describe.each(K6.length > 0 ? K6 : ['(none)'])(`apicert load on real k6 %s through the profile's network settings${SKIP}`, (k6) => {
  it.skipIf(K6.length === 0)('a private CA: the scripts pass with network.tls.ca, and k6 refuses the target without it', async () => {
    const front = await tlsFront(pki, fake.baseUrl);
    try {
      const trusted = await load(k6, front.url, { tls: { ca: pki.caFile } });
      expect(trusted.code, trusted.out).toBe(0);
      expect(everyRulePasses(trusted.out), trusted.out).toBe(true);
      const untrusted = await load(k6, front.url, undefined);
      expect(untrusted.code, untrusted.out).not.toBe(0);
      expect(untrusted.out).toMatch(/x509|certificate/i);
    } finally {
      await front.close();
    }
  }, 300_000);

  it.skipIf(K6.length === 0)('mutual TLS: k6 presents the client certificate (tlsAuth) the front demands', async () => {
    const front = await tlsFront(pki, fake.baseUrl, { requireClientCert: true });
    try {
      const run = await load(k6, front.url, { tls: { ca: pki.caFile, cert: pki.clientCertFile, key: pki.clientKeyFile } });
      expect(run.code, run.out).toBe(0);
      expect(everyRulePasses(run.out), run.out).toBe(true);
      expect(front.clients.length).toBeGreaterThan(0);
      expect(new Set(front.clients)).toEqual(new Set(['apicert client']));
      const refused = await load(k6, front.url, { tls: { ca: pki.caFile } });
      expect(refused.code, refused.out).not.toBe(0);
    } finally {
      await front.close();
    }
  }, 300_000);

  it.skipIf(K6.length === 0)('a header gate: --header reaches every /v8 request k6 sends, and no output shows its value', async () => {
    const secret = 'k6-waf-8e2c71d04b';
    const gate = await headerGate(fake.baseUrl, 'x-waf-token', secret, /^\/v8\//);
    try {
      const without = await load(k6, gate.url, undefined);
      expect(without.code, without.out).not.toBe(0);
      const before = gate.seen.length;
      const run = await load(k6, gate.url, undefined, ['--header', `v8:x-waf-token:${secret}`]);
      expect(run.code, run.out).toBe(0);
      expect(everyRulePasses(run.out), run.out).toBe(true);
      const sent = gate.seen.slice(before).filter((s) => s.path.startsWith('/v8/'));
      expect(sent.length).toBeGreaterThan(4);
      expect(sent.every((s) => s.value === secret)).toBe(true);
      expect(run.out).not.toContain(secret);
    } finally {
      await gate.close();
    }
  }, 300_000);

  it.skipIf(K6.length === 0)('a forward proxy: HTTPS through CONNECT with the CA checked inside the tunnel, HTTP in absolute form with the proxy\'s credentials, never printed', async () => {
    const front = await tlsFront(pki, fake.baseUrl);
    const proxy = await forwardProxy({ hosts: { [GATEWAY_HOST]: '127.0.0.1' } });
    const password = 'k6-proxy-pass-3f9a';
    try {
      const httpsTarget = `https://${GATEWAY_HOST}:${new URL(front.url).port}`;
      const tunnelled = await load(k6, httpsTarget, { tls: { ca: pki.caFile }, proxy: proxy.url });
      expect(tunnelled.code, tunnelled.out).toBe(0);
      expect(everyRulePasses(tunnelled.out), tunnelled.out).toBe(true);
      expect(new Set(proxy.seen)).toEqual(new Set([`CONNECT ${GATEWAY_HOST}:${new URL(front.url).port}`]));
      const seen = proxy.seen.length;
      const httpTarget = `http://${GATEWAY_HOST}:${new URL(fake.baseUrl).port}`;
      const forwarded = await load(k6, httpTarget, { proxy: proxy.url.replace('http://', `http://apicert:${password}@`) });
      expect(forwarded.code, forwarded.out).toBe(0);
      const plain = proxy.seen.slice(seen);
      expect(plain.length).toBeGreaterThan(4);
      for (const line of plain) expect(line).toMatch(new RegExp(`^[A-Z]+ ${httpTarget}/`));
      expect(new Set(proxy.auth.slice(seen))).toEqual(new Set([`Basic ${Buffer.from(`apicert:${password}`).toString('base64')}`]));
      expect(forwarded.out).not.toContain(password);
    } finally {
      await Promise.all([front.close(), proxy.close()]);
    }
  }, 300_000);
});
