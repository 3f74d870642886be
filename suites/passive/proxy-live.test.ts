/**
 * `apicert proxy` judges as traffic passes: a failing judgement is printed, and written as one JSON
 * line to `--findings FILE`, while the proxy still runs; the report is written when it stops.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { embeddedProfile } from '../../src/fake/embedded-profile.ts';
import { startFake } from '../../src/fake/server.ts';
import { LiveJudge, type LiveFinding } from '../../src/passive/live.ts';
import { exchangeOfBytes, startProxy } from '../../src/passive/proxy.ts';
import { RULES } from '../../src/registry.ts';
import { until } from '../support/bounded.ts';

const BIN = new URL('../../bin/apicert.js', import.meta.url).pathname;
const MISSING = '/v8/missions/00000000-0000-7000-8000-000000000000';

describe('apicert proxy judging live', () => {
  it('prints each failing judgement and writes it to --findings while it runs, secrets hidden', async () => {
    const fake = await startFake({ faults: ['v8.contract.version-header/missing-on-errors'] });
    const dir = mkdtempSync(join(tmpdir(), 'apicert-proxy-live-'));
    const findings = join(dir, 'findings.jsonl');
    const child = spawn(process.execPath, [BIN, 'proxy', '--upstream', fake.baseUrl, '--out', join(dir, 'reports'), '--findings', findings], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    try {
      await until('the proxy to listen', () => /apicert proxy: http:\/\/127\.0\.0\.1:\d+/.test(out));
      const url = /apicert proxy: (http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1]!;
      const token = embeddedProfile(fake).credentials.find((c) => c.surfaces.includes('v8') && !c.expired)!.token;
      const res = await fetch(new URL(MISSING, url), { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(404);
      await res.arrayBuffer();
      // Said while the proxy still runs: nothing has stopped it yet.
      await until('the live finding on the console', () => out.includes('FAIL v8.contract.version-header'));
      await until('the live finding in the findings file', () => existsSync(findings) && readFileSync(findings, 'utf8').includes('v8.contract.version-header'));
      expect(child.exitCode).toBeNull();
      const lines = readFileSync(findings, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as LiveFinding);
      const finding = lines.find((f) => f.rule === 'v8.contract.version-header')!;
      expect(finding).toMatchObject({ level: 'required', exchange: { index: 0, method: 'GET', path: MISSING, status: 404 } });
      expect(finding.reason).toMatch(/x-service-contract-version is missing/);
      // 'close': the output is read after the exit, and its last lines may still be in the pipe at 'exit'.
      const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
      child.kill('SIGTERM');
      await exited;
      expect(existsSync(join(dir, 'reports', 'latest', 'report.json'))).toBe(true);
      expect(out.includes(token) || readFileSync(findings, 'utf8').includes(token)).toBe(false);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await fake.close();
    }
  }, 60_000);

  it('says nothing about the clean fake', async () => {
    const fake = await startFake();
    const profile = embeddedProfile(fake);
    const found: LiveFinding[] = [];
    const live = new LiveJudge({ rules: RULES, profile, webhookSecretVariable: 'APICERT_WEBHOOK_SECRET', onFinding: (f) => found.push(f) });
    const proxy = await startProxy({ upstream: fake.baseUrl, bodyLimit: 64 * 1024, maxExchanges: 100, onExchange: (rec, index) => live.add(exchangeOfBytes(rec, index, 64 * 1024)) });
    try {
      const token = profile.credentials.find((c) => c.surfaces.includes('v8') && !c.expired && c.scopes.includes('missions:write'))!.token;
      const created = await fetch(new URL('/v8/missions', proxy.url), { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': 'live-clean-0000000001' }, body: JSON.stringify({ goalSpec: { task: 'apicert scenario succeeds: summarise three short documents' }, resourceBudget: { maximumSteps: 50, maximumToolCalls: 20, maximumElapsedMs: 60000, maximumParallelism: 2 } }) });
      expect(created.status).toBe(202);
      const { runId } = (await created.json()) as { runId: string };
      for (const path of [`/v8/missions/${runId}`, `/v8/missions/${runId}/events`, MISSING]) await (await fetch(new URL(path, proxy.url), { headers: { authorization: `Bearer ${token}` } })).text();
      await until('four exchanges recorded', () => proxy.recorded().filter((r) => r.durationMs !== undefined).length === 4);
      live.flush();
      expect(found).toEqual([]);
      expect(live.cases).toBeGreaterThan(4);
    } finally {
      await proxy.close();
      await fake.close();
    }
  }, 60_000);
});
