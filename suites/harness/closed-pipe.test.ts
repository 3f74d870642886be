/**
 * `apicert X | head -1`: a reader that goes away ends every printing command quietly, with its own
 * exit code (0 here) and no stack trace. The read end is closed before apicert writes anything, so
 * every write meets the closed pipe, whatever the machine's speed.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

const BIN = new URL('../../bin/apicert.js', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'apicert-pipe-'));
const report = join(dir, 'run', 'latest', 'report.json');

function withClosedStdout(args: string[]): Promise<{ code: number | null; err: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, K6_BINARY: '' } });
  child.stdout.destroy();
  let err = '';
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const limit = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) => child.once('close', (code) => (clearTimeout(limit), resolve({ code, err }))));
}

const PRINTING: string[][] = [
  ['--help'],
  ['certify', '--help'],
  ['help', 'env'],
  ['rules'],
  ['faults'],
  ['variants'],
  ['coverage'],
  ['plan'],
  ['judge-client', '--list-rules'],
  ['certify-receiver', '--list-rules'],
  ['certify', '--rules', 'v8.missions.get.*', '--out', '-'],
  ['load', '--dry-run', '--script', 'v8-stream-fanout', '--out', join(dir, 'load')],
  ['diff', report, report],
  ['keygen', '--out', join(dir, 'key')],
];

describe('a closed stdout', () => {
  beforeAll(() => {
    const made = spawnSync(process.execPath, [BIN, 'certify', '--rules', 'v8.missions.get.*', '--quiet', '--out', join(dir, 'run')], { encoding: 'utf8', timeout: 60_000 });
    expect(made.status, made.stderr).toBe(0);
  }, 70_000);

  it('ends every printing command with status 0 and no stack trace', async () => {
    // A few at a time: the machine is shared.
    for (let i = 0; i < PRINTING.length; i += 4) {
      const batch = PRINTING.slice(i, i + 4);
      const runs = await Promise.all(batch.map(withClosedStdout));
      for (const [j, run] of runs.entries()) {
        const what = `apicert ${batch[j]!.join(' ')}: ${run.err}`;
        expect(run.code, what).toBe(0);
        expect(run.err, what).not.toMatch(/EPIPE|node:events|Unhandled|\n\s+at /);
      }
    }
  }, 180_000);
});
