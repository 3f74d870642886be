import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const BIN = new URL('../../bin/apicert.js', import.meta.url).pathname;

function apicert(...args: string[]) {
  const result = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { code: result.status, out: result.stdout, err: result.stderr };
}

describe('apicert CLI', () => {
  it('certifies the embedded fake, writes every report format and exits 0', () => {
    const out = mkdtempSync(join(tmpdir(), 'apicert-cli-'));
    const run = apicert('certify', '--rules', 'v8.missions.get.*', '--out', out, '--seed', '5');
    expect(run.code, run.err).toBe(0);
    expect(run.out).toMatch(/gate PASS - judged 3 of 3 selected rules \(pass or fail\); required 3 pass, 0 fail/);
    const report = JSON.parse(readFileSync(join(out, 'latest', 'report.json'), 'utf8')) as { rules: unknown[]; run: { seed: number } };
    expect(report.rules).toHaveLength(3);
    expect(report.run.seed).toBe(5);
    for (const file of ['junit.xml', 'summary.md', 'report.html']) expect(readFileSync(join(out, 'latest', file), 'utf8').length).toBeGreaterThan(100);
  });

  it('exits 1 when a fault breaks a rule', () => {
    const out = mkdtempSync(join(tmpdir(), 'apicert-cli-'));
    const run = apicert('certify', '--rules', 'v8.missions.get.unknown-404', '--faults', 'v8.missions.get.unknown-404/server-error', '--out', out, '--quiet');
    expect(run.code).toBe(1);
    expect(run.out).toMatch(/gate FAIL/);
  });

  it('exits 2 with a message for usage and profile errors', () => {
    const unknownFault = apicert('certify', '--faults', 'no.such/fault');
    expect(unknownFault.code).toBe(2);
    expect(unknownFault.err).toMatch(/unknown fault "no.such\/fault"/);
    const badProfile = apicert('certify', '--profile', '/nonexistent/profile.yaml');
    expect(badProfile.code).toBe(2);
    expect(badProfile.err).toMatch(/cannot read profile/);
  });

  it('exits 3 when the target does not answer', () => {
    const out = mkdtempSync(join(tmpdir(), 'apicert-cli-'));
    const run = apicert('certify', '--target', 'http://127.0.0.1:9', '--quiet', '--out', out);
    expect(run.code).toBe(3);
    expect(run.err).toMatch(/did not answer the first probe .*connection refused/);
    const report = JSON.parse(readFileSync(join(out, 'latest', 'report.json'), 'utf8')) as { rules: Array<{ verdict: string }>; summary: { gate: string } };
    expect(report.summary.gate).toBe('inconclusive');
    expect(new Set(report.rules.map((r) => r.verdict))).toEqual(new Set(['inconclusive']));
  });

  it('lists rules and faults', () => {
    const rules = apicert('rules', '--json');
    expect(rules.code).toBe(0);
    const list = JSON.parse(rules.out) as Array<{ id: string; spec: { quote: string } }>;
    expect(list.find((r) => r.id === 'v8.missions.idempotency.conflict')?.spec.quote).toBe('The same key with a different body gives `409`.');
    expect(apicert('faults').out).toMatch(/v8\.missions\.idempotency\.conflict\/replays-different-body/);
  });
});
