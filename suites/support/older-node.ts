import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NODE_NEEDED, nodeOlderThanNeeded } from '../../src/node-version.ts';

const PINNED_BIN = fileURLToPath(new URL('../../node_modules', import.meta.url));

/**
 * A Node older than engines on this machine (the README's Node 20 machine: the PATH without the
 * pinned Node, then the usual places), or why there is none.
 */
export function olderNode(): { path?: string; reason?: string } {
  const onPath = (process.env.PATH ?? '').split(':').filter((dir) => dir && !dir.startsWith(PINNED_BIN));
  for (const dir of [...onPath, '/usr/bin', '/usr/local/bin']) {
    const path = join(dir, 'node');
    if (!existsSync(path)) continue;
    const version = spawnSync(path, ['-p', 'process.versions.node'], { encoding: 'utf8', timeout: 30_000 }).stdout?.trim();
    if (version && nodeOlderThanNeeded(version)) return { path };
  }
  return { reason: `no Node older than ${NODE_NEEDED} on this machine` };
}
