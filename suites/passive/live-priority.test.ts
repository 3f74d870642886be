/**
 * Forwarding wins the CPU: `apicert proxy`'s live-judging thread lowers its own nice value, and only
 * its own (on Linux a thread's nice value is its own; elsewhere the thread leaves it alone).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { JUDGING_NICE } from '../../src/passive/live-priority.ts';

const BIN = new URL('../../bin/apicert.js', import.meta.url).pathname;

/** Each thread of a process: its name and nice value (stat(5) fields 2 and 19). */
function threads(pid: number): Array<{ name: string; nice: number }> {
  return readdirSync(`/proc/${pid}/task`).map((tid) => {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
    return { name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), nice: Number(fields[16]) };
  });
}

/** The process running the proxy: the launcher's own PID when it could exec, else its child. */
function proxyPid(pid: number): number {
  if (threads(pid).some((t) => t.name === 'WorkerThread')) return pid;
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  return children.find((c) => threads(c).some((t) => t.name === 'WorkerThread')) ?? pid;
}

describe.runIf(process.platform === 'linux')('the proxy\'s judging thread', () => {
  it('runs at a lower priority than the forwarding thread', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'apicert-live-priority-'));
    // Nothing listens on port 9: the proxy starts all the same, and no request is sent.
    const child = spawn(process.execPath, [BIN, 'proxy', '--upstream', 'http://127.0.0.1:9', '--out', join(dir, 'reports'), '--quiet'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    try {
      const deadline = Date.now() + 30_000;
      let seen: Array<{ name: string; nice: number }> = [];
      // The judging thread sets its priority as it starts, which may be after the proxy listens.
      while (Date.now() < deadline) {
        if (/apicert proxy: http/.test(out)) {
          seen = threads(proxyPid(child.pid!));
          if (seen.some((t) => t.name === 'WorkerThread' && t.nice === JUDGING_NICE)) break;
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(seen.filter((t) => t.name === 'WorkerThread').map((t) => t.nice)).toEqual([JUDGING_NICE]);
      // The forwarding thread keeps the priority it started with (this process's).
      expect(seen.find((t) => t.name === 'MainThread')?.nice).toBe(getPriority());
      const exited = new Promise((resolve) => child.once('close', resolve));
      child.kill('SIGTERM');
      await exited;
      expect(existsSync(join(dir, 'reports', 'latest', 'report.json'))).toBe(true);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 60_000);
});
