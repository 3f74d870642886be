/**
 * The profile's network settings beyond certify's probes: `--header` on the command line (the same
 * refusals and redaction as network.headers), and the passive proxy's upstream (CA, headers per
 * surface, which the record leaves out). Loopback servers of suites/support/network-servers.ts.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { startFake, type RunningFake } from '../../src/fake/server.ts';
import { startProxy } from '../../src/passive/proxy.ts';
import { exemptFromProxy } from '../../src/probe/dispatcher.ts';
import { parseHeaderFlag, withHeaderFlags, type Network } from '../../src/profile/network.ts';
import { certify } from '../../src/runner/certify.ts';
import { forwardProxy, headerGate, makePki, tlsFront, type TestPki } from '../support/network-servers.ts';

let pki: TestPki;
let fake: RunningFake;

beforeAll(async () => {
  pki = makePki();
  fake = await startFake();
}, 30_000);

afterAll(async () => {
  await fake?.close();
});

function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; out: string; err: string }> {
  const bin = new URL('../../bin/apicert.js', import.meta.url).pathname;
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 90_000, env: { ...process.env, ...env } }, (error, out, err) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, out, err }));
  });
}

describe('--header [SURFACE:]NAME:VALUE', () => {
  it('reads a surface, or none for every surface, and keeps colons in the value', () => {
    expect(parseHeaderFlag('v8:X-Waf-Token:abc:def')).toEqual({ surface: 'v8', name: 'x-waf-token', value: 'abc:def' });
    expect(parseHeaderFlag('x-tenant: t-1')).toEqual({ name: 'x-tenant', value: 't-1' });
    const network = withHeaderFlags({ headers: { v1: { 'x-tenant': 'from-profile' } } }, [{ name: 'x-tenant', value: 'from-flag' }, { surface: 'mcp', name: 'x-mcp', value: 'm' }]);
    expect(network!.headers).toEqual({ v8: { 'x-tenant': 'from-flag' }, v1: { 'x-tenant': 'from-flag' }, mcp: { 'x-tenant': 'from-flag', 'x-mcp': 'm' } });
  });

  it('refuses what network.headers refuses, naming the header and never its value', () => {
    const refused = (text: string) => {
      const parsed = parseHeaderFlag(text);
      expect('error' in parsed, text).toBe(true);
      return (parsed as { error: string }).error;
    };
    expect(refused('authorization:Bearer sekret-token')).toMatch(/authorization is set by apicert's rules/);
    expect(refused('v8:x-a:')).toMatch(/x-a: an empty value/);
    expect(refused('no-colon-here')).toMatch(/give \[SURFACE:\]NAME:VALUE/);
    expect(refused('bad name:value-9')).toMatch(/the header name is not an HTTP token/);
    expect(refused('v9:x-waf-token:value-9')).toBe('unknown surface "v9": use v8, v1, mcp (or none, for every surface)');
    for (const text of ['authorization:Bearer sekret-token', 'bad name:value-9', 'v9:x-waf-token:value-9']) expect(refused(text)).not.toMatch(/sekret|value-9/);
  });

  it('reaches a gateway that wants its header, with the value in no report', async () => {
    const secret = 'flag-waf-0c4f2a9e71';
    const gate = await headerGate(fake.baseUrl, 'x-waf-token', secret, /^\/v8\//);
    try {
      const profile = embeddedProfile(fake);
      const network = withHeaderFlags(undefined, [parseHeaderFlag(`v8:x-waf-token:${secret}`) as { name: string; value: string }]);
      const { report } = await certify({ profile: { ...profile, target: gate.url, network }, patterns: ['v8.missions.get.*'], seed: 1 });
      expect(report.summary.gate).toBe('pass');
      const v8Seen = gate.seen.filter((s) => s.path.startsWith('/v8/'));
      expect(v8Seen.length, 'the run\'s /v8 requests reached the gateway').toBeGreaterThan(0);
      expect(v8Seen.every((s) => s.value === secret)).toBe(true);
      expect(JSON.stringify(report)).not.toContain(secret);
    } finally {
      await gate.close();
    }
  }, 60_000);

  it('on the command line: certify and load refuse a bad one with exit 2 and one line without the value; load --dry-run redacts it', async () => {
    const out = join(pki.dir, 'flag-reports');
    const bad = await cli(['certify', '--target', 'http://127.0.0.1:9', '--header', 'authorization:Bearer flag-secret-1', '--out', out]);
    expect(bad.code, bad.err).toBe(2);
    expect(bad.err).toMatch(/^apicert: --header: header authorization: authorization is set by apicert's rules/m);
    expect(bad.err + bad.out).not.toContain('flag-secret-1');
    const load = await cli(['load', '--dry-run', '--target', 'https://gateway.example.test', '--script', 'v8-idempotency-storm', '--header', 'v8:x-waf-token:flag-secret-2', '--out', out], { APICERT_V8_TOKEN: 'v8at_flag' });
    expect(load.code, load.err).toBe(0);
    expect(load.out).toContain('APICERT_HEADERS=<redacted>');
    expect(load.out + load.err).not.toContain('flag-secret-2');
  }, 90_000);
});

describe('the passive proxy\'s upstream', () => {
  it('reaches an upstream behind a private CA with the profile\'s headers, and records the client\'s request as it came', async () => {
    const secret = 'upstream-waf-5d8e1f3a';
    const gate = await headerGate(fake.baseUrl, 'x-waf-token', secret, /^\/v8\//);
    const front = await tlsFront(pki, gate.url);
    const proxy = await startProxy({ upstream: front.url, bodyLimit: 4096, maxExchanges: 10, network: { headers: { v8: { 'x-waf-token': secret } }, tls: { ca: pki.caFile } } });
    try {
      const res = await request(`${proxy.url}/v8/missions/00000000-0000-7000-8000-000000000000`);
      await res.body.dump();
      expect(res.statusCode).toBe(401);
      expect(gate.seen.at(-1)).toEqual({ path: '/v8/missions/00000000-0000-7000-8000-000000000000', value: secret });
      expect(JSON.stringify(proxy.exchanges())).not.toContain(secret);
    } finally {
      await proxy.close();
      await Promise.all([front.close(), gate.close()]);
    }
  }, 60_000);

  it('reaches its upstream through the profile\'s forward proxy: plain HTTP in absolute form with the proxy\'s credentials, HTTPS through a CONNECT tunnel', async () => {
    const [front, forward] = await Promise.all([tlsFront(pki, fake.baseUrl), forwardProxy()]);
    const password = 'proxy-pass-0c4b9e2d';
    const path = '/v8/missions/00000000-0000-7000-8000-000000000000';
    const through = async (upstream: string, network: Network) => {
      const proxy = await startProxy({ upstream, bodyLimit: 4096, maxExchanges: 10, network });
      try {
        // Twice: the second request goes on the connection the first left open.
        const statuses: number[] = [];
        for (let i = 0; i < 2; i += 1) {
          const res = await request(`${proxy.url}${path}`);
          await res.body.dump();
          statuses.push(res.statusCode);
        }
        return { statuses, exchanges: proxy.exchanges(), recorded: JSON.stringify(proxy.exchanges()) };
      } finally {
        await proxy.close();
      }
    };
    try {
      const plain = await through(fake.baseUrl, { headers: {}, proxy: forward.url.replace('http://', `http://apicert:${password}@`) });
      expect(plain.statuses).toEqual([401, 401]);
      expect(forward.seen).toEqual([`GET ${fake.baseUrl}${path}`, `GET ${fake.baseUrl}${path}`]);
      expect(new Set(forward.auth)).toEqual(new Set([`Basic ${Buffer.from(`apicert:${password}`).toString('base64')}`]));
      expect(plain.exchanges.map((e) => `${e.path} ${e.status}`)).toEqual([`${path} 401`, `${path} 401`]);
      expect(plain.recorded).not.toContain(password);
      forward.seen.length = 0;
      const secure = await through(front.url, { headers: {}, tls: { ca: pki.caFile }, proxy: forward.url });
      expect(secure.statuses).toEqual([401, 401]);
      expect(forward.seen).toEqual([`CONNECT ${new URL(front.url).host}`]);
    } finally {
      await Promise.all([front.close(), forward.close()]);
    }
  }, 60_000);

  it('reads NO_PROXY as undici does for a run: `*`, a host and its subdomains (with or without a leading dot or `*.`), a port when given', () => {
    const cases: Array<[string, string, string, boolean]> = [
      ['*', 'gateway.example', '443', true],
      ['gateway.example', 'gateway.example', '443', true],
      ['gateway.example', 'api.gateway.example', '443', true],
      ['gateway.example', 'mygateway.example', '443', false],
      ['.gateway.example', 'api.gateway.example', '80', true],
      ['*.gateway.example', 'api.gateway.example', '80', true],
      ['other.example, gateway.example:8443', 'gateway.example', '8443', true],
      ['gateway.example:8443', 'gateway.example', '443', false],
      ['[::1]:8080', '[::1]', '8080', true],
      ['', 'gateway.example', '443', false],
    ];
    for (const [noProxy, host, port, exempt] of cases) expect(`${noProxy} / ${host}:${port}: ${exemptFromProxy(noProxy, host, port)}`).toBe(`${noProxy} / ${host}:${port}: ${exempt}`);
  });

  it('apicert proxy --profile refuses a network section it cannot use, before listening', async () => {
    const file = join(pki.dir, 'proxy-profile.json');
    writeFileSync(file, JSON.stringify({ target: 'https://127.0.0.1:9', network: { tls: { ca: 'missing-ca.pem' } } }));
    const run = await cli(['proxy', '--upstream', 'https://127.0.0.1:9', '--profile', file, '--duration', '1s', '--out', join(pki.dir, 'proxy-reports')]);
    expect(run.code, run.err).toBe(2);
    expect(run.err).toMatch(/network\.tls\.ca: cannot read .*missing-ca\.pem/);
  }, 60_000);
});
