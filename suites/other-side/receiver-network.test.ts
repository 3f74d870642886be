/**
 * certify-receiver reaching a receiver as teams deploy it: behind TLS with a private CA, behind a
 * gateway that demands a client certificate, and behind one that wants its own header. The
 * receiver's entry of the profile (receiver.headers, receiver.tls) carries them; loopback only.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receiverRules } from '../../src/receiver-cert/rules.ts';
import { certifyReceiver } from '../../src/receiver-cert/certify-receiver.ts';
import { TargetUnreachable } from '../../src/runner/certify.ts';
import { headerGate, makePki, tlsFront, type TestPki } from '../support/network-servers.ts';
import { startSampleReceiver, TEST_SECRET, type SampleReceiver } from './support.ts';

let pki: TestPki;
let receiver: SampleReceiver;

beforeAll(async () => {
  pki = makePki();
  receiver = await startSampleReceiver();
}, 30_000);

afterAll(() => receiver?.stop());

/** The CLI, run asynchronously: the TLS front lives in this process and must go on answering. */
function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const bin = new URL('../../bin/apicert.js', import.meta.url).pathname;
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, ...env } }, (error, stdout, stderr) => resolve({ status: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }));
  });
}

/** The receiver's URL with the front's origin. */
const behind = (front: string) => `${front}${new URL(receiver.url).pathname}`;
const allPass = receiverRules.map((r) => [r.id, 'pass']);

describe('certify-receiver behind TLS', () => {
  it('trusts the receiver\'s private CA when its entry names it, and cannot reach it without', async () => {
    const front = await tlsFront(pki, receiver.url);
    try {
      const { results } = await certifyReceiver({ url: behind(front.url), secret: TEST_SECRET, seed: 7, network: { tls: { ca: pki.caFile } } });
      expect(results.map((r) => [r.rule.id, r.verdict])).toEqual(allPass);
      await expect(certifyReceiver({ url: behind(front.url), secret: TEST_SECRET, seed: 7 })).rejects.toThrow(TargetUnreachable);
    } finally {
      await front.close();
    }
  }, 60_000);

  it('presents the client certificate a mutual-TLS front demands', async () => {
    const front = await tlsFront(pki, receiver.url, { requireClientCert: true });
    try {
      const { results } = await certifyReceiver({ url: behind(front.url), secret: TEST_SECRET, seed: 7, network: { tls: { ca: pki.caFile, cert: pki.clientCertFile, key: pki.clientKeyFile } } });
      expect(results.map((r) => [r.rule.id, r.verdict])).toEqual(allPass);
      expect(new Set(front.clients)).toEqual(new Set(['apicert client']));
      await expect(certifyReceiver({ url: behind(front.url), secret: TEST_SECRET, seed: 7, network: { tls: { ca: pki.caFile } } })).rejects.toThrow(TargetUnreachable);
    } finally {
      await front.close();
    }
  }, 60_000);
});

describe('certify-receiver behind a gateway that wants its header', () => {
  it('sends the entry\'s headers with every delivery and never writes their value', async () => {
    const secret = 'receiver-gate-4b1e9d7c2a';
    const gate = await headerGate(receiver.url, 'x-gateway-token', secret, /.*/);
    try {
      const without = await certifyReceiver({ url: behind(gate.url), secret: TEST_SECRET, seed: 7 });
      expect(without.report.summary.gate).not.toBe('pass');
      const { report, results } = await certifyReceiver({ url: behind(gate.url), secret: TEST_SECRET, seed: 7, network: { headers: { 'x-gateway-token': secret } } });
      expect(results.map((r) => [r.rule.id, r.verdict])).toEqual(allPass);
      expect(JSON.stringify(report)).not.toContain(secret);
      expect(JSON.stringify(report)).toContain('«redacted:header:receiver:x-gateway-token»');
    } finally {
      await gate.close();
    }
  }, 60_000);

  it('takes them from the profile\'s receiver entry on the command line, ${ENV} expanded, paths relative to the profile', async () => {
    const front = await tlsFront(pki, receiver.url);
    try {
      const file = join(pki.dir, 'receiver-profile.yaml');
      writeFileSync(file, `receiver:\n  url: ${behind(front.url)}\n  secretEnv: RECEIVER_SECRET_FOR_TEST\n  headers:\n    x-extra: \${RECEIVER_EXTRA_FOR_TEST}\n  tls:\n    ca: ca.pem\n`);
      const run = await cli(['certify-receiver', '--profile', file, '--out', join(pki.dir, 'receiver-reports'), '--quiet'], { RECEIVER_SECRET_FOR_TEST: TEST_SECRET, RECEIVER_EXTRA_FOR_TEST: 'extra-value-93af' });
      expect(run.status, run.stderr + run.stdout).toBe(0);
      expect(run.stdout + run.stderr).not.toContain('extra-value-93af');
      writeFileSync(file, `receiver:\n  url: ${behind(front.url)}\n  tls:\n    cert: client.pem\n`);
      const refused = await cli(['certify-receiver', '--profile', file, '--out', join(pki.dir, 'receiver-reports')]);
      expect(refused.status).toBe(2);
      expect(refused.stderr).toMatch(/tls: mutual TLS needs both cert and key/);
    } finally {
      await front.close();
    }
  }, 90_000);
});
