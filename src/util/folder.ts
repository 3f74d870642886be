/** Folders apicert creates for its output (reports, profiles, manifests). */
import { mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/**
 * `mkdir -p` one level at a time. Node's recursive mkdir never returns under /proc (it retries
 * ENOENT forever), so a path such as /proc/x would hang the command.
 */
export async function makeFolder(dir: string): Promise<void> {
  const path = resolve(dir);
  const found = await stat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (found?.isDirectory()) return;
  if (found) throw Object.assign(new Error(`${path} is a file`), { code: 'ENOTDIR', path });
  if (dirname(path) !== path) await makeFolder(dirname(path));
  await mkdir(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
}
