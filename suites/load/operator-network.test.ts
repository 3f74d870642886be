/**
 * The profile's network settings on the way to k6 and to the k6-operator: which variable carries
 * what, that the manifests hold no secret (headers, client key, a proxy's password go to the
 * Secret), and that the CA bundle reaches every pod through a ConfigMap the CRD accepts.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { k6Network } from '../../src/load/network-env.ts';
import { makePki } from '../support/network-servers.ts';

const BIN = new URL('../../bin/apicert.js', import.meta.url).pathname;
const pki = makePki();
const WAF = 'waf-operator-6a1c9e';
const PROXY_PASS = 'proxy-operator-pass-2d7b';
const KEY_TEXT = readFileSync(pki.clientKeyFile, 'utf8');

function profileFile(dir: string): string {
  const file = join(dir, 'profile.json');
  writeFileSync(file, JSON.stringify({ target: 'https://gateway.example.test', credentials: [{ name: 'main', token: 'v8at_operator-net-0123456789', surfaces: ['v8'], scopes: ['missions:read', 'missions:write'] }], network: { headers: { v8: { 'x-waf-token': WAF } }, tls: { ca: pki.caFile, cert: pki.clientCertFile, key: pki.clientKeyFile }, proxy: `http://corp:${PROXY_PASS}@proxy.example:3128`, noProxy: 'internal.example' } }));
  return file;
}

function apicert(args: string[]) {
  const result = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, K6_BINARY: '' } });
  return { code: result.status, out: result.stdout, err: result.stderr };
}

describe('the profile\'s network settings for k6', () => {
  it('become APICERT_HEADERS, tlsAuth PEM text, a CA bundle that adds to Node\'s roots, and the proxy variables', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apicert-k6-net-'));
    const { env, unset } = await k6Network({ headers: { v8: { 'x-waf-token': WAF } }, tls: { ca: pki.caFile, cert: pki.clientCertFile, key: pki.clientKeyFile }, proxy: 'http://proxy.example:3128', noProxy: 'internal.example' }, dir);
    expect(JSON.parse(env.APICERT_HEADERS!)).toEqual({ v8: { 'x-waf-token': WAF } });
    expect(env.APICERT_TLS_KEY).toBe(KEY_TEXT);
    const bundle = readFileSync(env.SSL_CERT_FILE!, 'utf8');
    expect(bundle).toContain(pki.ca.trim());
    expect(bundle).toContain(rootCertificates[0]!);
    expect([env.HTTPS_PROXY, env.HTTP_PROXY, env.NO_PROXY]).toEqual(['http://proxy.example:3128', 'http://proxy.example:3128', 'internal.example']);
    expect(unset).toEqual(['https_proxy', 'http_proxy', 'no_proxy']);
    expect((await k6Network({ headers: {}, proxy: 'none' }, dir)).unset).toEqual(['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy']);
    await expect(k6Network({ headers: {}, tls: { cert: pki.clientCertFile, key: pki.serverKey } }, dir)).rejects.toThrow(/network\.tls\.key: cannot read/);
  });

  it('--dry-run shows every one redacted, the proxy\'s password too', () => {
    const dir = mkdtempSync(join(tmpdir(), 'apicert-k6-net-'));
    const run = apicert(['load', '--dry-run', '--profile', profileFile(dir), '--script', 'v8-idempotency-storm', '--out', join(dir, 'out')]);
    expect(run.code, run.err).toBe(0);
    for (const shown of ['APICERT_HEADERS=<redacted>', 'APICERT_TLS_CERT=<redacted>', 'APICERT_TLS_KEY=<redacted>', `HTTPS_PROXY=http://corp:REDACTED@proxy.example:3128`, 'NO_PROXY=internal.example', `SSL_CERT_FILE=${join(dir, 'out', readdirSync(join(dir, 'out')).find((n) => !n.startsWith('.'))!, 'load', 'ca-bundle.pem')}`, 'env -u https_proxy -u http_proxy -u no_proxy']) expect(run.out).toContain(shown);
    expect(run.out + run.err).not.toContain(WAF);
    expect(run.out + run.err).not.toContain(PROXY_PASS);
  });

  it('--emit-k6-operator: secrets in the Secret, the CA bundle in a ConfigMap mounted where SSL_CERT_FILE points', () => {
    const dir = mkdtempSync(join(tmpdir(), 'apicert-k6-net-'));
    const into = join(dir, 'k8s');
    const run = apicert(['load', '--profile', profileFile(dir), '--script', 'v8-idempotency-storm', '--emit-k6-operator', into, '--parallelism', '2', '--out', join(dir, 'out')]);
    expect(run.code, run.err).toBe(0);
    const files = ['v8-idempotency-storm.testrun.yaml', 'v8-idempotency-storm.configmap.yaml', 'apicert-ca-bundle.configmap.yaml', 'README.md'].map((f) => readFileSync(join(into, f), 'utf8'));
    for (const text of [...files, run.out]) {
      for (const secret of [WAF, PROXY_PASS, KEY_TEXT.split('\n')[1]!, 'v8at_operator-net-0123456789']) expect(text).not.toContain(secret);
    }
    const testRun = parse(files[0]!) as { spec: { runner: { env: Array<{ name: string; value: string }>; volumes: unknown[]; volumeMounts: unknown[] } } };
    const env = Object.fromEntries(testRun.spec.runner.env.map((v) => [v.name, v.value]));
    expect(env.SSL_CERT_FILE).toBe('/etc/apicert-ca/ca-bundle.pem');
    expect(env.NO_PROXY).toBe('internal.example');
    expect(env.HTTPS_PROXY).toBeUndefined();
    expect(testRun.spec.runner.volumes).toEqual([{ name: 'apicert-ca', configMap: { name: 'apicert-ca-bundle' } }]);
    expect(testRun.spec.runner.volumeMounts).toEqual([{ name: 'apicert-ca', mountPath: '/etc/apicert-ca', readOnly: true }]);
    expect((parse(files[2]!) as { data: Record<string, string> }).data['ca-bundle.pem']).toContain(pki.ca.trim());
    const readme = files[3]!;
    for (const key of ['APICERT_V8_TOKEN', 'APICERT_HEADERS', 'HTTPS_PROXY', 'HTTP_PROXY']) expect(readme).toContain(`--from-literal=${key}="$${key}"`);
    expect(readme).toContain('--from-file=APICERT_TLS_CERT=client.pem --from-file=APICERT_TLS_KEY=client.key');
    expect(readme).toContain('kubectl apply -f apicert-ca-bundle.configmap.yaml');
  });
});
